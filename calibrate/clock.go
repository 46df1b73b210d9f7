package calibrate

import (
	"context"
	"errors"
	"runtime"
	"time"

	"github.com/rlxdev/rlx/core/nn/kernel"
)

// imulLatencyCycles is the latency of a 64-bit integer multiply on every
// x86-64 core rlx knows: 3 cycles on Intel from Core 2 to Golden Cove and
// on AMD from Zen 1 to Zen 5 (Agner Fog, "Instruction tables", IMUL
// r64,r64). A chain of dependent multiplies therefore ticks at a third of
// the clock the core actually runs at, turbo included, which the clock
// the system reports (/proc/cpuinfo) does not show.
const imulLatencyCycles = 3

// clockChainLinks is the length of one timed chain: about 15 ms at 3 GHz.
const clockChainLinks = 15_000_000

// ErrNoClockProbe is MeasureClock's error off x86-64, where rlx knows no
// integer multiply latency to count cycles by.
var ErrNoClockProbe = errors.New("no clock probe for this architecture: the multiply latency it counts by is known for x86-64 only")

// MeasureClock returns the frequency, in GHz, at which one core runs while
// busy: a chain of dependent integer multiplies (imulLatencyCycles each)
// timed in rounds (1..MaxRepeats); the median over rounds, with its
// spread. A cancelled ctx returns ctx.Err().
func MeasureClock(ctx context.Context, rounds int) (float64, Timing, error) {
	if err := checkRounds(ctx, rounds); err != nil {
		return 0, Timing{}, err
	}
	if runtime.GOARCH != "amd64" {
		return 0, Timing{}, ErrNoClockProbe
	}
	var per []float64
	x := uint64(1)
	for r := range rounds {
		if err := ctx.Err(); err != nil {
			return 0, Timing{}, err
		}
		start := time.Now()
		x = multiplyChain(x, 0x9E3779B97F4A7C15+2*uint64(r), clockChainLinks/4)
		per = append(per, time.Since(start).Seconds()/(clockChainLinks*imulLatencyCycles))
	}
	runtime.KeepAlive(x)
	t := timingOf(per)
	return 1e-9 / t.Seconds, t, nil
}

// multiplyChain multiplies x by k 4n times, each multiply waiting for the
// one before it. k is a parameter so that the compiler cannot fold the
// four multiplies of an iteration into one.
//
//go:noinline
func multiplyChain(x, k uint64, n int) uint64 {
	for range n {
		x *= k
		x *= k
		x *= k
		x *= k
	}
	return x
}

// GEMMRateSize is the order of the square GEMM whose rate MeasureGEMMRate
// reports: large enough that the micro-kernel's calls and the packing are
// a few percent of it, small enough (3 MiB of operands) to take
// milliseconds.
const GEMMRateSize = 512

// MeasureGEMMRate returns the rate, in GFLOPS, that core/nn's GEMM sustains
// on one core for a square product of order GEMMRateSize: the best a
// tuned kernel does on this processor, against which a framework's
// learner on small shapes falls short. rounds (1..MaxRepeats) rounds of
// about minTime each; the median over them, with its spread (of the time
// per GEMM). A cancelled ctx returns ctx.Err().
func MeasureGEMMRate(ctx context.Context, rounds int, minTime time.Duration) (float64, Timing, error) {
	n := GEMMRateSize
	a, b, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], b[i] = float32(i%7)*0.25, float32(i%5)*0.5
	}
	t, err := timeRepeats(ctx, func() { kernel.Gemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n) }, rounds, minTime)
	if err != nil {
		return 0, Timing{}, err
	}
	return 2 * float64(n) * float64(n) * float64(n) / t.Seconds / 1e9, t, nil
}
