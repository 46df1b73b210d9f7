package engine

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/sim"
)

func TestUnion(t *testing.T) {
	got := union([]Interval{{Start: 5, End: 6}, {Start: 0, End: 2}, {Start: 1, End: 3}, {Start: 6, End: 7}, {Start: 9, End: 10}})
	want := []Interval{{Start: 0, End: 3}, {Start: 5, End: 7}, {Start: 9, End: 10}}
	if !slices.Equal(got, want) {
		t.Fatalf("union = %v, want %v", got, want)
	}
	// Touching intervals merge; sorted disjoint ones stay as they are.
	if got := union([]Interval{{Start: 0, End: 1}, {Start: 1, End: 2}, {Start: 3, End: 4}}); !slices.Equal(got, []Interval{{Start: 0, End: 2}, {Start: 3, End: 4}}) {
		t.Errorf("union of touching intervals = %v", got)
	}
	if got := union(want); !slices.Equal(got, want) {
		t.Errorf("union of a union = %v, want %v", got, want)
	}
}

// coveredIn is a naive reference: the length of [lo, hi) that some
// interval of iv covers, by sweeping their clipped endpoints in order.
func coveredIn(iv []Interval, lo, hi float64) float64 {
	var c []Interval
	for _, v := range iv {
		if s, e := max(v.Start, lo), min(v.End, hi); e > s {
			c = append(c, Interval{Start: s, End: e})
		}
	}
	slices.SortFunc(c, func(a, b Interval) int { return cmp.Compare(a.Start, b.Start) })
	sum, reach := 0.0, lo
	for _, v := range c {
		if v.End > reach {
			sum += v.End - max(v.Start, reach)
			reach = v.End
		}
	}
	return sum
}

// randomIntervals returns n intervals in any order, overlapping, some
// reaching out of [from, to), some shorter than a bin.
func randomIntervals(rng *rand.Rand, n int, from, to float64) []Interval {
	span := to - from
	out := make([]Interval, n)
	for i := range out {
		s := from - 0.1*span + 1.2*span*rng.Float64()
		l := span * math.Pow(10, -5*rng.Float64()) // 10^-5 to 1 of the window
		out[i] = Interval{Start: s, End: s + l}
	}
	return out
}

// TestOccupancyIsExact: every bin holds the busy time of the union of the
// intervals inside it over its width, and the bins add up to the union's
// busy time in the window, however many, short and overlapping the
// intervals are.
func TestOccupancyIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 21))
	for trial := range 100 {
		from := 10 * rng.Float64()
		to := from + math.Pow(10, -6+6*rng.Float64())
		busy := randomIntervals(rng, 1+rng.IntN(400), from, to)
		sv := NewStageView("s", busy, from, to)
		if len(sv.Occupancy) != OccupancyBins {
			t.Fatalf("%d bins, want %d", len(sv.Occupancy), OccupancyBins)
		}
		width := (to - from) / OccupancyBins
		total, sum := coveredIn(busy, from, to), 0.0
		for b, f := range sv.Occupancy {
			lo := from + width*float64(b)
			hi := min(lo+width, to)
			if want := coveredIn(busy, lo, hi) / width; math.Abs(f-want) > 1e-6 {
				t.Fatalf("trial %d bin %d: %v, naive %v", trial, b, f, want)
			}
			sum += f * width
		}
		// Rounding: the window's edges are known to a few ulps of to.
		if math.Abs(sum-total) > 1e-12*to+1e-9*(to-from) {
			t.Errorf("trial %d: the bins add up to %v s busy, the union is busy %v s", trial, sum, total)
		}
		if math.Abs(sv.Utilization-total/(to-from)) > 1e-9 {
			t.Errorf("trial %d: utilization %v, want %v", trial, sv.Utilization, total/(to-from))
		}
	}
}

// TestOccupancySparseStage is the case that drew a 1%-busy PCIe link as a
// solid bar: thousands of short transfers, ten in every bin, 1% busy.
func TestOccupancySparseStage(t *testing.T) {
	const from, to, n = 2.0, 2.05, 10 * OccupancyBins
	period := (to - from) / n
	var busy []Interval
	for i := range n {
		s := from + float64(i)*period
		busy = append(busy, Interval{Start: s, End: s + 0.01*period})
	}
	sv := NewStageView("CPU-FPGA", busy, from, to)
	for b, f := range sv.Occupancy {
		if math.Abs(f-0.01) > 1e-6 {
			t.Fatalf("bin %d is %v busy, want 0.01", b, f)
		}
	}
	if math.Abs(sv.Utilization-0.01) > 1e-9 {
		t.Errorf("utilization %v, want 0.01", sv.Utilization)
	}
}

func TestNewStageViewEmptyWindow(t *testing.T) {
	for _, w := range [][2]float64{{1, 1}, {2, 1}, {0, math.Inf(1)}, {math.NaN(), 1}} {
		sv := NewStageView("s", []Interval{{Start: 0, End: 1}}, w[0], w[1])
		if len(sv.Occupancy) != 0 || sv.Utilization != 0 {
			t.Errorf("window [%v, %v): %+v, want nothing", w[0], w[1], sv)
		}
	}
}

func TestUnitViews(t *testing.T) {
	traces := []sim.Trace{
		{Device: "GPU", Stage: "learner", Busy: []Interval{{Start: 0, End: 4}}, Utilization: 0.5},
		{Device: "CPU", Stage: "actor 0", Busy: []Interval{{Start: 0, End: 2}}, Utilization: 0.25},
		{Device: "CPU", Stage: "actor 1", Busy: []Interval{{Start: 1, End: 3}}, Utilization: 0.25},
		{Device: "PCIe", Stage: "CPU-GPU", Busy: []Interval{{Start: 4, End: 5}}, Utilization: 0.125},
	}
	views := unitViews(traces, 0, 8)
	// No FPGA unit traced: no FPGA view.
	if len(views) != 3 || views[0].Name != "CPU" || views[1].Name != "GPU" || views[2].Name != "PCIe" {
		t.Fatalf("devices %+v", views)
	}
	// The actors are one stage, each bin the mean of the two cores': both
	// busy in [1, 2), one in [0, 1) and [2, 3).
	cpu := views[0].Stages
	if len(cpu) != 1 || cpu[0].Name != "actors (2)" || math.Abs(cpu[0].Utilization-0.25) > 1e-12 {
		t.Fatalf("CPU stages %+v", cpu)
	}
	per := OccupancyBins / 8 // bins per second of the window
	for b, f := range cpu[0].Occupancy {
		want := 0.0
		switch b / per {
		case 0, 2:
			want = 0.5
		case 1:
			want = 1
		}
		if math.Abs(f-want) > 1e-9 {
			t.Fatalf("actors bin %d: %v, want %v", b, f, want)
		}
	}
	if gpu := views[1].Stages; len(gpu) != 1 || gpu[0].Utilization != 0.5 || gpu[0].Occupancy[0] != 1 || gpu[0].Occupancy[OccupancyBins-1] != 0 {
		t.Errorf("GPU stages %+v", gpu)
	}
}

func TestPipelineView(t *testing.T) {
	tl := hw.NewTimeline(3)
	tl.Stages[0].Mark(0, 10)
	tl.Stages[1].Mark(5, 15)
	tl.Stages[2].Mark(20, 40)
	tl.Close(40)
	// Rows: stages 0 and 1 share a row, stage 2 has its own.
	dv := pipelineView(&sim.Pipeline{Name: "FPGA RMM", Timeline: tl, Hz: 10, Row: func(i int) string { return []string{"a", "a", "b"}[i] }})
	if dv.To != 4 || len(dv.Stages) != 2 || dv.Stages[0].Utilization != 0.375 || dv.Stages[1].Utilization != 0.5 {
		t.Fatalf("view %+v", dv)
	}
	// Row a is busy the first 1.5 s of 4: the first 3/8 of the bins.
	for b, f := range dv.Stages[0].Occupancy {
		if want := float64(b2i(b < 3*OccupancyBins/8)); f != want {
			t.Fatalf("row a bin %d: %v, want %v", b, f, want)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBusiestSkipsPipelines(t *testing.T) {
	views := []DeviceView{
		{Name: "CPU", Stages: []StageView{{Name: "actors", Utilization: 0.4}}},
		{Name: "FPGA", Stages: []StageView{{Name: "learner", Utilization: 0.7}, {Name: "RMM", Utilization: 0.1}}},
		{Name: "FPGA RMM samplers (one batch)", Pipeline: true, Stages: []StageView{{Name: "banks 0-3", Utilization: 1}}},
	}
	if got, want := busiest(views), (Busiest{"FPGA", "learner", 0.7}); got != want {
		t.Errorf("busiest = %+v, want %+v", got, want)
	}
	if got := busiest(views[2:]); got != (Busiest{}) {
		t.Errorf("busiest of pipelines only = %+v, want none", got)
	}
	if s := (Busiest{"CPU", "actors", 0.994}).String(); s != "CPU actors (99% busy)" {
		t.Errorf("String() = %q", s)
	}
}

// rows lists a snapshot's live rows, "GPU learner, GPU RMM, ...", for
// messages.
func rows(s *Snapshot) string {
	var out []string
	for _, d := range s.Devices {
		if d.Pipeline {
			continue
		}
		for _, st := range d.Stages {
			out = append(out, d.Name+" "+st.Name)
		}
	}
	return strings.Join(out, ", ")
}

// stage returns a snapshot's live stage of device, nil if there is none.
func stage(s *Snapshot, device, name string) *StageView {
	for _, d := range s.Devices {
		if d.Pipeline || d.Name != device {
			continue
		}
		for i := range d.Stages {
			if d.Stages[i].Name == name {
				return &d.Stages[i]
			}
		}
	}
	return nil
}

// TestGGGShowsTheGPURMM: with the learner and the RMM both on the GPU, the
// RMM's work is the GPU RMM's row, not part of the GPU learner's, and no
// row is left of the FPGA the exploration's first mapping used.
func TestGGGShowsTheGPURMM(t *testing.T) {
	s := runToEnd(t, Config{Env: "CartPole-v1", Algo: "dqn", Capacity: 1000, Steps: 3000, Seed: 3, Mapping: MustMapping("G-G-G")})
	learner, rmm := stage(s, "GPU", "learner"), stage(s, "GPU", "RMM")
	if learner == nil || rmm == nil {
		t.Fatalf("G-G-G rows %s: want a GPU learner and a GPU RMM", rows(s))
	}
	if !(rmm.Utilization > 0) || learner.Utilization+rmm.Utilization > 1+1e-9 {
		t.Errorf("GPU learner %v and RMM %v busy: the RMM must be busy, the two sharing the GPU's time", learner.Utilization, rmm.Utilization)
	}
	for _, d := range s.Devices {
		if d.Name == "FPGA" || stage(s, "PCIe", "CPU-FPGA") != nil {
			t.Errorf("G-G-G shows the FPGA: rows %s", rows(s))
			break
		}
	}
}

// TestSwitchLeavesNoRow: after SetMapping moves a run from the FPGA to the
// GPU, once the window holds only steps run on the GPU, no row is left of
// the FPGA.
func TestSwitchLeavesNoRow(t *testing.T) {
	r, err := Start(context.Background(), Config{Env: "CartPole-v1", Algo: "dqn", Capacity: 1000, Steps: 1 << 30, Seed: 3,
		Mapping: MustMapping("F-F-F")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		r.Stop()
		drain(r)
		r.Wait()
	}()
	deadline := time.Now().Add(60 * time.Second)
	waitSteps := func(n int64) *Snapshot {
		t.Helper()
		for time.Now().Before(deadline) {
			if s := r.Latest(); s != nil && s.SimGradSteps >= n {
				return s
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the run did not reach %d gradient steps", n)
		return nil
	}
	before := waitSteps(200)
	if stage(before, "FPGA", "learner") == nil {
		t.Fatalf("F-F-F rows %s: want the FPGA learner", rows(before))
	}
	r.SetMapping(MustMapping("G-G-G"))
	for e := range r.Events() {
		if e.Kind == EventMappingChanged {
			if e.Snapshot.Mapping.Chosen != "G-G-G" {
				t.Fatalf("the switch gave %s: %s", e.Snapshot.Mapping.Chosen, e.Text)
			}
			// The window covers the last 64 gradient steps, and the RMM
			// samples at most Config.Depth (here 1) ahead of them.
			after := waitSteps(e.Snapshot.SimGradSteps + 100)
			for _, d := range after.Devices {
				if d.Name == "FPGA" || stage(after, "PCIe", "CPU-FPGA") != nil {
					t.Fatalf("%d steps after the switch to G-G-G, rows %s", after.SimGradSteps-e.Snapshot.SimGradSteps, rows(after))
				}
			}
			if stage(after, "GPU", "RMM") == nil {
				t.Errorf("after the switch to G-G-G, rows %s: want the GPU RMM", rows(after))
			}
			return
		}
	}
	t.Fatal("no mapping change event")
}

// BenchmarkUnitViews builds the live views of a snapshot as large as the
// sim's traces get: 16 actor cores and 6 units, each with a full ring of
// 1024 intervals in the window.
func BenchmarkUnitViews(b *testing.B) {
	const from, to = 0.0, 1.0
	var traces []sim.Trace
	add := func(device, stage string) {
		tr := sim.Trace{Device: device, Stage: stage}
		for i := range 1024 {
			s := from + (to-from)*float64(i)/1024
			tr.Busy = append(tr.Busy, Interval{Start: s, End: s + 0.3/1024})
		}
		traces = append(traces, tr)
	}
	for i := range 16 {
		add("CPU", "actor "+strconv.Itoa(i))
	}
	for _, u := range [][2]string{{"GPU", "learner"}, {"GPU", "RMM"}, {"GPU", "storage"}, {"FPGA", "RMM"}, {"PCIe", "CPU-GPU"}, {"PCIe", "CPU-FPGA"}} {
		add(u[0], u[1])
	}
	b.ReportAllocs()
	for b.Loop() {
		unitViews(traces, from, to)
	}
}
