package ppo

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
)

// goldenConfig is a short run of id with CleanRL's defaults scaled down,
// episodes cut at 25 steps so that both terminations and truncations
// (bootstrapped) happen inside the rollouts.
func goldenConfig(id string) Config {
	cfg, err := Defaults(id)
	if err != nil {
		panic(err)
	}
	cfg.Seed = 7
	cfg.NumEnvs, cfg.NumSteps, cfg.Minibatches, cfg.Epochs = 2, 32, 2, 2
	cfg.TotalSteps = 3 * 64
	cfg.BootstrapTruncated = true
	cfg.EnvOptions = []env.Option{env.MaxEpisodeSteps(25)}
	return cfg
}

// golden are the losses of goldenConfig's three iterations, recorded with
// the avx2-fma kernels of core/nn. The pure-Go kernels round differently:
// the values agree to about 5e-5 relative, so the comparison allows 2e-4
// relative (plus 1e-9 absolute for the KL of order 1e-6). A change in the
// algorithm (a sign, a coefficient, an off-by-one in the rollout) moves
// them by far more.
var golden = []struct {
	env                                            string
	iteration                                      int
	policy, value, entropy, approxKL, clip, gradNm float64
}{
	{"CartPole-v1", 1, -0.000270498769, 32.1046462, 0.693138875, 7.61896171e-06, 0, 7.29522167},
	{"CartPole-v1", 2, -0.000201792215, 26.8021727, 0.693085858, 2.36263451e-06, 0, 6.59963557},
	{"CartPole-v1", 3, 7.7063642e-05, 15.7957369, 0.692904444, 6.04440658e-07, 0, 6.69304572},
	{"Pendulum-v1", 1, -0.000905977438, 22.1360692, 1.41864055, 1.24627273e-05, 0, 6.96262441},
	{"Pendulum-v1", 2, -0.000156038748, 0.379760895, 1.41836739, 4.08052875e-06, 0, 0.981883621},
	{"Pendulum-v1", 3, -0.000107272281, 0.154879473, 1.41829452, 8.39967748e-07, 0, 0.766877635},
}

func TestGolden(t *testing.T) {
	stats := map[string][]IterStats{}
	for _, id := range []string{"CartPole-v1", "Pendulum-v1"} {
		tr, err := New(goldenConfig(id))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Run(context.Background(), func(s IterStats) error {
			stats[id] = append(stats[id], s)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range golden {
		s := stats[g.env][g.iteration-1]
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"policy loss", s.PolicyLoss, g.policy}, {"value loss", s.ValueLoss, g.value},
			{"entropy", s.Entropy, g.entropy}, {"approx KL", s.ApproxKL, g.approxKL},
			{"clip fraction", s.ClipFrac, g.clip}, {"gradient norm", s.GradNorm, g.gradNm},
		} {
			if math.Abs(c.got-c.want) > 2e-4*math.Abs(c.want)+1e-9 {
				t.Errorf("%s iteration %d: %s %.9g, golden %.9g", g.env, g.iteration, c.name, c.got, c.want)
			}
		}
	}
}

// Same seed, same everything, bit for bit; another seed, other losses.
func TestDeterministic(t *testing.T) {
	for _, id := range []string{"CartPole-v1", "Pendulum-v1"} {
		run := func(seed uint64) ([]IterStats, []float32) {
			cfg := goldenConfig(id)
			cfg.Seed = seed
			tr, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var out []IterStats
			if err := tr.Run(context.Background(), func(s IterStats) error {
				s.Wall, s.Phases = 0, [NumPhases]time.Duration{}
				out = append(out, s)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			params := append(append([]float32(nil), tr.Actor().Params()...), tr.Critic().Params()...)
			return out, params
		}
		a, pa := run(3)
		b, pb := run(3)
		c, _ := run(4)
		for i := range a {
			if !sameStats(a[i], b[i]) {
				t.Errorf("%s: iteration %d differs between two runs with seed 3:\n%+v\n%+v", id, i+1, a[i], b[i])
			}
		}
		for i := range pa {
			if math.Float32bits(pa[i]) != math.Float32bits(pb[i]) {
				t.Fatalf("%s: parameter %d differs: %v vs %v", id, i, pa[i], pb[i])
			}
		}
		if a[0].ValueLoss == c[0].ValueLoss && a[0].PolicyLoss == c[0].PolicyLoss {
			t.Errorf("%s: seeds 3 and 4 gave the same losses %v %v", id, a[0].ValueLoss, a[0].PolicyLoss)
		}
	}
}

// sameStats compares two IterStats whose times were cleared, NaN equal to
// NaN (the explained variance of constant returns).
func sameStats(a, b IterStats) bool {
	if math.IsNaN(a.ExplainedVariance) && math.IsNaN(b.ExplainedVariance) {
		a.ExplainedVariance, b.ExplainedVariance = 0, 0
	}
	if math.IsNaN(a.RecentReturn) && math.IsNaN(b.RecentReturn) {
		a.RecentReturn, b.RecentReturn = 0, 0
	}
	return a == b
}
