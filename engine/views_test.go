package engine

import (
	"math"
	"testing"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/sim"
)

func TestUnionAndCoalesce(t *testing.T) {
	got := union([]Interval{{Start: 5, End: 6}, {Start: 0, End: 2}, {Start: 1, End: 3}, {Start: 6, End: 7}, {Start: 9, End: 10}})
	want := []Interval{{Start: 0, End: 3}, {Start: 5, End: 7}, {Start: 9, End: 10}}
	if len(got) != len(want) {
		t.Fatalf("union = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("union = %v, want %v", got, want)
		}
	}
	var many []Interval
	for i := range 1000 {
		many = append(many, Interval{Start: float64(i), End: float64(i) + 0.9})
	}
	c := coalesce(many, 0.2) // gaps of 0.1 merge
	if len(c) != 1 || c[0] != (Interval{Start: 0, End: 999.9}) {
		t.Errorf("coalesce = %v", c)
	}
	if c := coalesce(many[:10], 0.2); len(c) != 10 {
		t.Errorf("coalesce of few intervals changed them: %v", c)
	}
}

func TestUnitViews(t *testing.T) {
	traces := []sim.Trace{
		{Device: "GPU", Stage: "learner", Busy: []Interval{{Start: 0, End: 4}}, Utilization: 0.4},
		{Device: "CPU", Stage: "actor 0", Busy: []Interval{{Start: 0, End: 2}}, Utilization: 0.2},
		{Device: "CPU", Stage: "actor 1", Busy: []Interval{{Start: 1, End: 3}}, Utilization: 0.2},
		{Device: "PCIe", Stage: "CPU-GPU", Busy: []Interval{{Start: 4, End: 5}}, Utilization: 0.1},
	}
	views := unitViews(traces, 0, 10)
	if len(views) != 4 || views[0].Name != "CPU" || views[1].Name != "GPU" || views[2].Name != "FPGA" || views[3].Name != "PCIe" {
		t.Fatalf("devices %+v", views)
	}
	cpu := views[0].Stages
	if len(cpu) != 1 || cpu[0].Name != "actors (2)" || len(cpu[0].Busy) != 1 || cpu[0].Busy[0] != (Interval{Start: 0, End: 3}) ||
		math.Abs(cpu[0].Utilization-0.2) > 1e-12 {
		t.Errorf("CPU stages %+v", cpu)
	}
	if gpu := views[1].Stages; len(gpu) != 1 || gpu[0].Utilization != 0.4 {
		t.Errorf("GPU stages %+v", gpu)
	}
	if len(views[2].Stages) != 0 {
		t.Errorf("an unused FPGA shows stages %+v", views[2].Stages)
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
	if dv.To != 4 || len(dv.Stages) != 2 || dv.Stages[0].Busy[0] != (Interval{Start: 0, End: 1.5}) || dv.Stages[0].Utilization != 0.375 || dv.Stages[1].Utilization != 0.5 {
		t.Errorf("view %+v", dv)
	}
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
