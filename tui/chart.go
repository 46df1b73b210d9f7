package tui

import (
	"math"
	"strconv"
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

// chartLead is how many cells of a plot line come before the data: the
// label, one blank, the axis.
const chartLead = chartLabelW + 2

// A series whose range is below flatSpan of its magnitude is drawn over
// mid ± flatPad of its magnitude.
const (
	flatSpan = 0.02
	flatPad  = 0.05
)

// Glyphs of a chart besides the series itself.
const (
	markGlyphChart = "┊" // a change of mapping, down the plot
	markAxisGlyph  = "┼" // the same on the time axis
)

// predChars draws the prediction dashed, with square corners, so that it
// reads apart from the series (round corners) without colour.
var predChars = asciigraph.CharSet{
	Horizontal: "╌", VerticalLine: "╎",
	ArcDownRight: "┌", ArcDownLeft: "┐", ArcUpRight: "└", ArcUpLeft: "┘",
	EndCap: "╌", StartCap: "╌",
}

// isPredGlyph reports whether a plot cell was drawn by the prediction.
func isPredGlyph(r rune) bool { return strings.ContainsRune("╌╎┌┐└┘", r) }

// chartMark is a moment to mark on the time axis (a change of mapping).
type chartMark struct {
	t     float64 // on the axis' clock
	label string
}

// timedPlot is a chart's input: a series against time, an optional second
// series drawn dashed (the prediction), and marks.
type timedPlot struct {
	t     []float64 // the time of each point, non-decreasing; nil: by index
	vals  []float64
	pred  []float64 // same length as vals, or nil
	marks []chartMark
	clock string // the axis' clock, said after its last label ("sim")
}

// chartCell classes of a drawn plot, painted apart.
const (
	cellSeries = iota // the series, its y labels and axis
	cellPred          // the dashed prediction
	cellMark          // a mark down the plot or on the time axis
	cellAxis          // the time axis and its labels
)

// plotLine is one drawn line: its cells and their classes.
type plotLine struct {
	runes []rune
	class []uint8
}

// plot draws p in at most w x h cells: the series (and the prediction)
// with asciigraph over as many rows as h allows, under it a time axis with
// labelled ticks and the marks when there are three rows of plot to spare
// for its two. clean and st are cleanSeries(p.vals), which the caller has
// for the stats it prints beside the plot. It guards what asciigraph
// cannot take (an empty series, only NaNs, ±Inf, a width under two, a
// height under one) and returns nil when there is nothing to draw.
func plot(p timedPlot, clean []float64, st seriesStats, w, h int) []plotLine {
	plotW := w - chartLead - 1 // one cell spare on the right
	if plotW < 2 || h < 1 {
		return nil
	}
	if st.n == 0 {
		return nil
	}
	t0, t1 := timeSpan(p.t, len(p.vals))
	timed := t1 > t0
	axis := timed && h >= 5
	plotH := h
	if axis {
		plotH -= 2
	}
	var series, pred []float64
	if timed {
		series = resample(p.t, p.vals, t0, t1, plotW)
		if p.pred != nil {
			pred = resample(p.t, p.pred, t0, t1, plotW)
		}
	} else {
		series = clean
		if len(clean) == 1 {
			series = []float64{clean[0], clean[0]}
		}
	}
	lo, hi := st.min, st.max
	if _, ps := cleanSeries(pred); ps.n > 0 {
		lo, hi = min(lo, ps.min), max(hi, ps.max)
	} else {
		pred = nil
	}
	data := [][]float64{series}
	opts := []asciigraph.Option{asciigraph.Width(plotW), asciigraph.Offset(2)}
	if pred != nil {
		// The prediction first: the series is drawn over it where they meet.
		data = [][]float64{pred, series}
		opts = append(opts, asciigraph.SeriesChars(predChars))
	}
	scale := max(math.Abs(lo), math.Abs(hi))
	opts = append(opts, asciigraph.YAxisValueFormatter(func(v float64) string {
		// Axis values are computed as max - k*step: a label meant to be
		// zero can come out as 1e-14 of the scale.
		if math.Abs(v) < 1e-9*scale {
			v = 0
		}
		return padLeft(units.SI(v), chartLabelW)
	}))
	// A series that barely moves would be stretched over the whole height,
	// its rounding noise drawn as swings between labels that all read the
	// same: give it a range of 10% of its magnitude, so flat looks flat.
	if span := hi - lo; scale > 0 && span < flatSpan*scale {
		mid := (hi + lo) / 2
		opts = append(opts, asciigraph.LowerBound(mid-flatPad*scale), asciigraph.UpperBound(mid+flatPad*scale))
	}
	// asciigraph draws Height+1 rows give or take the rounding of the
	// range's ends: ask for one more when it came out short.
	var lines []string
	for ask := max(plotH-1, 1); ask <= plotH; ask++ {
		lines = strings.Split(asciigraph.PlotMany(data, append(opts, asciigraph.Height(ask))...), "\n")
		if len(lines) >= plotH {
			break
		}
	}
	lines = lines[:min(len(lines), plotH)]

	out := make([]plotLine, len(lines))
	for i, l := range lines {
		r := []rune(l)
		if n := chartLead + plotW; len(r) < n {
			r = append(r, []rune(strings.Repeat(" ", n-len(r)))...)
		}
		c := make([]uint8, len(r))
		for j := chartLead; j < len(r); j++ {
			if isPredGlyph(r[j]) && pred != nil {
				c[j] = cellPred
			}
		}
		out[i] = plotLine{r, c}
	}
	if !timed {
		return out
	}
	cols := markColumns(p.marks, t0, t1, plotW)
	for _, m := range cols {
		for _, l := range out {
			if j := chartLead + m.col; j < len(l.runes) && l.runes[j] == ' ' {
				l.runes[j], l.class[j] = []rune(markGlyphChart)[0], cellMark
			}
		}
	}
	if axis {
		out = append(out, timeAxis(t0, t1, plotW, cols, p.clock)...)
	}
	return out
}

// timeSpan returns the span of the times t of n points: the whole
// window, whatever part of it a series has values for, so that the charts
// of one pane share their time axis (a series without values yet, such as
// a rate before the first step, leaves a gap at the left). It returns 0, 0
// when t does not give one time per point.
func timeSpan(t []float64, n int) (t0, t1 float64) {
	if len(t) != n {
		return 0, 0
	}
	t0, t1 = math.Inf(1), math.Inf(-1)
	for _, x := range t {
		if units.Finite(x) {
			t0, t1 = min(t0, x), max(t1, x)
		}
	}
	if t0 > t1 {
		return 0, 0
	}
	return t0, t1
}

// resample returns vals on n columns evenly spaced over [t0, t1]: each
// column is the mean of the finite points in its slice of time, or, when
// none falls in it, the straight line between the finite points on either
// side (NaN when one side has none: a gap). Points are not evenly spaced
// in simulated time, so a plot by index would bend the time axis.
func resample(t, vals []float64, t0, t1 float64, n int) []float64 {
	out := make([]float64, n)
	step := (t1 - t0) / float64(n-1)
	j := 0 // the first point not before the column's slice
	for c := range out {
		tc := t0 + float64(c)*step
		lo, hi := tc-step/2, tc+step/2
		for j < len(t) && t[j] < lo {
			j++
		}
		sum, k := 0.0, 0
		for i := j; i < len(t) && t[i] < hi; i++ {
			if units.Finite(vals[i]) {
				sum += vals[i]
				k++
			}
		}
		if k > 0 {
			out[c] = sum / float64(k)
			continue
		}
		out[c] = math.NaN()
		// The nearest finite points before and after tc.
		a, b := j-1, j
		for a >= 0 && !units.Finite(vals[a]) {
			a--
		}
		for b < len(t) && !units.Finite(vals[b]) {
			b++
		}
		if a >= 0 && b < len(t) && t[b] > t[a] {
			f := (tc - t[a]) / (t[b] - t[a])
			out[c] = vals[a] + f*(vals[b]-vals[a])
		}
	}
	return out
}

// markCol is a mark placed on a plot column.
type markCol struct {
	col   int
	label string
}

// markColumns places the marks within [t0, t1] on columns of a plot n wide.
func markColumns(marks []chartMark, t0, t1 float64, n int) []markCol {
	var out []markCol
	for _, m := range marks {
		if m.t < t0 || m.t > t1 || !(t1 > t0) {
			continue
		}
		col := int(math.Round((m.t - t0) / (t1 - t0) * float64(n-1)))
		out = append(out, markCol{min(max(col, 0), n-1), m.label})
	}
	return out
}

// timeAxis draws the axis under a plot n columns wide over [t0, t1]: a
// line with a tick at every round time and the marks, each mark's label
// after it where it fits, then the ticks' labels with their unit ("2.5 s")
// after the clock's name ("sim").
func timeAxis(t0, t1 float64, n int, marks []markCol, clock string) []plotLine {
	unit, scale := "s", 1.0
	switch {
	case t1 < 1e-3:
		unit, scale = "µs", 1e6
	case t1 < 1:
		unit, scale = "ms", 1e3
	}
	step := niceStep((t1-t0)*scale, max(n/12, 1))
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	width := chartLead + n

	line := plotLine{runes: []rune(strings.Repeat(" ", chartLead-1) + "└" + strings.Repeat("─", n)), class: make([]uint8, width)}
	for i := range line.class {
		line.class[i] = cellAxis
	}
	labels := plotLine{runes: []rune(strings.Repeat(" ", width)), class: make([]uint8, width)}
	for i := range labels.class {
		labels.class[i] = cellAxis
	}
	// Each tick's label starts under it and carries the unit; the clock
	// is named left of the first, under the value labels.
	clockAt := max(chartLead-2-len([]rune(clock)), 0)
	copy(labels.runes[clockAt:], []rune(clock))
	end := clockAt + len([]rune(clock))
	first := math.Ceil(t0*scale/step - 1e-9)
	for k := first; k*step <= t1*scale+1e-9*step; k++ {
		v := k*step + 0 // + 0: no "-0"
		col := int(math.Round((v/scale - t0) / (t1 - t0) * float64(n-1)))
		if col < 0 || col >= n {
			continue
		}
		line.runes[chartLead+col] = '┬'
		text := []rune(strconv.FormatFloat(v, 'f', decimals, 64) + " " + unit)
		// At the right end a label moves left to fit, still over its tick.
		start := min(chartLead+col, width-len(text))
		if start <= end || start+len(text) <= chartLead+col {
			continue
		}
		copy(labels.runes[start:], text)
		end = start + len(text)
	}
	for i, m := range marks {
		j := chartLead + m.col
		line.runes[j], line.class[j] = []rune(markAxisGlyph)[0], cellMark
		// The label, where it fits before the next mark and the end.
		end := width
		if i+1 < len(marks) {
			end = chartLead + marks[i+1].col
		}
		text := []rune(m.label)
		if j+1+len(text) <= end {
			for k, r := range text {
				line.runes[j+1+k], line.class[j+1+k] = r, cellMark
			}
		}
	}
	labels.runes = []rune(strings.TrimRight(string(labels.runes), " "))
	labels.class = labels.class[:len(labels.runes)]
	return []plotLine{line, labels}
}

// niceStep returns a round step (1, 2 or 5 times a power of ten) that cuts
// span into about want intervals.
func niceStep(span float64, want int) float64 {
	if !(span > 0) {
		return 1
	}
	raw := span / float64(want)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func padLeft(s string, w int) string {
	if n := len([]rune(s)); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
