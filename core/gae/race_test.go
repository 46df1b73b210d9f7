//go:build race

package gae

// raceEnabled skips the allocation counts: the race detector's
// instrumentation slows every call twentyfold, long enough for the
// runtime's own background allocations to land in every measured round.
const raceEnabled = true
