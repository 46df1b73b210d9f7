package testalloc

import (
	"math"
	"runtime"
)

// MallocsPerCall returns the allocations of f per call, counted through
// the runtime's counter (runtime.MemStats.Mallocs) over runs calls, with
// the process's GOMAXPROCS. It calls f twice first, to warm it up. The
// counter also sees the runtime's own background work (the scavenger's
// timers, the wait-queue entries that a garbage collection drops from each
// P's cache and the next blocking wait refills), which comes and goes,
// while an allocation made by f comes every call: it returns the least of
// up to ten rounds, and stops at the first that counts none.
func MallocsPerCall(runs int, f func()) float64 {
	f()
	f()
	best := math.Inf(1)
	for range 10 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range runs {
			f()
		}
		runtime.ReadMemStats(&after)
		best = min(best, float64(after.Mallocs-before.Mallocs)/float64(runs))
		if best == 0 {
			break
		}
	}
	return best
}
