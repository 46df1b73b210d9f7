package tui

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

// plotOf draws p in w x h cells, as the charts pane does.
func plotOf(p timedPlot, w, h int) []plotLine {
	clean, st := cleanSeries(p.vals)
	return plot(p, clean, st, w, h)
}

// plotText joins drawn plot lines as text.
func plotText(lines []plotLine) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l.runes)
	}
	return strings.Join(s, "\n")
}

// switchHistory is a run's history as the engine publishes it: 200 points
// whose simulated times crowd at the start (t = 4 (i/199)², as a run's
// first snapshots cover little simulated time), no rate at the first two
// (before the first gradient step), 173 GPS on G-F-G until 2 s of
// simulated time, then 143 GPS on G-G-G, with the prediction of each.
func switchHistory() engine.History {
	var h engine.History
	const n = 200
	for i := range n {
		x := float64(i) / (n - 1)
		t := 4 * x * x
		rate, pred := 173.0, 173.0
		if t >= 2 {
			rate, pred = 143, 143
		}
		if i < 2 {
			rate = math.NaN()
		}
		h.SimTime = append(h.SimTime, t)
		h.HostTime = append(h.HostTime, 60*x)
		h.SimRate = append(h.SimRate, rate)
		h.HostRate = append(h.HostRate, rate/80)
		h.Predicted = append(h.Predicted, pred)
		h.Steps = append(h.Steps, 1000*float64(i))
		h.Return = append(h.Return, math.NaN())
	}
	h.Switches = []engine.MappingSwitch{{SimTime: 2, HostTime: 42.4, From: "G-F-G", To: "G-G-G"}}
	return h
}

func newCharts(s *engine.Snapshot, w, h int) *chartsPane {
	p := newChartsPane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	p.SetSize(w, h)
	p.SetSnapshot(s)
	return p
}

// TestChartsTimeAxisSwitchAndPrediction: the rate charts have a time axis
// on the simulated clock with labelled ticks, the change of mapping marked
// down the plot and named on the axis at the column of its simulated time,
// the prediction drawn dashed and labelled, and no minimum of 0 from the
// points before the first step.
func TestChartsTimeAxisSwitchAndPrediction(t *testing.T) {
	s := snapshotFor(hopperConfig(), 1)
	s.History = switchHistory()
	out := ansi.Strip(newCharts(s, 116, 24).View())
	lines := strings.Split(out, "\n")

	for _, want := range []string{"sim  0 s", "2 s", "4 s", "╌ predicted 143", "min 143 · max 173 GPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("the charts do not show %q:\n%s", want, out)
		}
	}
	// The sim chart is the left column: its axis line holds └ and the
	// mark ┼ named G-G-G, at 2 s of the 4 s the axis covers.
	axis, below := -1, -1
	for i, l := range lines {
		if strings.Contains(l, "└") && axis < 0 {
			axis = i
			below = i + 1
		}
	}
	if axis < 0 {
		t.Fatalf("no time axis:\n%s", out)
	}
	axisLine := []rune(lines[axis])
	start := strings.Index(string(axisLine), "└")
	start = len([]rune(string(axisLine)[:start])) + 1 // the plot's first column
	mark := -1
	for i, r := range axisLine {
		if r == '┼' && strings.HasPrefix(string(axisLine[i+1:]), "G-G-G") {
			mark = i
			break
		}
	}
	if mark < 0 {
		t.Fatalf("the axis does not mark the switch to G-G-G:\n%s", lines[axis])
	}
	// The plot spans the chart's width less its lead and one spare cell.
	plotW := 116/2 - 1 - chartLead - 1
	if want := start + int(math.Round(0.5*float64(plotW-1))); mark != want {
		t.Errorf("the switch at 2 s of 0-4 s is marked on column %d, want %d", mark, want)
	}
	// The same column down the plot, between the stats and the axis.
	marked := 0
	for _, l := range lines[2:axis] {
		if r := []rune(l); mark < len(r) && strings.ContainsRune("┊│╭╮╯╰─╌╎┌┐└┘", r[mark]) {
			marked++
		}
	}
	if marked < axis-2 {
		t.Errorf("the switch's column is marked on %d of %d plot rows:\n%s", marked, axis-2, out)
	}
	if !strings.Contains(lines[below], "sim") {
		t.Errorf("the tick labels do not name the clock: %q", lines[below])
	}
}

// TestResampleFollowsTime: points crowded at the start of the simulated
// time are placed by their time, not their index: a step at t = 2 of
// 0..4 falls in the middle column, where by index it would fall at 71%.
func TestResampleFollowsTime(t *testing.T) {
	h := switchHistory()
	got := resample(h.SimTime, h.SimRate, 0, 4, 41)
	for c, v := range got {
		tc := 4 * float64(c) / 40
		switch {
		case c == 0:
			if !math.IsNaN(v) && v != 173 {
				t.Errorf("column 0: %v, want no rate or 173", v)
			}
		case tc < 1.9 && v != 173, tc > 2.1 && v != 143:
			t.Errorf("column %d (t = %.1f s): %v", c, tc, v)
		}
	}
	// A gap between points is bridged by a straight line.
	line := resample([]float64{0, 10}, []float64{0, 100}, 0, 10, 11)
	for c, v := range line {
		if math.Abs(v-10*float64(c)) > 1e-9 {
			t.Errorf("between two points, column %d: %v, want %v", c, v, 10*c)
		}
	}
}

// TestChartFillsItsHeight: a chart given h rows draws h rows at every
// height, its plot down to the time axis, which takes the last two.
func TestChartFillsItsHeight(t *testing.T) {
	s := snapshotFor(hopperConfig(), 1)
	s.History = switchHistory()
	p := newCharts(s, 120, 40)
	spec := p.specs()[0]
	for h := 3; h <= 40; h++ {
		lines := strings.Split(ansi.Strip(p.chart(spec, 60, h)), "\n")
		if len(lines) != h {
			t.Errorf("height %d: %d lines", h, len(lines))
			continue
		}
		if h < 7 { // title, stats, three rows of plot, the axis' two
			continue
		}
		if !strings.Contains(lines[h-2], "└") || !strings.Contains(lines[h-1], "sim") {
			t.Errorf("height %d: the last two lines are not the time axis:\n%s", h, strings.Join(lines, "\n"))
		}
		for i, l := range lines[2 : h-2] {
			if !strings.ContainsAny(l, "┤┼") {
				t.Errorf("height %d: plot row %d is not a plot row: %q", h, i, l)
			}
		}
	}
}

// TestStatsLineFits: the line over a plot keeps the prediction's label and
// fits its column down to the width of "last" and the label alone, so two
// charts side by side never run into each other.
func TestStatsLineFits(t *testing.T) {
	p := newChartsPane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	spec := chartSpec{unit: "IPS", pred: "╌ predicted 58.7k"}
	stats := seriesStats{n: 512, last: 48_000, min: 1210, max: 49_400}
	least := len([]rune("last 48.0k · ╌ pred. 58.7k"))
	for w := least; w <= 90; w++ {
		out := ansi.Strip(p.statsLine(spec, stats, w))
		if got := len([]rune(out)); got > w {
			t.Fatalf("width %d: %q is %d cells", w, out, got)
		}
		if !strings.Contains(out, "pred") {
			t.Fatalf("width %d: %q lost the prediction's label", w, out)
		}
	}
}
