// Package bench measures the primitives of the rlx training core on the host
// and returns the figures as plain structs with JSON tags, for `rlx bench`
// to print as a table or emit as JSON.
//
// Every figure here is on the host wall clock of the machine running it; none
// comes from the simulated devices. Each measurement repeats its work several
// times and reports the median, because the machines rlx runs on are often
// shared and noisy.
//
// bench may import the core packages (core/...) and hw, never engine, tui or
// cmd.
package bench
