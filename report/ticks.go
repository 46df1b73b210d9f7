package report

import (
	"math"

	"gonum.org/v1/plot"

	"github.com/rlxdev/rlx/internal/units"
)

// siTicks marks an axis at round values, about n of them, labelled with
// SI suffixes and no trailing zeros (siLabel): 50k, 1.2M, 0.25, never
// 50000.00. The summaries' units.SI keeps three digits (50.0k, 1.20M),
// which an axis, whose labels share one scale, does not need.
type siTicks struct{ n int }

// Ticks returns the labelled ticks in [lo, hi] at the step of 1, 2, 2.5
// or 5 times a power of ten nearest (by ratio) to a division of the range
// into n-1 intervals; none when the range is empty or not finite.
func (t siTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step := niceStep((hi - lo) / float64(max(t.n-1, 1)))
	var ticks []plot.Tick
	// The tolerance keeps a tick that k*step misses by rounding; the
	// bound on the count (the nearest step is at most 1.6 times smaller
	// than wanted) ends the loop where k+1 == k, on a range tiny beside
	// its values.
	first := math.Ceil(lo/step - 1e-9)
	for i := range 2*t.n + 1 {
		v := (first + float64(i)) * step
		if v > hi+1e-9*step {
			break
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: siLabel(v)})
	}
	return ticks
}

// niceStep returns the one of 1, 2, 2.5 and 5 times a power of ten
// nearest to d (d > 0) by ratio.
func niceStep(d float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(d)))
	best := p
	for _, m := range []float64{2, 2.5, 5, 10} {
		if math.Abs(math.Log(m*p/d)) < math.Abs(math.Log(best/d)) {
			best = m * p
		}
	}
	return best
}

// siLabel formats a tick value as units.SIShort with four significant
// digits: 0, 0.25, 500, 50k, 1.2M. A value within 1e-12 of zero is the
// rounding residue of k*step at the zero tick, and reads 0.
func siLabel(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	return units.SIShort(v, 4)
}
