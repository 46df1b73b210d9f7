package tui

import (
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/rlxdev/rlx/internal/units"
)

// seriesStats are the true values of a series, not of the resampled plot.
type seriesStats struct {
	n              int // finite points
	last, min, max float64
}

// cleanSeries returns the plottable part of vals: ±Inf become NaN (a gap),
// leading and trailing NaNs are dropped. It returns nil when no point is
// finite. vals is not modified.
func cleanSeries(vals []float64) ([]float64, seriesStats) {
	st := seriesStats{min: math.Inf(1), max: math.Inf(-1)}
	lo, hi := 0, len(vals)
	for lo < hi && !units.Finite(vals[lo]) {
		lo++
	}
	for hi > lo && !units.Finite(vals[hi-1]) {
		hi--
	}
	if lo == hi {
		return nil, seriesStats{}
	}
	out := make([]float64, hi-lo)
	for i, v := range vals[lo:hi] {
		if !units.Finite(v) {
			out[i] = math.NaN()
			continue
		}
		out[i] = v
		st.n++
		st.last = v
		st.min = min(st.min, v)
		st.max = max(st.max, v)
	}
	return out, st
}

// chartLabelW is the width of the y-axis labels, fixed so that the plot
// width is known before plotting.
const chartLabelW = 7

// A series whose range is below flatSpan of its magnitude is drawn over
// mid ± flatPad of its magnitude.
const (
	flatSpan = 0.02
	flatPad  = 0.05
)

// plot draws vals with asciigraph in at most w x h cells. It guards what
// asciigraph cannot take (an empty series, only NaNs, ±Inf, a width under
// two, a height under one) and returns "" when there is nothing to draw.
func plot(vals []float64, w, h int) string {
	// The label, one blank, the axis: chartLabelW+3 cells before the data.
	plotW := w - chartLabelW - 3
	if plotW < 2 || h < 1 {
		return ""
	}
	clean, st := cleanSeries(vals)
	if st.n == 0 {
		return ""
	}
	if len(clean) == 1 {
		clean = append(clean, clean[0])
	}
	scale := max(math.Abs(st.min), math.Abs(st.max))
	opts := []asciigraph.Option{
		asciigraph.Width(plotW),
		asciigraph.Height(max(h-1, 1)),
		asciigraph.Offset(2),
		asciigraph.YAxisValueFormatter(func(v float64) string {
			// Axis values are computed as max - k*step: a label meant to be
			// zero can come out as 1e-14 of the scale.
			if math.Abs(v) < 1e-9*scale {
				v = 0
			}
			return padLeft(units.SI(v), chartLabelW)
		}),
	}
	// A series that barely moves would be stretched over the whole height,
	// its rounding noise drawn as swings between labels that all read the
	// same: give it a range of 10% of its magnitude, so flat looks flat.
	if span := st.max - st.min; scale > 0 && span < flatSpan*scale {
		mid := (st.max + st.min) / 2
		opts = append(opts, asciigraph.LowerBound(mid-flatPad*scale), asciigraph.UpperBound(mid+flatPad*scale))
	}
	g := asciigraph.Plot(clean, opts...)
	lines := strings.Split(g, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	return strings.Join(lines, "\n")
}

func padLeft(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
