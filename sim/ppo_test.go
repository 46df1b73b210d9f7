package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

// cartPolePPO is CleanRL's ppo.py on CartPole-v1 (4 x 128 steps, 4 epochs
// of 4 minibatches, 64-64 MLPs) with epochs and minibatches as given.
func cartPolePPO(epochs, minibatches int) PPOIteration {
	mlp := func(in, out int) []hw.Layer {
		return []hw.Layer{{Kind: hw.Dense, In: in, Out: 64}, {Kind: hw.Dense, In: 64, Out: 64}, {Kind: hw.Dense, In: 64, Out: out}}
	}
	return PPOIteration{Name: "CartPole-v1/ppo", Envs: 4, Horizon: 128, Epochs: epochs, Minibatches: minibatches,
		Actors: 1, ObsDim: 4, ActDim: 1, Params: 2 * (4*64 + 64*64 + 64*2 + 64 + 64 + 2),
		Actor: mlp(4, 2), Critic: mlp(4, 1), EnvStepUS: 1}
}

// runIterations charges n iterations as the trainer emits them and returns
// the simulated seconds they took.
func runIterations(s *PPO, n int) float64 {
	it := s.Iteration()
	for range n {
		for range it.Horizon {
			s.Inference(it.Envs)
			s.EnvSteps(it.Envs)
			s.Store(it.Envs)
		}
		s.GAE(it.Samples())
		for range it.Updates() {
			s.Minibatch()
		}
		s.EndIteration()
	}
	return s.Now()
}

// TestPPOIterationSecondsIsTheClock: the prediction of an iteration is what
// the clock charges for it, on every feasible mapping and for any epochs
// and minibatches: the counts have one home (PPOIteration).
func TestPPOIterationSecondsIsTheClock(t *testing.T) {
	p := defaultPlatform(t)
	for _, c := range []struct{ epochs, minibatches int }{{4, 4}, {10, 4}, {1, 32}, {10, 1}} {
		list, err := NewPPO(p, cartPolePPO(c.epochs, c.minibatches))
		if err != nil {
			t.Fatal(err)
		}
		if ms := list.Mappings(); len(ms) < 2 || !slices.Contains(ms, list.Auto()) {
			t.Fatalf("mappings %v: want several, auto's %s among them", ms, list.Auto())
		}
		for _, m := range list.Mappings() {
			s, err := NewPPO(p, cartPolePPO(c.epochs, c.minibatches))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Remap(m); err != nil {
				t.Fatalf("%s is listed but Remap refuses it: %v", m, err)
			}
			const n = 5
			got := runIterations(s, n) / n
			want := s.IterationSeconds(m)
			if rel := math.Abs(got-want) / want; rel > 0.02 {
				t.Errorf("%s, %d epochs of %d: the clock takes %.4g s an iteration, the prediction %.4g s (%.1f%% off)",
					m, c.epochs, c.minibatches, got, want, 100*rel)
			}
		}
	}
}

// TestPPOUpdatesScaleWithEpochs: K x M updates an iteration, so going from
// 4 to 10 epochs adds 6 x M updates' time to the prediction.
func TestPPOUpdatesScaleWithEpochs(t *testing.T) {
	p := defaultPlatform(t)
	s4, err := NewPPO(p, cartPolePPO(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	s10, err := NewPPO(p, cartPolePPO(10, 4))
	if err != nil {
		t.Fatal(err)
	}
	m := hw.Mapping{Learner: hw.CPU, RMM: hw.CPU, Storage: hw.CPU}
	extra := s10.IterationSeconds(m) - s4.IterationSeconds(m)
	if want := 6 * 4 * s4.UpdateSeconds(hw.CPU); math.Abs(extra-want) > 1e-12*want {
		t.Errorf("6 more epochs add %.6g s, want 6 x 4 updates = %.6g s", extra, want)
	}
}

// TestPPOPipelines: on F-F-F the systolic array's forward pass takes the
// cycles of its GEMMs back to back (003 Eq. 5), and the GAE PEs are shown;
// neither on C-C-C.
func TestPPOPipelines(t *testing.T) {
	s, err := NewPPO(defaultPlatform(t), cartPolePPO(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remap(hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}); err != nil {
		t.Fatal(err)
	}
	ps := s.Pipelines()
	if len(ps) != 2 || s.accel == nil {
		t.Fatalf("%d pipelines on F-F-F, want the systolic array and the GAE PEs", len(ps))
	}
	var cycles int64
	for _, l := range s.it.layers() {
		cycles += hw.SystolicCycles(l.GEMM(s.it.MinibatchSize()), s.accel.P, s.accel.FW, hw.Streamed)
	}
	if got := ps[0].Timeline.Cycles; got != cycles {
		t.Errorf("the forward pass takes %d cycles, its GEMMs %d", got, cycles)
	}
	rows := map[string]bool{}
	for i := range ps[1].Timeline.Stages {
		rows[ps[1].Row(i)] = true
	}
	if len(rows) == 0 || len(rows) > maxPipelineRows {
		t.Errorf("%d GAE PE rows, want 1..%d", len(rows), maxPipelineRows)
	}
	if err := s.Remap(hw.Mapping{}); err != nil {
		t.Fatal(err)
	}
	if ps := s.Pipelines(); len(ps) != 0 {
		t.Errorf("C-C-C shows %d FPGA pipelines", len(ps))
	}
}

// TestPPOBound: the bound is the longest phase of an iteration. CartPole's
// 16 updates bound it on a CPU learner and its rollout on the FPGA's
// systolic array; a 10 ms environment step makes the rollout the bound
// everywhere, 4 GiB of weights sent back the transfers wherever the
// learner is an accelerator.
func TestPPOBound(t *testing.T) {
	p := defaultPlatform(t)
	slowEnv, bigNet := cartPolePPO(4, 4), cartPolePPO(4, 4)
	slowEnv.EnvStepUS, bigNet.Params = 10_000, 1<<30
	ccc := hw.Mapping{Learner: hw.CPU, RMM: hw.CPU, Storage: hw.CPU}
	gfg := hw.Mapping{Learner: hw.GPU, RMM: hw.FPGA, Storage: hw.GPU}
	fff := hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}
	for _, c := range []struct {
		it   PPOIteration
		m    hw.Mapping
		want string
	}{
		{cartPolePPO(4, 4), ccc, "learner"}, {cartPolePPO(4, 4), fff, "actors"},
		{slowEnv, ccc, "actors"}, {slowEnv, gfg, "actors"},
		{bigNet, gfg, "pcie"}, {bigNet, fff, "pcie"},
	} {
		s, err := NewPPO(p, c.it)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Bound(c.m); got != c.want {
			t.Errorf("%s, %g us a step, %d parameters: bound %q, want %q (phases %+v)",
				c.m, c.it.EnvStepUS, c.it.Params, got, c.want, s.phases(c.m))
		}
	}
	// On every mapping the bound is the longest phase, so at least a
	// quarter of the iteration.
	s, err := NewPPO(p, cartPolePPO(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Mappings() {
		ph := s.phases(m)
		longest := map[string]float64{"actors": ph.actors, "pcie": ph.pcie, "gae": ph.gae, "learner": ph.learner}[s.Bound(m)]
		if longest < s.IterationSeconds(m)/4 || longest < max(ph.actors, ph.pcie, ph.gae, ph.learner) {
			t.Errorf("%s: bound %q of %.3g s in an iteration of %.3g s (phases %+v)", m, s.Bound(m), longest, s.IterationSeconds(m), ph)
		}
	}
}

// TestPPORolloutInferenceRunsBothNets: every rollout step evaluates the
// actor (the action) and the critic (the value), so the actors are charged
// the inference of both networks.
func TestPPORolloutInferenceRunsBothNets(t *testing.T) {
	p := defaultPlatform(t)
	it := cartPolePPO(4, 4)
	s, err := NewPPO(p, it)
	if err != nil {
		t.Fatal(err)
	}
	var nets []float64
	for _, layers := range [][]hw.Layer{it.Actor, it.Critic} {
		w := s.work
		w.Nets, w.InferenceNets = []hw.Net{{Name: "one", Layers: layers, FW: 1}}, 1
		e, err := hw.NewEstimator(p, &w, nil)
		if err != nil {
			t.Fatal(err)
		}
		sec, err := e.Seconds(hw.CPU, hw.Inference, it.Envs)
		if err != nil {
			t.Fatal(err)
		}
		nets = append(nets, sec)
	}
	if got, want := s.inference(it.Envs), nets[0]+nets[1]; math.Abs(got-want) > 1e-15 {
		t.Errorf("rollout inference of %d observations: %g s, want actor %g s + critic %g s", it.Envs, got, nets[0], nets[1])
	}
}
