package dse

import (
	"math"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

func TestParseMapping(t *testing.T) {
	for _, s := range []string{"C-C-C", "G-F-G", "f-c-f"} {
		m, err := hw.ParseMapping(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if m2, _ := hw.ParseMapping(m.String()); m2 != m {
			t.Errorf("%s does not round-trip", s)
		}
	}
	for _, s := range []string{"", "GFG", "G-X-G", "G-F-G-", "G_F_G"} {
		if _, err := hw.ParseMapping(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestTrafficRule pins Algorithm 3 lines 11-15 on hand-worked cases.
func TestTrafficRule(t *testing.T) {
	const b, n, e = 64, 16, 100
	for _, tt := range []struct {
		m    hw.Mapping
		want int64
	}{
		{hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}, n * e}, // only the actors' inserts cross
		{hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.GPU}, b + n*e},  // indices and inserts
		{hw.Mapping{Learner: hw.GPU, RMM: hw.CPU, Storage: hw.CPU}, b * e},    // the sampled batch
		{hw.Mapping{Learner: hw.CPU, RMM: hw.CPU, Storage: hw.CPU}, 0},        // everything local
		{hw.Mapping{Learner: hw.GPU, RMM: hw.FPGA, Storage: hw.CPU}, b + b*e}, // indices and the batch
	} {
		if got := Traffic(tt.m, b, n, e); got != tt.want {
			t.Errorf("Traffic(%s) = %d, want %d", tt.m, got, tt.want)
		}
	}
}

// TestDecidePruning: with the GPU learner and an FPGA RMM that keeps up,
// the GPU is pruned from the RMM's choices even when it would be fastest.
func TestDecidePruning(t *testing.T) {
	p := tableIV(t)
	env, _ := FindEnv("Hopper")
	w, _ := Workload(env, "DDPG", 1024)
	tab := Table{Batch: 1024}
	tab.TP[Learner] = [3]float64{1, 100, 50} // GPU learner best
	tab.TP[RMM] = [3]float64{10, 1000, 200}  // GPU RMM fastest, FPGA keeps up
	for k := range 3 {
		for c := range 2 {
			tab.Seconds[c][k] = 1024 / tab.TP[c][k]
		}
	}
	d, err := Decide(p, &w, &tab)
	if err != nil {
		t.Fatal(err)
	}
	if !d.PrunedGPU || d.Mapping.Learner != hw.GPU || d.Mapping.RMM != hw.FPGA {
		t.Errorf("got %s pruned=%v, want G-F-* with the GPU pruned", d.Mapping, d.PrunedGPU)
	}
	// When the CPU RMM also keeps up, the tie goes to the CPU: fewer devices.
	tab.TP[RMM][hw.CPU] = 150
	if d, _ = Decide(p, &w, &tab); d.Mapping.RMM != hw.CPU || d.Tie == "" {
		t.Errorf("got %s (tie %q), want the CPU RMM by the device-count tie-break", d.Mapping, d.Tie)
	}
	// When the FPGA RMM is slower than the learner, the GPU stays a choice.
	tab.TP[RMM] = [3]float64{10, 1000, 20}
	if d, _ = Decide(p, &w, &tab); d.PrunedGPU || d.Mapping.RMM != hw.GPU {
		t.Errorf("got %s pruned=%v, want the GPU RMM", d.Mapping, d.PrunedGPU)
	}
}

func TestWorkloadRejects(t *testing.T) {
	if _, err := FindEnv("Breakout"); err == nil {
		t.Error("unknown environment accepted")
	}
	pong, _ := FindEnv("pong")
	if _, err := Workload(pong, "DDPG", 32); err == nil {
		t.Error("DDPG on Pong accepted")
	}
	if _, err := Workload(pong, "DQN", 0); err == nil {
		t.Error("batch 0 accepted")
	}
	cp, _ := FindEnv("CartPole")
	w, err := Workload(cp, "td3", 32)
	if err != nil || len(w.Nets) != 6 {
		t.Errorf("TD3 on CartPole: %v, %d nets", err, len(w.Nets))
	}
}

// TestTableIIIMACs compares the forward MACs of the Table III networks with
// the published counts: one MLP forward for Hopper (70.1K), and for Pong
// the online plus the target forward (2 x 9.35M = 18.7M vs 18.8M).
func TestTableIIIMACs(t *testing.T) {
	hop, _ := FindEnv("Hopper")
	w, _ := Workload(hop, "DDPG", 1)
	if m := w.Nets[0].ForwardMACs(); m < 68_000 || m > 71_000 {
		t.Errorf("Hopper actor forward %d MACs, Table III 70.1K", m)
	}
	pong, _ := FindEnv("Pong")
	w, _ = Workload(pong, "DQN", 1)
	if m := w.Nets[0].ForwardMACs() + w.Nets[1].ForwardMACs(); m < 18_000_000 || m > 19_500_000 {
		t.Errorf("Pong online + target forward %d MACs, Table III 18.8M", m)
	}
}

// TestActorsBoundTheExploration checks the actors' stage: a workload that
// says how many environment steps the actors take per gradient step is
// charged them, each an environment step and an inference on one CPU core,
// spread over its actors; with slow enough steps they bound every mapping.
// Without the count the actors are left out, as in 000 §VI.
func TestActorsBoundTheExploration(t *testing.T) {
	p := tableIV(t)
	env, err := FindEnv("Hopper")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Workload(env, "DDPG", 32)
	if err != nil {
		t.Fatal(err)
	}
	w.EnvStepUS, w.EnvStepsPerStep = 20_000, 4 // 20 ms per environment step, 4 per gradient step
	r, err := Explore(p, &w)
	if err != nil {
		t.Fatal(err)
	}
	e, err := hw.NewEstimator(p, &w, r.Arch.Design())
	if err != nil {
		t.Fatal(err)
	}
	infer, err := e.Seconds(hw.CPU, hw.Inference, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := 4 * (20e-3 + infer) / float64(w.Actors)
	for _, ev := range r.Evals {
		if ev.GPS == 0 {
			continue
		}
		if math.Abs(ev.ActorsS-want) > 1e-12 || ev.Bottleneck != "actors" || math.Abs(ev.GPS-1/want) > 1e-9*ev.GPS {
			t.Errorf("%s: actors %.6g s per step (want %.6g), bound by %s at %.1f GPS", ev.Mapping, ev.ActorsS, want, ev.Bottleneck, ev.GPS)
		}
	}
	w.EnvStepsPerStep = 0
	r, err = Explore(p, &w)
	if err != nil {
		t.Fatal(err)
	}
	if r.Chosen.ActorsS != 0 || r.Chosen.Bottleneck == "actors" {
		t.Errorf("actors left out: %.3g s per step, bound by %s", r.Chosen.ActorsS, r.Chosen.Bottleneck)
	}
}

// TestPlaceStorageCountsTheRunsInserts: step 3 weighs the inserts the
// actors make per gradient step, the same count Evaluate moves. Pong at
// B = 64, learner on the GPU and RMM on the CPU: storage on the GPU moves
// 64 index words and the inserts, on the CPU the 64 sampled points. 000's
// one insert per actor (16) puts it on the GPU; a run whose actors insert
// 64 points per step puts it on the CPU.
func TestPlaceStorageCountsTheRunsInserts(t *testing.T) {
	p := tableIV(t)
	env, err := FindEnv("Pong")
	if err != nil {
		t.Fatal(err)
	}
	w, err := Workload(env, "DQN", 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		envSteps int
		want     hw.Kind
	}{{0, hw.GPU}, {16, hw.GPU}, {64, hw.CPU}} {
		w.EnvStepsPerStep = c.envSteps
		if got, err := PlaceStorage(p, &w, hw.GPU, hw.CPU, 64); err != nil || got != c.want {
			t.Errorf("%d environment steps per gradient step: storage on %s (%v), want %s", c.envSteps, got, err, c.want)
		}
	}
}
