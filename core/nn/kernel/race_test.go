//go:build race

package kernel

// raceEnabled skips the allocation counts: the race detector's
// instrumentation allocates on its own.
const raceEnabled = true
