package tui

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

// stageCells renders the pipeline pane w columns wide over one live device
// with the stage sv on the window [from, to), and returns the stage's cells
// (the glyphs between ▕ and ▏) and its utilisation as printed.
func stageCells(t *testing.T, w int, sv engine.StageView, from, to float64) (cells []string, pct string) {
	t.Helper()
	p := newPipelinePane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	p.SetSize(w, 6)
	p.SetSnapshot(&engine.Snapshot{Seq: 1, Devices: []engine.DeviceView{{Name: "PCIe", From: from, To: to, Stages: []engine.StageView{sv}}}})
	for line := range strings.SplitSeq(ansi.Strip(p.View()), "\n") {
		_, rest, ok := strings.Cut(line, "▕")
		if !ok {
			continue
		}
		bar, after, ok := strings.Cut(rest, "▏")
		if !ok {
			t.Fatalf("width %d: the bar in %q has no end", w, line)
		}
		return strings.Split(bar, ""), strings.TrimSpace(after)
	}
	t.Fatalf("width %d: no bar in\n%s", w, ansi.Strip(p.View()))
	return nil, ""
}

// paneWidths are widths whose cells line up with the engine's bins and
// widths whose cells do not.
var paneWidths = []int{24, 40, 57, 80, 101, 120, 163, 200}

// TestPipelineSparseStageDrawsLight: a link 1% busy in thousands of short
// transfers, as the PCIe links of cartpole-ppo are, draws at most the
// lightest shade in every cell at every width, beside "1%": it is not a
// solid bar. One 0.1% busy is drawn in the lightest shade too, not idle:
// it did work in every cell.
func TestPipelineSparseStageDrawsLight(t *testing.T) {
	const from, to, n = 3.20, 3.25, 7000
	rng := rand.New(rand.NewPCG(21, 1))
	period := (to - from) / n
	for _, tc := range []struct {
		duty float64
		pct  string
	}{{0.01, "1%"}, {0.001, "<1%"}} {
		var busy []engine.Interval
		for i := range n {
			// duty of each period, at a random place in it.
			s := from + (float64(i)+(1-tc.duty)*rng.Float64())*period
			busy = append(busy, engine.Interval{Start: s, End: s + tc.duty*period})
		}
		sv := engine.NewStageView("CPU-FPGA", busy, from, to)
		for _, w := range paneWidths {
			cells, pct := stageCells(t, w, sv, from, to)
			if pct != tc.pct {
				t.Errorf("%v busy, width %d: utilisation %q, want %q", tc.duty, w, pct, tc.pct)
			}
			for i, c := range cells {
				if c != occGlyphs[occLow] {
					t.Fatalf("%v busy, width %d cell %d of %d: %q, want %q: %s",
						tc.duty, w, i, len(cells), c, occGlyphs[occLow], strings.Join(cells, ""))
				}
			}
		}
	}
}

// TestPipelineSolidStageDrawsFull: a stage busy all the window, in one
// interval or in thousands that touch, is full in every cell.
func TestPipelineSolidStageDrawsFull(t *testing.T) {
	const from, to, n = 3.20, 3.25, 5000
	period := (to - from) / n
	var touching []engine.Interval
	for i := range n {
		touching = append(touching, engine.Interval{Start: from + float64(i)*period, End: from + float64(i+1)*period})
	}
	for name, busy := range map[string][]engine.Interval{
		"one":      {{Start: from - 1, End: to + 1}},
		"touching": touching,
	} {
		sv := engine.NewStageView("learner", busy, from, to)
		for _, w := range paneWidths {
			cells, pct := stageCells(t, w, sv, from, to)
			if got := strings.Join(cells, ""); got != strings.Repeat(occGlyphs[occFull], len(cells)) || pct != "100%" {
				t.Errorf("%s, width %d: %s %s, want full", name, w, got, pct)
			}
		}
	}
}

// TestPipelineCellsFollowTheBusyTime: a stage busy the first 30% of the
// window draws full cells up to there and idle ones after it. Only a cell
// that shares a bin with the edge may be shaded otherwise: the bins say
// how much of a bin was busy, not where in it.
func TestPipelineCellsFollowTheBusyTime(t *testing.T) {
	const from, to, edge = 0.0, 1.0, 0.3
	sv := engine.NewStageView("RMM", []engine.Interval{{Start: from, End: edge}}, from, to)
	bin := (to - from) / engine.OccupancyBins
	edgeBin := math.Floor(edge/bin) * bin
	for _, w := range paneWidths {
		cells, _ := stageCells(t, w, sv, from, to)
		n := len(cells)
		for i, c := range cells {
			lo, hi := float64(i)/float64(n), float64(i+1)/float64(n)
			if lo < edgeBin+bin && hi > edgeBin {
				continue
			}
			share := max(0, min(hi, edge)-lo) / (hi - lo)
			if want := occGlyphs[occKind(share)]; c != want {
				t.Errorf("width %d cell %d [%.3f, %.3f): %q, want %q", w, i, lo, hi, c, want)
			}
		}
	}
}

// TestCellShares compares the cells' shares with the busy time a naive
// sweep finds in each cell: exact where cells cover whole bins, within the
// share of the two bins a cell's edges may cut otherwise.
func TestCellShares(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 21))
	for trial := range 200 {
		from := rng.Float64()
		to := from + 0.01 + rng.Float64()
		var busy []engine.Interval
		for x := from - 0.1; x < to+0.1; {
			s := x + rng.Float64()*0.03
			e := s + rng.Float64()*0.03
			busy = append(busy, engine.Interval{Start: s, End: e})
			x = e
		}
		bins := engine.NewStageView("s", busy, from, to).Occupancy
		nc := 1 + rng.IntN(250)
		if trial%4 == 0 {
			nc = len(bins) >> rng.IntN(6) // aligned: whole bins per cell
		}
		got := make([]float64, nc)
		cellShares(got, bins)
		tol := 1e-9
		if len(bins)%nc != 0 {
			// Each edge bin misplaces at most a quarter of a bin's
			// width of busy time (p(1-p) for a part p of it).
			tol += 0.5 * float64(nc) / float64(len(bins))
		}
		width := (to - from) / float64(nc)
		for c := range nc {
			lo, hi := from+width*float64(c), from+width*float64(c+1)
			busyIn := 0.0
			for _, iv := range busy {
				busyIn += max(0, min(iv.End, hi)-max(iv.Start, lo))
			}
			if want := busyIn / width; math.Abs(got[c]-want) > tol {
				t.Fatalf("trial %d, %d cells, cell %d: %v, naive %v (tolerance %v)", trial, nc, c, got[c], want, tol)
			}
		}
	}
	empty := []float64{0.5, 0.5}
	if cellShares(empty, nil); empty[0] != 0 || empty[1] != 0 {
		t.Errorf("no bins gave shares %v, want idle", empty)
	}
}
