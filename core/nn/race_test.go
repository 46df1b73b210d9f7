//go:build race

package nn

// raceEnabled skips the allocation counts: the race detector's
// instrumentation allocates on its own.
const raceEnabled = true
