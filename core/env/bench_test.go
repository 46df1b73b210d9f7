package env

import (
	"testing"
)

// BenchmarkStep times one Step of every environment with a fixed valid
// action (resetting when an episode ends), and the Vec of 4 CartPoles that
// the PPO rollout uses (per Vec step: 4 environment steps).
func BenchmarkStep(b *testing.B) {
	for _, id := range IDs() {
		b.Run(id, func(b *testing.B) {
			e := must(Make(id, newRNG(1)))
			obs := make([]float32, e.Spec().Obs.Dim())
			e.Reset(obs)
			a := zeroAction(e.Spec())
			if e.Spec().Act.Discrete() {
				a = Discrete(1)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, term, trunc, _ := e.Step(obs, a); term || trunc {
					e.Reset(obs)
				}
			}
		})
	}
	b.Run("Vec/CartPole-v1/n=4", func(b *testing.B) {
		v := must(MakeVec("CartPole-v1", 4, 1))
		acts := []int{0, 1, 1, 0}
		b.ReportAllocs()
		for b.Loop() {
			v.StepDiscrete(acts)
		}
	})
}
