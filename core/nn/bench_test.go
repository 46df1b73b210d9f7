package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ppoNets returns the CleanRL CartPole actor (4-64-64-2, tanh) and critic
// (4-64-64-1), initialized as layer_init does.
func ppoNets() (actor, critic *Net) {
	rng := rand.New(rand.NewPCG(1, 1))
	actor, _ = NewMLP([]int{4, 64, 64, 2}, Tanh, Identity)
	critic, _ = NewMLP([]int{4, 64, 64, 1}, Tanh, Identity)
	actor.InitOrthogonal(rng, math.Sqrt2, 0.01)
	critic.InitOrthogonal(rng, math.Sqrt2, 1)
	return actor, critic
}

// BenchmarkPPOInference is the per-step inference of the PPO rollout: actor
// and critic forward for 4 CartPole observations, then sampling.
func BenchmarkPPOInference(b *testing.B) {
	actor, critic := ppoNets()
	rng := rand.New(rand.NewPCG(2, 2))
	obs := randn32(rng, 4*4, 0.05)
	logits, values := make([]float32, 4*2), make([]float32, 4)
	actions, logp := make([]int, 4), make([]float32, 4)
	step := func() {
		actor.Forward(logits, obs)
		critic.Forward(values, obs)
		CategoricalSample(actions, logp, logits, 2, rng)
	}
	step() // size the buffers outside the measurement
	b.ReportAllocs()
	for b.Loop() {
		step()
	}
}

// BenchmarkPPOMinibatch is one PPO gradient step on a minibatch of 128:
// forward and backward of actor and critic, the categorical head, global
// norm clipping and Adam. The learning rate is 0 so that the same minibatch,
// fed thousands of times, does not drive the policy to saturation, where
// vanishing gradients turn into float32 subnormals and every operation on
// them is dozens of times slower (an artefact of the benchmark, not of
// training on fresh data); Adam does the same arithmetic either way.
func BenchmarkPPOMinibatch(b *testing.B) {
	actor, critic := ppoNets()
	opt, _ := NewAdam(0, actor, critic)
	opt.Eps = 1e-5
	rng := rand.New(rand.NewPCG(3, 3))
	const mb = 128
	obs := randn32(rng, mb*4, 0.5)
	logits, dlogits := make([]float32, mb*2), make([]float32, mb*2)
	values, dvalues, returns := make([]float32, mb), make([]float32, mb), randn32(rng, mb, 10)
	actions := make([]int, mb)
	logp, ent, dlogp, dent := make([]float32, mb), make([]float32, mb), randn32(rng, mb, 0.01), make([]float32, mb)
	for i := range actions {
		actions[i] = rng.IntN(2)
		dent[i] = -0.01 / mb
	}
	actor.Forward(logits, obs) // size the buffers outside the measurement
	critic.Forward(values, obs)
	b.ReportAllocs()
	for b.Loop() {
		actor.ZeroGrad()
		critic.ZeroGrad()
		actor.Forward(logits, obs)
		CategoricalLogProb(logp, ent, logits, 2, actions)
		CategoricalBackward(dlogits, logits, 2, actions, dlogp, dent)
		actor.Backward(nil, dlogits)
		critic.Forward(values, obs)
		MSE(dvalues, values, returns, nil)
		critic.Backward(nil, dvalues)
		ClipGradNorm(0.5, actor, critic)
		opt.Step()
	}
}

// BenchmarkMLP sweeps the batch for the 4-64-64-2 actor: forward alone, and
// forward plus backward with parameter gradients.
func BenchmarkMLP(b *testing.B) {
	actor, _ := ppoNets()
	rng := rand.New(rand.NewPCG(4, 4))
	for _, batch := range []int{1, 4, 32, 128, 512} {
		x := randn32(rng, batch*4, 1)
		y := make([]float32, batch*2)
		actor.Reserve(batch)
		b.Run(fmt.Sprintf("forward/b=%d", batch), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				actor.Forward(y, x)
			}
		})
		b.Run(fmt.Sprintf("forward+backward/b=%d", batch), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				actor.Forward(y, x)
				actor.Backward(nil, y)
			}
		})
	}
}

// BenchmarkAdam steps over the 9155 parameters of the PPO actor and critic.
func BenchmarkAdam(b *testing.B) {
	actor, critic := ppoNets()
	opt, _ := NewAdam(2.5e-4, actor, critic)
	for i := range actor.Grads() {
		actor.Grads()[i] = 0.01
	}
	b.ReportAllocs()
	for b.Loop() {
		opt.Step()
	}
}

// BenchmarkNatureCNN is the Pong DQN network on a batch of 32 frames.
func BenchmarkNatureCNN(b *testing.B) {
	n, _ := NewNatureCNN(6)
	rng := rand.New(rand.NewPCG(5, 5))
	n.InitPyTorch(rng)
	x := make([]float32, 32*4*84*84)
	for i := range x {
		x[i] = float32(rng.IntN(256))
	}
	y := make([]float32, 32*6)
	n.Reserve(32)
	b.Run("forward/b=32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n.Forward(y, x)
		}
	})
	b.Run("forward+backward/b=32", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n.Forward(y, x)
			n.Backward(nil, y)
		}
	})
}
