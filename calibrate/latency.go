package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// Accepted ranges of MeasureLoadLatency's arguments.
const (
	MinLatencyBytes = 1 << 10 // smallest working set, 1 KiB
	MaxLatencyBytes = 1 << 30 // largest working set, 1 GiB
	MaxRepeats      = 1000
	MinLoads        = 1000
	MaxLoads        = 1_000_000_000
)

// lineBytes is the cache-line size the chase assumes: 64 bytes on every
// current x86 and on most Arm cores. A longer line (Apple's 128) only makes
// two slots share a line now and then; the chase stays dependent.
const lineBytes = 64

// intsPerLine is how many ints fill one line; the chase uses the first int
// of each line and leaves the rest unused, so every load touches a new line.
const intsPerLine = lineBytes / (strconv.IntSize / 8)

// chaseChunk is how many loads run between two polls of the context: a
// poll costs a few nanoseconds, under 1e-4 of a chunk even at L1 latency,
// and a chunk lasts about 10 ms at DRAM latency (150 ns a load).
const chaseChunk = 1 << 16

// chaseSeed1 and chaseSeed2 seed the PCG that builds every cycle, so that
// a size always gets the same cycle and runs can be compared.
const chaseSeed1, chaseSeed2 = 0x9e3779b97f4a7c15, 0xd1b54a32d192ed03

// latencySink receives the end of every chase and of every timed copy, so
// the compiler cannot drop the work; atomic because measurements may run
// concurrently.
var latencySink atomic.Int64

// LatencyPoint is the load-to-use latency measured for one working set.
type LatencyPoint struct {
	// Bytes is the working set chased: the requested size rounded down to
	// whole 64-byte lines.
	Bytes int
	// NS is the median over repeats of the nanoseconds per dependent load.
	NS float64
	// Spread is (max-min)/median of the per-repeat figures: a noise gauge,
	// 0 for a single repeat.
	Spread float64
}

// MeasureLoadLatency measures the load-to-use latency for each working set
// size in sizes (bytes), in the order given: it links size/64 cache lines
// into one random cycle (Sattolo's algorithm, fixed seed, so each size
// always gets the same cycle), walks the whole cycle once to warm caches
// and TLB, then times loadsPerRepeat dependent loads (p = next[p]) repeats
// times and reports the median. The random order defeats the hardware
// prefetchers, and the dependence serialises the loads, so each costs one
// full latency of the level the set fits in; for large sets that includes
// the TLB misses a random access pays.
//
// Accepted: each size in [MinLatencyBytes, MaxLatencyBytes] (1 KiB..1 GiB),
// repeats in [1, MaxRepeats], loadsPerRepeat in [MinLoads, MaxLoads]; other
// values give an error naming the value. About 1e5 loads per repeat keep
// the timer's own cost under 1% at L1 latency.
//
// It allocates one buffer of the largest size and holds the calling
// goroutine to its OS thread while it runs. The setup of a size costs
// O(size/64) random accesses, comparable to the warm walk.
//
// ctx is polled between sizes, between repeats and every 65536 loads; on
// cancellation MeasureLoadLatency returns the points of the sizes it
// finished and ctx.Err().
func MeasureLoadLatency(ctx context.Context, sizes []int, repeats int, loadsPerRepeat int) ([]LatencyPoint, error) {
	return measureLoadLatency(ctx, sizes, repeats, loadsPerRepeat, nil)
}

// measureLoadLatency is MeasureLoadLatency with a hook called after each
// finished point (nil for none), so that tests can cancel at a known place.
func measureLoadLatency(ctx context.Context, sizes []int, repeats, loads int, onPoint func(LatencyPoint)) ([]LatencyPoint, error) {
	if err := validateLatencyArgs(sizes, repeats, loads); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	buf := make([]int, slices.Max(sizes)/lineBytes*intsPerLine)
	points := make([]LatencyPoint, 0, len(sizes))
	perRepeat := make([]float64, repeats)
	for _, size := range sizes {
		if err := ctx.Err(); err != nil {
			return points, err
		}
		slots := size / lineBytes
		next := buf[:slots*intsPerLine]
		buildCycle(next, rand.New(rand.NewPCG(chaseSeed1, chaseSeed2)))

		p, err := chaseCtx(ctx, next, 0, slots) // warm: every line once
		if err != nil {
			return points, err
		}
		for r := range perRepeat {
			if err := ctx.Err(); err != nil {
				return points, err
			}
			start := time.Now()
			p, err = chaseCtx(ctx, next, p, loads)
			elapsed := time.Since(start)
			if err != nil {
				return points, err
			}
			perRepeat[r] = float64(elapsed.Nanoseconds()) / float64(loads)
		}
		latencySink.Store(int64(p))

		med, spread := medianSpread(perRepeat)
		pt := LatencyPoint{Bytes: slots * lineBytes, NS: med, Spread: spread}
		points = append(points, pt)
		if onPoint != nil {
			onPoint(pt)
		}
	}
	return points, nil
}

// validateLatencyArgs checks MeasureLoadLatency's arguments against the
// accepted ranges.
func validateLatencyArgs(sizes []int, repeats, loads int) error {
	if len(sizes) == 0 {
		return errors.New("calibrate: no working set sizes given, want at least one")
	}
	for i, s := range sizes {
		if s < MinLatencyBytes || s > MaxLatencyBytes {
			return fmt.Errorf("calibrate: sizes[%d] = %d bytes out of range [%d, %d] (1 KiB..1 GiB)", i, s, MinLatencyBytes, MaxLatencyBytes)
		}
	}
	if repeats < 1 || repeats > MaxRepeats {
		return fmt.Errorf("calibrate: repeats = %d out of range [1, %d]", repeats, MaxRepeats)
	}
	if loads < MinLoads || loads > MaxLoads {
		return fmt.Errorf("calibrate: loadsPerRepeat = %d out of range [%d, %d]", loads, MinLoads, MaxLoads)
	}
	return nil
}

// buildCycle links the lines of next (len a multiple of intsPerLine) into
// one cycle through all of them: next[i] holds the index of the next line's
// first int, for every i that starts a line. Sattolo's algorithm swaps only
// with strictly earlier slots, which makes the permutation a single cycle
// (a plain Fisher-Yates shuffle leaves short cycles the chase would stay
// in), uniformly chosen among the (n-1)! cycles.
func buildCycle(next []int, rng *rand.Rand) {
	n := len(next) / intsPerLine
	for i := range n {
		next[i*intsPerLine] = i * intsPerLine
	}
	for i := n - 1; i > 0; i-- {
		j := rng.IntN(i) * intsPerLine
		next[i*intsPerLine], next[j] = next[j], next[i*intsPerLine]
	}
}

// chaseCtx follows n links from p, polling ctx every chaseChunk loads, and
// returns where it ended or ctx.Err().
func chaseCtx(ctx context.Context, next []int, p, n int) (int, error) {
	done := ctx.Done()
	for n > 0 {
		k := min(n, chaseChunk)
		p = chase(next, p, k)
		n -= k
		select {
		case <-done:
			return p, ctx.Err()
		default:
		}
	}
	return p, nil
}

// chase follows n links from p and returns where it ended. It is unrolled
// so that the loop's own counter and branch hide behind the loads even at
// L1 latency; each load depends on the one before, so nothing overlaps.
func chase(next []int, p, n int) int {
	for ; n >= 8; n -= 8 {
		p = next[p]
		p = next[p]
		p = next[p]
		p = next[p]
		p = next[p]
		p = next[p]
		p = next[p]
		p = next[p]
	}
	for ; n > 0; n-- {
		p = next[p]
	}
	return p
}

// medianSpread returns the median of the per-repeat figures xs and their
// spread, (max - min) / median (0 when the median is 0): what every
// measurement here reports.
func medianSpread(xs []float64) (med, spread float64) {
	med = median(xs)
	if med > 0 {
		spread = (slices.Max(xs) - slices.Min(xs)) / med
	}
	return med, spread
}

// timingOf is the Timing of per-repeat times in seconds: their median,
// spread and count.
func timingOf(seconds []float64) Timing {
	med, spread := medianSpread(seconds)
	return Timing{Seconds: med, Spread: spread, Repeats: len(seconds)}
}

// median returns the median of xs (the mean of the middle two for an even
// count) without reordering xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Latencies is the load-to-use latency of each level of the memory
// hierarchy, in nanoseconds.
type Latencies struct {
	L1NS, L2NS, LLCNS, DRAMNS float64
}

// FitLatencies reads each level's latency off measured points: the median
// NS of the points whose working set fits comfortably in that level and
// not in the one below it,
//
//	L1:   Bytes <= L1/2
//	L2:   L1  < Bytes <= L2/2
//	LLC:  L2  < Bytes <= LLC/2
//	DRAM: Bytes >= 4*LLC
//
// Half a cache, because the stack, the runtime's data and the page-table
// entries the walk needs share it and a random chase evicts more than an
// ideal LRU would; past the level below, because a set that fits there is
// served from there. DRAM starts at 4x the LLC so that at most a quarter of
// the loads can still hit it. When the LLC is the L2 (no level 3; LLCMB*1024
// <= L2KB) LLCNS is L2NS.
//
// It returns an error naming the level and its byte range when a level has
// no point, or when a cache size of cpu is not positive.
func FitLatencies(points []LatencyPoint, cpu HostCPU) (Latencies, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"L1KB", cpu.L1KB}, {"L2KB", cpu.L2KB}, {"LLCMB", cpu.LLCMB}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return Latencies{}, fmt.Errorf("calibrate: cpu.%s = %v, want a positive size", f.name, f.v)
		}
	}
	l1, l2, llc := cpu.L1KB*1024, cpu.L2KB*1024, cpu.LLCMB*1024*1024
	// fit returns the median NS of the points with lo < Bytes <= hi, or
	// lo <= Bytes for the open-ended DRAM window (hi = +Inf).
	fit := func(name string, lo, hi float64) (float64, error) {
		var ns []float64
		for _, p := range points {
			b := float64(p.Bytes)
			if (b > lo || math.IsInf(hi, 1) && b >= lo) && b <= hi {
				ns = append(ns, p.NS)
			}
		}
		if len(ns) == 0 {
			if math.IsInf(hi, 1) {
				return 0, fmt.Errorf("calibrate: no point for %s, want a working set of at least %.0f bytes", name, lo)
			}
			return 0, fmt.Errorf("calibrate: no point for %s, want a working set in (%.0f, %.0f] bytes", name, lo, hi)
		}
		return median(ns), nil
	}
	var lat Latencies
	var err error
	if lat.L1NS, err = fit("L1", 0, l1/2); err != nil {
		return Latencies{}, err
	}
	if lat.L2NS, err = fit("L2", l1, l2/2); err != nil {
		return Latencies{}, err
	}
	if llc <= l2 {
		lat.LLCNS = lat.L2NS
	} else if lat.LLCNS, err = fit("LLC", l2, llc/2); err != nil {
		return Latencies{}, err
	}
	if lat.DRAMNS, err = fit("DRAM", 4*llc, math.Inf(1)); err != nil {
		return Latencies{}, err
	}
	return lat, nil
}

// Cycles converts l to core cycles at clockGHz (cycles per nanosecond),
// the unit cost models take cache latencies in.
func (l Latencies) Cycles(clockGHz float64) (l1, l2, llc, dram float64) {
	return l.L1NS * clockGHz, l.L2NS * clockGHz, l.LLCNS * clockGHz, l.DRAMNS * clockGHz
}

// DefaultLatencySizes chooses working set sizes for MeasureLoadLatency that
// give FitLatencies at least two points per level, inside the windows it
// uses (half the cache, because other data and the page tables share it):
// L1/4, L1/2, L2/4, L2/2, LLC/4, LLC/2, 4xLLC and 8xLLC. In quick mode it
// keeps one per level, the largest that fits (L1/2, L2/2, LLC/2, 4xLLC).
// A point that would fall at or below the level beneath moves to the middle
// of the window; LLC points are left out when the LLC is the L2. Sizes are
// whole 64-byte lines, clamped to [1 KiB, 1 GiB], deduplicated and sorted.
// With an LLC above 256 MiB the DRAM points cap at 1 GiB, below 4xLLC, and
// FitLatencies finds no DRAM point.
func DefaultLatencySizes(cpu HostCPU, quick bool) []int {
	l1, l2, llc := cpu.L1KB*1024, cpu.L2KB*1024, cpu.LLCMB*1024*1024
	var sizes []float64
	// window adds hi and, unless quick, a second point half as large, or in
	// the middle of (lo, hi] when half would not be above lo.
	window := func(lo, hi float64) {
		sizes = append(sizes, hi)
		if quick {
			return
		}
		if hi/2 > lo {
			sizes = append(sizes, hi/2)
		} else {
			sizes = append(sizes, (lo+hi)/2)
		}
	}
	window(0, l1/2)
	window(l1, l2/2)
	if llc > l2 {
		window(l2, llc/2)
	}
	sizes = append(sizes, 4*llc)
	if !quick {
		sizes = append(sizes, 8*llc)
	}

	out := make([]int, 0, len(sizes))
	for _, s := range sizes {
		if math.IsNaN(s) {
			continue
		}
		b := int(min(max(s, MinLatencyBytes), MaxLatencyBytes))
		out = append(out, b/lineBytes*lineBytes)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
