package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// chartsPane draws the throughput on both clocks and the episode return
// with asciigraph, each with the true last, min and max of its series
// beside it, and says loudly when the returns mean nothing.
type chartsPane struct {
	c    *common
	w, h int

	snap *engine.Snapshot
	note string // the latest mapping change, to read its effect off the charts

	view viewCache[chartsKey]
}

type chartsKey struct {
	seq  uint64
	w, h int
	dark bool
	note string
}

func newChartsPane(c *common) *chartsPane { return &chartsPane{c: c} }

// SetSize sets the inner size of the pane.
func (p *chartsPane) SetSize(w, h int) { p.w, p.h = w, h }

// SetSnapshot hands the pane the newest snapshot.
func (p *chartsPane) SetSnapshot(s *engine.Snapshot) { p.snap = s }

// SetNote sets the line shown above the charts (e.g. a mapping change).
func (p *chartsPane) SetNote(n string) { p.note = n }

// View renders the pane's inner w x h cells, cached by snapshot and size.
func (p *chartsPane) View() string {
	k := chartsKey{w: p.w, h: p.h, dark: p.c.Styles.Dark, note: p.note}
	if p.snap != nil {
		k.seq = p.snap.Seq + 1
	}
	return p.view.get(k, p.render)
}

// chartSpec is one chart of the pane.
type chartSpec struct {
	title  string // what and on which clock
	unit   string
	plot   timedPlot
	paint  paint
	pred   string // the prediction's label beside the stats, "" without one
	extra  string // a line under the stats (losses)
	empty  string // said when the series has no finite point
	banner string // shown instead of the plot and its stats (returns that mean nothing)
}

// rateName is GPS for off-policy learners, IPS for PPO (003 §5.3.1).
func rateName(s *engine.Snapshot) string {
	if s != nil && s.Config.Algo.OnPolicy() {
		return "IPS"
	}
	return "GPS"
}

// specs are the pane's charts. All three share one time axis, on the
// simulated clock, so that a change of mapping falls on the same column of
// each; each rate's title says the clock it is measured on.
func (p *chartsPane) specs() []chartSpec {
	s := p.snap
	st := p.c.Styles
	h := &s.History
	rn := rateName(s)
	simSpan, hostSpan := "", ""
	if n := len(h.SimTime); n > 1 {
		simSpan = ", last " + units.Seconds(h.SimTime[n-1]-h.SimTime[0])
	}
	if n := len(h.HostTime); n > 1 {
		hostSpan = ", last " + units.Seconds(h.HostTime[n-1]-h.HostTime[0])
	}
	marks := make([]chartMark, len(h.Switches))
	for i, sw := range h.Switches {
		marks[i] = chartMark{t: sw.SimTime, label: sw.To}
	}
	timed := func(vals []float64) timedPlot {
		return timedPlot{t: h.SimTime, vals: vals, marks: marks, clock: "sim"}
	}
	ret := chartSpec{
		title: "episode return, mean of 100 (per snapshot)",
		plot:  timed(h.Return),
		paint: st.paint.returnSeries,
		empty: "no episode has finished yet",
	}
	if len(s.Learning.Losses) > 0 {
		parts := make([]string, len(s.Learning.Losses))
		for i, l := range s.Learning.Losses {
			parts[i] = l.Name + " " + units.SI(l.Value)
		}
		ret.extra = "losses: " + strings.Join(parts, " · ")
	}
	if !s.Learning.Meaningful {
		ret.title = "episode return"
		ret.banner = fmt.Sprintf("MEANS NOTHING HERE: %s is a workload environment, made to exercise "+
			"the hardware; it does not learn. Read the throughput.", s.Config.Env)
	}
	sim := chartSpec{title: "simulated " + rn + " (sim clock" + simSpan + ")", unit: rn, plot: timed(h.SimRate),
		paint: st.paint.simSeries, empty: "no rate measured yet"}
	if len(h.Predicted) == len(h.SimRate) {
		sim.plot.pred = h.Predicted
		if last, ok := lastFinite(h.Predicted); ok {
			sim.pred = "╌ predicted " + units.SI(last)
		}
	}
	return []chartSpec{
		sim,
		{title: "host " + rn + " (host clock" + hostSpan + ")", unit: rn, plot: timed(h.HostRate),
			paint: st.paint.hostSeries, empty: "no rate measured yet"},
		ret,
	}
}

func (p *chartsPane) render() string {
	st := p.c.Styles
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	if p.snap == nil {
		return st.Muted.Render(waitingText)
	}
	h := p.h
	var head []string
	if p.note != "" {
		head = append(head, st.Accent.Render(p.note))
		h--
	}
	specs := p.specs()
	cols := chartColumns(len(specs), p.w, h)
	rows := (len(specs) + cols - 1) / cols
	// Row heights: even, except that a last row holding only a banner gets
	// just what the banner needs and leaves the rest to the plots.
	heights := make([]int, rows)
	for r := range heights {
		heights[r] = h / rows
	}
	heights[rows-1] = h - h/rows*(rows-1)
	if last := specs[len(specs)-1]; rows > 1 && len(specs)%cols == 1 && last.banner != "" {
		need := 1 + len(strings.Split(ansi.Wrap(last.banner, max(p.w-1, 1), ""), "\n"))
		if last.extra != "" {
			need++
		}
		if need < heights[rows-1] {
			spare := heights[rows-1] - need
			heights[rows-1] = need
			for r := 0; r < rows-1; r++ {
				heights[r] += spare / (rows - 1)
			}
			heights[0] += spare % (rows - 1)
		}
	}
	var out []string
	out = append(out, head...)
	for r := range rows {
		cellH := heights[r]
		row := specs[r*cols : min((r+1)*cols, len(specs))]
		blocks := make([][]string, len(row))
		for i, spec := range row {
			cw := p.w / len(row)
			if i == len(row)-1 {
				cw = p.w - cw*(len(row)-1)
			}
			blocks[i] = fitLines(p.chart(spec, cw-1, cellH), cw, cellH)
		}
		out = append(out, joinColumns(blocks...)...)
	}
	return strings.Join(out, "\n")
}

// chartColumns picks how many charts go side by side so that each chart's
// cells are about four times wider than tall (a terminal cell is about twice
// as tall as wide, so such a chart looks roughly 2:1).
func chartColumns(n, w, h int) int {
	best, bestScore := 1, math.Inf(1)
	for cols := 1; cols <= n; cols++ {
		rows := (n + cols - 1) / cols
		cw, ch := float64(w)/float64(cols), float64(h)/float64(rows)
		if cols > 1 && (cw < 36 || ch < 3) {
			continue
		}
		if score := math.Abs(math.Log(cw / ch / 4)); score < bestScore {
			best, bestScore = cols, score
		}
	}
	return best
}

// chart renders one chart in w x h cells: the title, the true
// last/min/max (and the prediction), then the plot with its time axis, or
// a banner.
func (p *chartsPane) chart(spec chartSpec, w, h int) string {
	st := p.c.Styles
	clean, stats := cleanSeries(spec.plot.vals)
	lines := []string{st.Strong.Render(spec.title)}
	switch {
	case spec.banner != "":
	case stats.n > 0:
		lines = append(lines, p.statsLine(spec, stats, w))
	default:
		lines = append(lines, st.Muted.Render(spec.empty))
	}
	if spec.extra != "" && (h >= 8 || spec.banner != "") {
		lines = append(lines, st.Muted.Render(spec.extra))
	}
	rest := h - len(lines)
	if rest <= 0 {
		return strings.Join(lines[:max(h, 0)], "\n")
	}
	if spec.banner != "" {
		for l := range strings.SplitSeq(ansi.Wrap(spec.banner, max(w, 1), ""), "\n") {
			if rest == 0 {
				break
			}
			lines = append(lines, st.Loud.Render(strings.TrimRight(l, " ")))
			rest--
		}
		return strings.Join(lines, "\n")
	}
	paints := [...]paint{cellSeries: spec.paint, cellPred: st.paint.muted, cellMark: st.paint.warn, cellAxis: st.paint.muted}
	for _, l := range plot(spec.plot, clean, stats, w, rest) {
		lines = append(lines, paintLine(l, paints[:]))
	}
	return strings.Join(lines, "\n")
}

// statsLine is the true last, min and max of a series, with the
// prediction's label when there is one, in w cells if it can: the unit
// goes first (the title has it), then the label shortens, then min and
// max become a range, then the range goes (the axis shows it), then the
// line is cut.
func (p *chartsPane) statsLine(spec chartSpec, stats seriesStats, w int) string {
	st := p.c.Styles
	last, lo, hi := units.SI(stats.last), units.SI(stats.min), units.SI(stats.max)
	short := strings.Replace(spec.pred, "predicted", "pred.", 1)
	full := "last " + last + " · min " + lo + " · max " + hi
	var text, pred string
	for _, form := range [][2]string{
		{full + " " + spec.unit, spec.pred},
		{full, spec.pred},
		{full, short},
		{"last " + last + " · " + lo + "–" + hi, short},
		{"last " + last, short},
	} {
		text, pred = form[0], ""
		if form[1] != "" {
			pred = " · " + form[1]
		}
		if len([]rune(text+pred)) <= w {
			break
		}
	}
	return st.Text.Render(text) + st.Muted.Render(pred)
}

// paintLine writes a plot line, one painted run per stretch of cells of
// one class.
func paintLine(l plotLine, paints []paint) string {
	var b strings.Builder
	for i := 0; i < len(l.runes); {
		j := i
		for j < len(l.runes) && l.class[j] == l.class[i] {
			j++
		}
		paints[l.class[i]].add(&b, string(l.runes[i:j]))
		i = j
	}
	return b.String()
}

// lastFinite returns the last finite value of vals, without copying them.
func lastFinite(vals []float64) (float64, bool) {
	for i := len(vals) - 1; i >= 0; i-- {
		if units.Finite(vals[i]) {
			return vals[i], true
		}
	}
	return 0, false
}
