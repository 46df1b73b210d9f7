package hw

import (
	"fmt"
	"math"
	"testing"
)

func tableIVPlatform(t testing.TB) *Platform {
	t.Helper()
	p, err := ParsePlatform("table-iv", readPreset(t, "table-iv"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hopper is 000 Table III's Hopper DDPG learner (actor 11-256-256-3,
// critic 14-256-256-1 and their targets).
func hopper(batch int) Workload {
	mlp := func(in, out int) []Layer {
		return []Layer{{Kind: Dense, In: in, Out: 256}, {Kind: Dense, In: 256, Out: 256}, {Kind: Dense, In: 256, Out: out}}
	}
	return Workload{Name: "Hopper/DDPG", Batch: batch, Capacity: 1_000_000, Fanout: 2, Actors: 16, DataPointBytes: 108,
		Nets: []Net{
			{Name: "actor", Layers: mlp(11, 3), FW: 1, BW: 1, WA: 1},
			{Name: "critic", Layers: mlp(14, 1), FW: 2, BW: 2, WA: 1},
			{Name: "actor-target", Layers: mlp(11, 3), FW: 1},
			{Name: "critic-target", Layers: mlp(14, 1), FW: 1},
		}, LossOps: 12, SoftUpdate: true}
}

func testEstimator(t testing.TB, batch int) *Estimator {
	p := tableIVPlatform(t)
	w := hopper(batch)
	st := LearnerStages(&w)
	ld := NewLearnerDesign(p.FPGA, &w, st, batch, 2, 0.002)
	e, err := NewEstimator(p, &w, &FPGADesign{Learner: &ld, RMM: ChooseRMMBanks(p.FPGA, &w, batch)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestEstimatorNoAllocs: the engine asks per training step; no query may
// allocate.
func TestEstimatorNoAllocs(t *testing.T) {
	e := testEstimator(t, 256)
	for _, k := range Kinds {
		for _, prim := range []Primitive{TrainStep, PrefixSum, PriorityUpdate, Insert} {
			if n := testing.AllocsPerRun(50, func() { e.Seconds(k, prim, 256) }); n != 0 {
				t.Errorf("Seconds(%s, %s) allocates %v times", k, prim, n)
			}
		}
	}
	if n := testing.AllocsPerRun(50, func() { e.Seconds(CPU, Inference, 1) }); n != 0 {
		t.Errorf("inference allocates %v times", n)
	}
}

func TestEstimatorErrors(t *testing.T) {
	e := testEstimator(t, 32)
	if _, err := e.Seconds(GPU, EnvStep, 1); err != ErrUnsupported {
		t.Errorf("env step on the GPU: %v, want ErrUnsupported", err)
	}
	if _, err := e.Seconds(CPU, TrainStep, 0); err == nil {
		t.Error("batch 0 accepted")
	}
	if _, err := e.GAE(FPGA, 0, 4, 4, 2); err == nil {
		t.Error("GAE with T = 0 accepted")
	}
	bad := hopper(32)
	bad.Fanout = 1
	if _, err := NewEstimator(tableIVPlatform(t), &bad, nil); err == nil {
		t.Error("fanout 1 accepted")
	}
}

// TestActorStepSeconds: one actor step is the workload's environment step
// plus the inference of one observation, allocates nothing, and needs a
// CPU.
func TestActorStepSeconds(t *testing.T) {
	p := tableIVPlatform(t)
	w := hopper(32)
	w.EnvStepUS = 85
	e, err := NewEstimator(p, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.ActorStepSeconds()
	infer, _ := e.Seconds(CPU, Inference, 1)
	if err != nil || infer <= 0 || math.Abs(got-(85e-6+infer)) > 1e-15 {
		t.Errorf("ActorStepSeconds = %v, %v; want the 85 us step plus the inference's %v s", got, err, infer)
	}
	if n := testing.AllocsPerRun(50, func() { e.ActorStepSeconds() }); n != 0 {
		t.Errorf("ActorStepSeconds allocates %v times", n)
	}
	noCPU, err := NewEstimator(&Platform{GPU: p.GPU, FPGA: p.FPGA, Link: p.Link}, &w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noCPU.ActorStepSeconds(); err != ErrUnsupported {
		t.Errorf("without a CPU: %v, want ErrUnsupported", err)
	}
}

// TestModelTrends checks the monotone trends every model must show: more
// work never takes less time.
func TestModelTrends(t *testing.T) {
	e := testEstimator(t, 16384)
	for _, k := range Kinds {
		for _, prim := range []Primitive{TrainStep, PrefixSum, PriorityUpdate} {
			prev := 0.0
			for b := 32; b <= 16384; b *= 2 {
				s, err := e.Seconds(k, prim, b)
				if err != nil {
					t.Fatal(err)
				}
				if s < prev*(1-1e-12) || s <= 0 {
					t.Errorf("%s %s: B=%d takes %.3g s, less than B/2 (%.3g)", k, prim, b, s, prev)
				}
				prev = s
			}
		}
	}
}

func ExampleEstimator_Seconds() {
	p, _ := ParsePlatform("table-iv", mustRead("../presets/devices/table-iv.yaml"))
	w := hopper(256)
	e, _ := NewEstimator(p, &w, nil)
	gpu, _ := e.Seconds(GPU, TrainStep, 256)
	cpu, _ := e.Seconds(CPU, PrefixSum, 256)
	fmt.Printf("GPU train step %.2f ms, CPU prefix-sum %.1f us\n", 1e3*gpu, 1e6*cpu)
	// Output: GPU train step 2.01 ms, CPU prefix-sum 50.5 us
}

func BenchmarkEstimatorSeconds(b *testing.B) {
	e := testEstimator(b, 256)
	for _, k := range Kinds {
		b.Run(k.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Seconds(k, TrainStep, 256)
				e.Seconds(k, PrefixSum, 256)
				e.Seconds(k, PriorityUpdate, 256)
			}
		})
	}
}
