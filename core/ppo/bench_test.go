package ppo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkIterate is one PPO iteration with CleanRL's defaults (CartPole:
// 512 steps and 16 minibatch updates; Hopper-workload: 2048 steps and 320
// updates, the workload's step cost not spent), without an observer and
// with one that only counts, to show the hook's overhead. It reports
// environment steps per second of the iteration (its IPS).
func BenchmarkIterate(b *testing.B) {
	for _, id := range []string{"CartPole-v1", "Hopper-workload"} {
		for _, observed := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/observer=%v", id, observed), func(b *testing.B) {
				cfg, _ := Defaults(id)
				cfg.TotalSteps = 1 << 40 // never run out; the LR anneals imperceptibly
				tr, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if observed {
					tr.SetObserver(&countObserver{})
				}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tr.Iterate(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*cfg.BatchSize())/b.Elapsed().Seconds(), "steps/s")
			})
		}
	}
}

// BenchmarkLosses times the loss kernels on minibatch sizes of the
// defaults (64 continuous, 128 discrete) and larger.
func BenchmarkLosses(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range []int{64, 128, 1024} {
		newLogp, oldLogp, adv, d := make([]float32, m), make([]float32, m), make([]float32, m), make([]float32, m)
		v, oldV, ret := make([]float32, m), make([]float32, m), make([]float32, m)
		for i := range newLogp {
			oldLogp[i] = float32(-rng.Float64())
			newLogp[i] = oldLogp[i] + float32(0.2*rng.NormFloat64())
			adv[i], v[i], oldV[i], ret[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		b.Run(fmt.Sprintf("surrogate/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ClippedSurrogate(d, newLogp, oldLogp, adv, 0.2)
			}
		})
		b.Run(fmt.Sprintf("value/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ValueLoss(d, v, oldV, ret, 0.2, 0.5)
			}
		})
		b.Run(fmt.Sprintf("normalize/m=%d", m), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				NormalizeAdvantages(d, adv)
			}
		})
	}
}
