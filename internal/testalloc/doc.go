// Package testalloc counts a function's allocations for tests, with the
// process's own GOMAXPROCS.
//
// testing.AllocsPerRun sets GOMAXPROCS to 1 while it measures, and at
// GOMAXPROCS 1 the kernels that split their work across cores
// (internal/parallel) run every chunk on the calling goroutine: it cannot
// see what a split call allocates. MallocsPerCall reads the runtime's
// counter instead, at whatever GOMAXPROCS the test runs with.
//
// # Imports
//
// The standard library only; only tests import it.
package testalloc
