package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

func TestPlotGuards(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name  string
		vals  []float64
		w, h  int
		empty bool
	}{
		{"nil", nil, 40, 5, true},
		{"empty", []float64{}, 40, 5, true},
		{"all NaN", []float64{nan, nan, nan}, 40, 5, true},
		{"all Inf", []float64{inf, -inf}, 40, 5, true},
		{"one point", []float64{3}, 40, 5, false},
		{"leading NaN", []float64{nan, nan, 1, 2, 3}, 40, 5, false},
		{"Inf inside", []float64{1, inf, 3, -inf, 5}, 40, 5, false},
		{"constant", []float64{7, 7, 7, 7}, 40, 5, false},
		{"tiny interval", []float64{1e15, 1e15 + 1}, 40, 5, false},
		{"huge", []float64{-1e300, 1e300}, 40, 5, false},
		{"too narrow", []float64{1, 2, 3}, chartLabelW + 4, 5, true},
		{"narrowest", []float64{1, 2, 3}, chartLabelW + 5, 5, false},
		{"no height", []float64{1, 2, 3}, 40, 0, true},
		{"one line", []float64{1, 2, 3}, 40, 1, false},
		{"warm-up from zero", []float64{0, 58.9, 118, 177, 171}, 40, 4, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := plotText(plotOf(timedPlot{vals: c.vals}, c.w, c.h))
			if (g == "") != c.empty {
				t.Fatalf("plot = %q, want empty %v", g, c.empty)
			}
			if g == "" {
				return
			}
			if strings.Contains(g, "e-1") {
				t.Errorf("an axis label shows rounding noise:\n%s", g)
			}
			lines := strings.Split(g, "\n")
			if len(lines) > c.h {
				t.Errorf("%d lines, at most %d allowed", len(lines), c.h)
			}
			for _, l := range lines {
				if ansi.StringWidth(l) > c.w+2 {
					t.Errorf("line %q is wider than %d", l, c.w)
				}
			}
		})
	}
}

// TestPlotFlatSeries: a rate that holds steady within rounding is drawn as
// a flat line between distinct labels, not as swings between labels that
// all read the same.
func TestPlotFlatSeries(t *testing.T) {
	vals := []float64{173.02, 172.98, 173.01, 172.99, 173.03, 172.97}
	lines := strings.Split(plotText(plotOf(timedPlot{vals: vals}, 40, 4)), "\n")
	labels := map[string]bool{}
	rows := 0
	for _, l := range lines {
		label, rest, _ := strings.Cut(l, "┤")
		if rest == "" {
			label, rest, _ = strings.Cut(l, "┼")
		}
		labels[strings.TrimSpace(label)] = true
		if strings.ContainsAny(rest, "─╭╮╯╰") {
			rows++
		}
	}
	if len(labels) != len(lines) {
		t.Errorf("labels repeat: %v\n%s", labels, strings.Join(lines, "\n"))
	}
	if rows != 1 {
		t.Errorf("the line spans %d rows, want 1:\n%s", rows, strings.Join(lines, "\n"))
	}
}

func TestCleanSeriesStats(t *testing.T) {
	nan := math.NaN()
	got, st := cleanSeries([]float64{nan, 4, math.Inf(-1), -2, 9, nan})
	if len(got) != 4 || !math.IsNaN(got[1]) {
		t.Errorf("clean = %v, want [4 NaN -2 9]", got)
	}
	if st.n != 3 || st.last != 9 || st.min != -2 || st.max != 9 {
		t.Errorf("stats = %+v, want n 3 last 9 min -2 max 9", st)
	}
}

// TestLayoutTiles checks every size from the minimum up, with and without a
// walkthrough (its narrative focused, and the config, which may take the
// narrative's slot): panes stay on the screen, never overlap, and the wide
// layout covers the whole body.
func TestLayoutTiles(t *testing.T) {
	modes := []layoutInput{
		{focus: paneMapping, order: basePanes},
		{focus: paneNarrative, order: walkthroughPanes, narrative: true, marked: [numPanes]bool{paneMapping: true}},
		{focus: paneConfig, order: walkthroughPanes, narrative: true},
	}
	for w := MinWidth; w <= 260; w += 7 {
		for h := MinHeight; h <= 90; h += 5 {
			for _, zoom := range []bool{false, true} {
				for _, in := range modes {
					hh := headerHeight(w)
					in.headerH, in.zoomed = hh, zoom
					checkLayoutTiles(t, w, h, in)
				}
			}
		}
	}
}

func checkLayoutTiles(t *testing.T, w, h int, in layoutInput) {
	t.Helper()
	hh, zoom := in.headerH, in.zoomed
	l := computeLayout(w, h, in)
	if l.panes[in.focus].empty() {
		t.Fatalf("%dx%d zoom %v: the focused pane %v is not shown", w, h, zoom, in.focus)
	}
	for _, p := range in.order {
		if tab := l.tabHits[p]; !l.tabs.empty() && (tab.empty() || tab.X+tab.W > w) {
			t.Fatalf("%dx%d zoom %v: the tab of %v at %+v is not on the screen", w, h, zoom, p, tab)
		}
	}
	covered := make([]int, w*h)
	area := 0
	for p := range numPanes {
		r := l.panes[p]
		if r.empty() {
			continue
		}
		if r.X < 0 || r.Y < hh || r.X+r.W > w || r.Y+r.H > h-1 {
			t.Fatalf("%dx%d zoom %v: pane %v at %+v is off the body", w, h, zoom, p, r)
		}
		if r.W < 20 || r.H < 5 {
			t.Fatalf("%dx%d: pane %v is only %dx%d", w, h, p, r.W, r.H)
		}
		for y := r.Y; y < r.Y+r.H; y++ {
			for x := r.X; x < r.X+r.W; x++ {
				covered[y*w+x]++
				if covered[y*w+x] > 1 {
					t.Fatalf("%dx%d: panes overlap at %d,%d", w, h, x, y)
				}
			}
		}
		area += r.W * r.H
	}
	body := w * (h - hh - 1)
	if l.compact || zoom {
		body -= w // the tab bar
	}
	if area != body {
		t.Fatalf("%dx%d zoom %v: panes cover %d of %d body cells", w, h, zoom, area, body)
	}
}

func TestFrameSize(t *testing.T) {
	st := NewStyles(true)
	for _, w := range []int{4, 5, 10, 30, 80} {
		for _, h := range []int{2, 3, 10} {
			for _, focused := range []bool{false, true} {
				out := frame(st, "Throughput & learning", "sim + host clocks", "a\nbb\nccc", w, h, focused, w == 30)
				lines := strings.Split(out, "\n")
				if len(lines) != h {
					t.Fatalf("%dx%d: %d lines", w, h, len(lines))
				}
				for _, l := range lines {
					if got := ansi.StringWidth(l); got != w {
						t.Fatalf("%dx%d: line %q is %d wide", w, h, ansi.Strip(l), got)
					}
				}
			}
		}
	}
}

// TestPipelineDetailKeepsItsHeader: when the live devices are too many for
// headers, a view on its own window (one batch on the FPGA) still gets
// one, so its rows are never read as live ones.
func TestPipelineDetailKeepsItsHeader(t *testing.T) {
	live := engine.DeviceView{Name: "GPU", From: 0, To: 1}
	for _, n := range []string{"learner", "storage", "optimizer", "RMM"} {
		live.Stages = append(live.Stages, engine.NewStageView(n, []engine.Interval{{Start: 0, End: 0.5}}, 0, 1))
	}
	detail := engine.DeviceView{Name: "FPGA RMM samplers (one batch)", From: 0, To: 2e-6,
		Stages: []engine.StageView{engine.NewStageView("banks 0-7", []engine.Interval{{Start: 0, End: 2e-6}}, 0, 2e-6)}}
	p := newPipelinePane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	p.SetSize(70, 6) // 5 stages + 2 headers do not fit: live rows carry their device
	p.SetSnapshot(&engine.Snapshot{Devices: []engine.DeviceView{live, detail}})
	out := ansi.Strip(p.render())
	for _, want := range []string{"GPU learner", "GPU RMM", "FPGA RMM samplers (one batch)", "\n  banks 0-7"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "one batch) banks") {
		t.Errorf("the detail rows carry the view's name:\n%s", out)
	}
}

// TestChartsTakeTheHeight: the tree and the pipeline stop growing at the
// rows their contents use, and every further row of a tall terminal goes to
// the charts; at 120x40 the charts hold plots of six rows or more.
func TestChartsTakeTheHeight(t *testing.T) {
	for _, w := range []int{120, 125, 200, 260} {
		prev := 0
		for h := wideMinHeight; h <= 120; h++ {
			in := layoutInput{headerH: headerHeight(w), focus: paneMapping, order: basePanes}
			l := computeLayout(w, h, in)
			charts := l.panes[paneCharts].H
			if charts < prev {
				t.Fatalf("%dx%d: the charts shrank from %d to %d rows", w, h, prev, charts)
			}
			prev = charts
			if tree, pipe := l.panes[paneTree].H, l.panes[panePipeline].H; tree > 24 || pipe > 24 {
				t.Fatalf("%dx%d: the tree has %d rows and the pipeline %d; their contents use at most 24", w, h, tree, pipe)
			}
		}
	}
	l := computeLayout(120, 40, layoutInput{headerH: headerHeight(120), focus: paneMapping, order: basePanes})
	if got := l.panes[paneCharts].H; got < 16 {
		t.Fatalf("120x40: the charts have %d rows, want 16 or more (two header rows, six plot rows, axis, legend, learning)", got)
	}
}
