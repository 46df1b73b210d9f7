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
	vals   []float64
	paint  paint
	extra  string // a line under the stats (losses)
	empty  string // said when the series has no finite point
	banner string // shown instead of the plot (returns that mean nothing)
}

// rateName is GPS for off-policy learners, IPS for PPO (003 §5.3.1).
func rateName(s *engine.Snapshot) string {
	if s != nil && s.Config.Algo.OnPolicy() {
		return "IPS"
	}
	return "GPS"
}

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
	ret := chartSpec{
		title: "episode return, mean of 100 (per snapshot)",
		vals:  h.Return,
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
		ret.banner = fmt.Sprintf("RETURNS MEAN NOTHING HERE: %s is a workload environment. "+
			"It reproduces a task's sizes and costs to exercise the hardware; it does not learn. "+
			"Read the throughput, not the return.", s.Config.Env)
	}
	return []chartSpec{
		{title: "simulated " + rn + " (sim clock" + simSpan + ")", unit: rn, vals: h.SimRate, paint: st.paint.simSeries,
			empty: "no rate measured yet"},
		{title: "host " + rn + " (host clock" + hostSpan + ")", unit: rn, vals: h.HostRate, paint: st.paint.hostSeries,
			empty: "no rate measured yet"},
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
		need := 2 + len(strings.Split(ansi.Wrap(last.banner, max(p.w-1, 1), ""), "\n"))
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

// chart renders one chart in w x h cells: the title, the true last/min/max,
// then the plot or a banner.
func (p *chartsPane) chart(spec chartSpec, w, h int) string {
	st := p.c.Styles
	_, stats := cleanSeries(spec.vals)
	lines := []string{st.Strong.Render(spec.title)}
	if stats.n > 0 {
		lines = append(lines, st.Text.Render(fmt.Sprintf("last %s · min %s · max %s %s",
			units.SI(stats.last), units.SI(stats.min), units.SI(stats.max), spec.unit)))
	} else {
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
	if g := plot(spec.vals, w, rest); g != "" {
		for l := range strings.SplitSeq(g, "\n") {
			lines = append(lines, spec.paint.render(l))
		}
	}
	return strings.Join(lines, "\n")
}
