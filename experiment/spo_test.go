package experiment

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/bench"
	"github.com/rlxdev/rlx/engine"
)

// spoStep is a synthetic result of a step with l learners: grads gradient
// steps over host seconds of host time, simGrads of them charged to
// simSeconds of the simulated clock.
func spoStep(index, l int, grads int64, host float64, simGrads int64, simSeconds float64) StepResult {
	cfg := engine.Config{Env: "CartPole-v1", Algo: "dqn", Batch: 128, Learners: l}
	return StepResult{Index: index, Title: "step", Config: cfg, Final: &engine.Snapshot{
		Config:       cfg,
		HostElapsed:  time.Duration(host * float64(time.Second)),
		SimElapsed:   simSeconds,
		SimGradSteps: simGrads,
		Counters:     engine.Counters{EnvSteps: 10 * grads, GradSteps: grads, Episodes: 40},
		Learning:     engine.Learning{Meaningful: true, Mean100: 123.5},
	}}
}

// notRunStep is a step the run was interrupted before.
func notRunStep(index, l int) StepResult {
	return StepResult{Index: index, Title: "step", Config: engine.Config{Env: "CartPole-v1", Algo: "dqn", Learners: l}}
}

func TestSPO(t *testing.T) {
	type want struct {
		learners []int
		hostGPS  []float64
		simGPS   []float64
		speedup  []float64
		sf       []float64
		base     int
		notRun   []int
		text     []string // in the markdown
	}
	for _, tc := range []struct {
		name  string
		steps []StepResult
		err   string // a part of the error; empty for none
		want  want
	}{{
		name: "all ran",
		steps: []StepResult{
			// Given out of order: rows and speedups follow the index.
			spoStep(2, 4, 2000, 8, 1900, 4),
			spoStep(0, 1, 1000, 10, 900, 3),
			spoStep(1, 2, 1800, 10, 1700, 2),
		},
		want: want{
			learners: []int{1, 2, 4},
			hostGPS:  []float64{100, 180, 250},
			simGPS:   []float64{300, 850, 475},
			speedup:  []float64{1, 1.8, 2.5},
			sf:       []float64{1, 0.9, 0.625},
			base:     0,
			text:     []string{"| 2. step | 2 | 128 | 18000 | 1800 | 180 | 850 | – | 1.80x | 0.90 | 123.5 |"},
		},
	}, {
		name:  "last not run",
		steps: []StepResult{spoStep(0, 1, 500, 5, 500, 1), spoStep(1, 2, 400, 5, 400, 1), notRunStep(2, 4)},
		want: want{
			learners: []int{1, 2},
			hostGPS:  []float64{100, 80},
			simGPS:   []float64{500, 400},
			speedup:  []float64{1, 0.8},
			sf:       []float64{1, 0.4},
			base:     0,
			notRun:   []int{2},
			text:     []string{"Step 3 did not run"},
		},
	}, {
		name:  "no baseline",
		steps: []StepResult{notRunStep(0, 1), spoStep(1, 2, 400, 5, 400, 1), notRunStep(2, 4)},
		want: want{
			learners: []int{2},
			hostGPS:  []float64{80},
			simGPS:   []float64{400},
			speedup:  []float64{0},
			sf:       []float64{0},
			base:     -1,
			notRun:   []int{0, 2},
			text:     []string{"there is no baseline", "Steps 1, 3 did not run"},
		},
	}, {
		name:  "duplicate index",
		steps: []StepResult{spoStep(0, 1, 10, 1, 10, 1), spoStep(0, 2, 10, 1, 10, 1)},
		err:   "appears twice",
	}, {
		name:  "negative index",
		steps: []StepResult{spoStep(-1, 1, 10, 1, 10, 1)},
		err:   "indices must be >= 0",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Build(context.Background(), "spo", tc.steps, Options{Quick: true})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d, ok := rep.Data.(SPOData)
			if !ok {
				t.Fatalf("data is %T, want SPOData", rep.Data)
			}
			w := tc.want
			if len(d.Steps) != len(w.learners) {
				t.Fatalf("%d step rows, want %d", len(d.Steps), len(w.learners))
			}
			for i, r := range d.Steps {
				for _, c := range []struct {
					what      string
					got, want float64
				}{
					{"learners", float64(r.Learners), float64(w.learners[i])},
					{"host GPS", r.HostGPS, w.hostGPS[i]},
					{"sim GPS", r.SimGPS, w.simGPS[i]},
					{"speedup", r.Speedup, w.speedup[i]},
					{"measured SF", r.MeasuredSF, w.sf[i]},
				} {
					if math.Abs(c.got-c.want) > 1e-9 {
						t.Errorf("row %d %s = %v, want %v", i, c.what, c.got, c.want)
					}
				}
			}
			if d.BaseStep != w.base {
				t.Errorf("base step %d, want %d", d.BaseStep, w.base)
			}
			if !slices.Equal(d.NotRun, w.notRun) {
				t.Errorf("not run %v, want %v", d.NotRun, w.notRun)
			}
			for _, s := range w.text {
				if !strings.Contains(rep.Markdown, s) {
					t.Errorf("markdown lacks %q:\n%s", s, rep.Markdown)
				}
			}
			checkSPOScaling(t, d)
			checkSPOMarkdown(t, rep.Markdown)
			if _, err := json.Marshal(rep.Data); err != nil {
				t.Errorf("data does not encode: %v", err)
			}
		})
	}
}

// checkSPOScaling checks the controlled measurement's rows against each
// other: the configurations measured, and the speedup and scaling factor
// arithmetic.
func checkSPOScaling(t *testing.T, d SPOData) {
	t.Helper()
	s := d.Scaling
	if !s.Quick || s.Repeats != 1 || s.Batch%4 != 0 || s.GradSteps < 1 {
		t.Errorf("scaling quick %v, %d repeats, batch %d, %d gradient steps: want one repeat of the quick sizes, B divisible by 4",
			s.Quick, s.Repeats, s.Batch, s.GradSteps)
	}
	if !(s.ComputeShare > 0 && s.ComputeShare <= 1) {
		t.Errorf("compute share %v, want a fraction in (0, 1]", s.ComputeShare)
	}
	var got []string
	for _, r := range s.Rows {
		got = append(got, r.Mode+string(rune('0'+r.L)))
	}
	want := []string{"apex1", "spo1", "spo2", "data-parallel2", "spo4", "data-parallel4"}
	if !slices.Equal(got, want) {
		t.Fatalf("scaling rows %v, want %v", got, want)
	}
	apex := s.Rows[0]
	procs := s.Host.GOMAXPROCS
	for _, r := range s.Rows {
		if !(r.GPS > 0) || !(r.ModelGPS > 0) {
			t.Errorf("%s L=%d: GPS %v, model GPS %v: want both > 0", r.Mode, r.L, r.GPS, r.ModelGPS)
		}
		if sp := r.GPS / apex.GPS; math.Abs(r.Speedup-sp) > 1e-9*sp {
			t.Errorf("%s L=%d: speedup %v, want GPS/ApeX GPS = %v", r.Mode, r.L, r.Speedup, sp)
		}
		if r.SpeedupMin != r.Speedup || r.SpeedupMax != r.Speedup {
			t.Errorf("%s L=%d: speedup %v, range %v-%v: one repeat has no range", r.Mode, r.L, r.Speedup, r.SpeedupMin, r.SpeedupMax)
		}
		if sf := r.Speedup / float64(r.L); math.Abs(r.MeasuredSF-sf) > 1e-9 {
			t.Errorf("%s L=%d: measured SF %v, want speedup/L = %v", r.Mode, r.L, r.MeasuredSF, sf)
		}
		if cb := float64(min(r.L, procs)) / float64(r.L); r.CoreBoundSF != cb {
			t.Errorf("%s L=%d: core bound %v, want %v with GOMAXPROCS %d", r.Mode, r.L, r.CoreBoundSF, cb, procs)
		}
		if wantBatch := s.Batch; r.Mode == "spo" {
			if wantBatch /= r.L; r.Batch != wantBatch {
				t.Errorf("spo L=%d: batch per learner %d, want %d", r.L, r.Batch, wantBatch)
			}
		}
	}
	p := d.Published
	if p.Scheme != "data-parallel" || p.Batch != 4096 || len(d.Comparison) != len(p.Points) {
		t.Fatalf("published %+v with %d comparison rows", p, len(d.Comparison))
	}
	for _, c := range d.Comparison {
		if c.DataParallelSF == 0 || c.SPOSF == 0 {
			t.Errorf("comparison at L=%d has no rlx figure: %+v", c.L, c)
		}
	}
}

// checkSPOMarkdown checks that the markdown names the measured and the
// model columns of each part.
func checkSPOMarkdown(t *testing.T, md string) {
	t.Helper()
	for _, s := range []string{
		"### Live steps", "speedup vs L=1", "measured SF", "host GPS", "sim GPS",
		"### Controlled", "| GPS |", "| range |", "SF measured", "SF cores allow", "GPS model", "SF model", "SF printed", "(Eq. 5.3)", "(Eq. 5.6)",
		"### Published", "001 SF", "rlx data-parallel SF measured", "rlx SPO SF model", "120-84", "4-layer MLP",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

func TestSPOStepsWithoutGradientSteps(t *testing.T) {
	// Live runs shorter than learning starts train nothing: no speedup,
	// rather than an infinite one.
	rows, base := spoSteps([]StepResult{spoStep(0, 1, 0, 1, 0, 0), spoStep(1, 2, 10, 1, 10, 1)})
	if base != 0 || len(rows) != 2 {
		t.Fatalf("base %d, %d rows; want 0, 2", base, len(rows))
	}
	for _, r := range rows {
		if r.Speedup != 0 || r.MeasuredSF != 0 {
			t.Errorf("L=%d: speedup %v, SF %v; want 0 without a baseline rate", r.Learners, r.Speedup, r.MeasuredSF)
		}
	}
	if rows[1].HostGPS != 10 || rows[0].SimGPS != 0 {
		t.Errorf("host GPS %v, sim GPS %v; want 10, 0", rows[1].HostGPS, rows[0].SimGPS)
	}
}

func TestSPOScalingMarkdown(t *testing.T) {
	row := func(mode string, l, batch int, sf, bound float64) SPOScalingRow {
		return SPOScalingRow{ScalingRow: bench.ScalingRow{Mode: mode, L: l, Batch: batch, GPS: 100, Speedup: sf * float64(l),
			MeasuredSF: sf}, CoreBoundSF: bound}
	}
	for _, tc := range []struct {
		name  string
		rows  []SPOScalingRow
		has   []string
		lacks []string
	}{{
		name: "within the bound",
		rows: []SPOScalingRow{row("apex", 1, 1024, 1, 1), row("spo", 4, 256, 0.45, 0.5), row("data-parallel", 4, 1024, 0.54, 0.5)},
		// The data-parallel row's batch is the sub-batch of each learner.
		has:   []string{"| spo | 4 | 256 |", "| data-parallel | 4 | 256 |", "0.54 | 0.50 |"},
		lacks: []string{"exceeds"},
	}, {
		name: "above the bound",
		rows: []SPOScalingRow{row("apex", 1, 1024, 1, 1), row("spo", 2, 512, 0.9, 1), row("spo", 4, 256, 0.6, 0.5)},
		has:  []string{"measured SF of spo at L = 4 exceeds what the processors allow"},
	}} {
		var b strings.Builder
		spoScalingMarkdown(&b, SPOScaling{Repeats: 3, GradSteps: 1000, Batch: 1024, H: 10, Depth: 1, Rows: tc.rows})
		md := b.String()
		for _, s := range tc.has {
			if !strings.Contains(md, s) {
				t.Errorf("%s: markdown lacks %q:\n%s", tc.name, s, md)
			}
		}
		for _, s := range tc.lacks {
			if strings.Contains(md, s) {
				t.Errorf("%s: markdown has %q:\n%s", tc.name, s, md)
			}
		}
	}
}

func TestParseSPOExample(t *testing.T) {
	for _, tc := range []struct {
		in     string
		points []SPOPublishedPoint
		batch  int
		err    string
	}{{
		in:     "4-layer MLP, B=4096: data-parallel ApeX L=2 gives 1.25x (scaling factor 0.63), L=4 gives 1.34x (0.34)",
		points: []SPOPublishedPoint{{2, 1.25, 0.63}, {4, 1.34, 0.34}},
		batch:  4096,
	}, {
		in:     "MLP, B = 512: data-parallel L = 8 gives 3x (0.375)",
		points: []SPOPublishedPoint{{8, 3, 0.375}},
		batch:  512,
	}, {
		in:  "4-layer MLP, B=4096: SPO L=2 gives 1.9x (0.95)",
		err: "does not name data-parallel",
	}, {
		in:  "4-layer MLP, large batch: data-parallel ApeX L=2 gives 1.25x (0.63)",
		err: "has no batch",
	}, {
		in:  "4-layer MLP, B=4096: data-parallel ApeX scales well",
		err: "has no point",
	}, {
		in:  "4-layer MLP, B=4096: data-parallel ApeX L=2 gives 1.2.5x (0.63)",
		err: "is not L=",
	}} {
		p, err := parseSPOExample(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if p.Batch != tc.batch || !slices.Equal(p.Points, tc.points) {
			t.Errorf("%q: B %d, points %v; want B %d, points %v", tc.in, p.Batch, p.Points, tc.batch, tc.points)
		}
	}
}

func TestSPOMedian(t *testing.T) {
	// row is a measured configuration with the given speedup over ApeX.
	row := func(mode string, l int, gps, speedup float64) bench.ScalingRow {
		return bench.ScalingRow{Mode: mode, L: l, GPS: gps, Speedup: speedup, MeasuredSF: speedup / float64(l)}
	}
	run := func(rows ...bench.ScalingRow) bench.ScalingReport { return bench.ScalingReport{Rows: rows} }
	for _, tc := range []struct {
		name  string
		runs  []bench.ScalingReport
		procs int
		want  []SPOScalingRow
	}{{
		name: "none",
	}, {
		name:  "one repeat",
		runs:  []bench.ScalingReport{run(row("apex", 1, 500, 1), row("spo", 4, 450, 0.9))},
		procs: 2,
		want: []SPOScalingRow{
			{ScalingRow: row("apex", 1, 500, 1), SpeedupMin: 1, SpeedupMax: 1, CoreBoundSF: 1},
			{ScalingRow: row("spo", 4, 450, 0.9), SpeedupMin: 0.9, SpeedupMax: 0.9, CoreBoundSF: 0.5},
		},
	}, {
		// ApeX is ranked by GPS, the others by speedup, each on its own:
		// the median ApeX and the median SPO come from different repeats.
		name: "three repeats",
		runs: []bench.ScalingReport{
			run(row("apex", 1, 480, 1), row("spo", 2, 900, 1.8), row("data-parallel", 2, 470, 0.95)),
			run(row("apex", 1, 500, 1), row("spo", 2, 400, 0.8), row("data-parallel", 2, 800, 1.6)),
			run(row("apex", 1, 520, 1), row("spo", 2, 520, 1.0), row("data-parallel", 2, 520, 1.0)),
		},
		procs: 4,
		want: []SPOScalingRow{
			{ScalingRow: row("apex", 1, 500, 1), SpeedupMin: 1, SpeedupMax: 1, CoreBoundSF: 1},
			{ScalingRow: row("spo", 2, 520, 1.0), SpeedupMin: 0.8, SpeedupMax: 1.8, CoreBoundSF: 1},
			{ScalingRow: row("data-parallel", 2, 520, 1.0), SpeedupMin: 0.95, SpeedupMax: 1.6, CoreBoundSF: 1},
		},
	}, {
		name: "two repeats take the lower",
		runs: []bench.ScalingReport{
			run(row("spo", 4, 600, 1.2)),
			run(row("spo", 4, 400, 0.8)),
		},
		procs: 0, // treated as 1
		want: []SPOScalingRow{
			{ScalingRow: row("spo", 4, 400, 0.8), SpeedupMin: 0.8, SpeedupMax: 1.2, CoreBoundSF: 0.25},
		},
	}} {
		got := spoMedian(tc.runs, tc.procs)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}
