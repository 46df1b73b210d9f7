package experiment

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// relaxedDRun is a synthetic live run at depth D: simGPS gradient steps
// per simulated second, the staleness given, and a mean return unless
// episodes is 0.
func relaxedDRun(index, depth int, env string, simGPS float64, meanStale float64, maxStale, episodes int64, ret float64) StepResult {
	c := engine.Config{Env: env, Algo: "dqn", Depth: depth}
	// 1000 gradient steps in 4 host seconds; the simulated clock has been
	// charged 2 simGPS of them in 2 seconds, an exact quotient.
	s := snap(c, 8000, 1000, 4*time.Second, int64(2*simGPS), 2)
	s.Counters.Episodes = episodes
	s.Learning = engine.Learning{Meaningful: env == "CartPole-v1", Mean100: ret}
	s.Replay = engine.ReplayStats{MeanStaleness: meanStale, MaxStaleness: maxStale}
	// F-C-F with a 200 us chain, 10 us of it PCIe latency, predicted at
	// simGPS: the strict loop at 5000 GPS takes the whole chain.
	s.Mapping = engine.MappingView{Chosen: "F-C-F", PredictedGPS: simGPS, Bottleneck: "rmm",
		LoopSeconds: 200e-6, LoopLatency: 10e-6}
	return StepResult{Index: index, Title: env, Config: c, Final: s}
}

// TestRelaxedDHiddenChain checks the chain table: what sampling ahead
// takes off each step's critical path is the chain less the predicted
// step, and nothing when the step is the chain (the strict loop).
func TestRelaxedDHiddenChain(t *testing.T) {
	steps := []StepResult{
		relaxedDRun(0, 1, "CartPole-v1", 5000, 0, 0, 1, 10),  // 200 us per step: the chain
		relaxedDRun(1, 50, "CartPole-v1", 8000, 0, 0, 1, 10), // 125 us per step
	}
	r, err := Build(context.Background(), "relaxed-d", steps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := r.Data.(RelaxedDData)
	for i, want := range []float64{0, 75} {
		if got := d.Rows[i].HiddenUS; math.Abs(got-want) > 1e-9 || d.Rows[i].Mapping != "F-C-F" || d.Rows[i].LatencyUS != 10 {
			t.Errorf("row %d: hidden %v us, mapping %q, latency %v us; want %v us, F-C-F, 10", i, got, d.Rows[i].Mapping, d.Rows[i].LatencyUS, want)
		}
	}
	if !strings.Contains(r.Markdown, "| 1. CartPole-v1 | 1 | F-C-F | 5.00k | rmm | 200.0 | 10.0 | 0.0 |") {
		t.Errorf("markdown lacks the D = 1 chain row:\n%s", r.Markdown)
	}
	if !strings.Contains(r.Markdown, "| 2. CartPole-v1 | 50 | F-C-F | 8.00k | rmm | 200.0 | 10.0 | 75.0 |") {
		t.Errorf("markdown lacks the D = 50 chain row")
	}
}

// relaxedDSteps are the steps at D = 1, 10 and 50 given out of order, a
// workload run, and a step that did not run.
var relaxedDSteps = []StepResult{
	relaxedDRun(2, 50, "CartPole-v1", 200, 24.5, 49, 30, 120.25),
	relaxedDRun(0, 1, "CartPole-v1", 100, 0, 0, 20, 95.5),
	relaxedDRun(1, 10, "CartPole-v1", 150, 4.5, 9, 0, 0),
	relaxedDRun(3, 50, "Hopper-workload", 250, 24, 49, 5, -3),
	{Index: 4, Title: "D = 200"},
}

func TestRelaxedDRows(t *testing.T) {
	r := builtReport(t, "relaxed-d")
	d := r.Data.(RelaxedDData)
	// 000 §VII-B settles on D = 50.
	if d.PublishedD != 50 {
		t.Errorf("PublishedD = %d, want 50", d.PublishedD)
	}
	want := []struct {
		step, depth int
		simGPS      float64
		meanStale   float64
		maxStale    int64
		mean100     *float64
		meaningful  bool
	}{
		{0, 1, 100, 0, 0, ptr(95.5), true},
		{1, 10, 150, 4.5, 9, nil, true},
		{2, 50, 200, 24.5, 49, ptr(120.25), true},
		{3, 50, 250, 24, 49, ptr(-3.0), false},
	}
	if len(d.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(d.Rows), len(want))
	}
	for i, w := range want {
		got := d.Rows[i]
		if got.Step != w.step || got.Depth != w.depth || got.SimGPS != w.simGPS || got.HostGPS != 250 ||
			got.MeanStaleness != w.meanStale || got.MaxStaleness != w.maxStale || got.Meaningful != w.meaningful ||
			got.EnvSteps != 8000 || got.GradSteps != 1000 {
			t.Errorf("row %d: %+v, want %+v", i, got, w)
		}
		if (got.Mean100 == nil) != (w.mean100 == nil) || got.Mean100 != nil && *got.Mean100 != *w.mean100 {
			t.Errorf("row %d: mean100 %v, want %v", i, deref(got.Mean100), deref(w.mean100))
		}
	}
	if !slices.Equal(d.NotRun, []int{4}) {
		t.Errorf("NotRun = %v, want [4]", d.NotRun)
	}
	for _, s := range []string{
		"| sim GPS vs D=1 |",
		"| 1. CartPole-v1 | CartPole-v1 | dqn | 1 | 8000 | 1000 | 20 | 95.5 | 250 | 100 | 1.00x | – | 0.00 | 0 |",
		"| 2. CartPole-v1 | CartPole-v1 | dqn | 10 | 8000 | 1000 | 0 | – | 250 | 150 | 1.50x | – | 4.50 | 9 |",
		"| 3. CartPole-v1 | CartPole-v1 | dqn | 50 | 8000 | 1000 | 30 | 120.2 | 250 | 200 | 2.00x | – | 24.50 | 49 |",
		"| -3.0 (workload) |",
		"the loss of return negligible at D = 50",
		"Step 5 did not run",
	} {
		if !strings.Contains(r.Markdown, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

// TestRelaxedDBase checks that the speedup column is over the run with the
// smallest D, wherever it sits among the steps, and that an unset depth
// is the engine's default of 1.
func TestRelaxedDBase(t *testing.T) {
	for _, test := range []struct {
		name   string
		steps  []StepResult
		head   string
		cells  []string // the speedup cells, in step order
		depths []int
	}{
		{
			name: "smallest D last",
			steps: []StepResult{
				relaxedDRun(0, 100, "CartPole-v1", 300, 0, 0, 0, 0),
				relaxedDRun(1, 20, "CartPole-v1", 150, 0, 0, 0, 0),
			},
			head: "sim GPS vs D=20", cells: []string{"2.00x", "1.00x"}, depths: []int{100, 20},
		},
		{
			name: "unset depth is 1",
			steps: []StepResult{
				relaxedDRun(0, 10, "CartPole-v1", 400, 0, 0, 0, 0),
				relaxedDRun(1, 0, "CartPole-v1", 100, 0, 0, 0, 0),
			},
			head: "sim GPS vs D=1", cells: []string{"4.00x", "1.00x"}, depths: []int{10, 1},
		},
		{
			name:  "one step",
			steps: []StepResult{relaxedDRun(0, 50, "CartPole-v1", 100, 0, 0, 0, 0)},
			head:  "sim GPS vs D=50", cells: []string{"1.00x"}, depths: []int{50},
		},
	} {
		r, err := Build(context.Background(), "relaxed-d", test.steps, Options{Quick: true})
		if err != nil {
			t.Errorf("%s: %v", test.name, err)
			continue
		}
		if !strings.Contains(r.Markdown, "| "+test.head+" |") {
			t.Errorf("%s: no column %q", test.name, test.head)
		}
		d := r.Data.(RelaxedDData)
		if len(d.Rows) != len(test.depths) {
			t.Errorf("%s: %d rows, want %d", test.name, len(d.Rows), len(test.depths))
			continue
		}
		for i, row := range d.Rows {
			if row.Depth != test.depths[i] {
				t.Errorf("%s: row %d has depth %d, want %d", test.name, i, row.Depth, test.depths[i])
			}
			// The speedup cell sits after the host and sim GPS.
			want := " | " + num(row.SimGPS) + " | " + test.cells[i] + " | "
			if !strings.Contains(r.Markdown, want) {
				t.Errorf("%s: row %d lacks %q", test.name, i, want)
			}
		}
	}
}

// ptr returns a pointer to a copy of v.
func ptr(v float64) *float64 { return &v }

// deref is *p for messages, nil for a nil p.
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
