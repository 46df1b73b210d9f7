package ddpg

import (
	"math/rand/v2"
	"testing"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
)

// workloadBatch returns n random transitions for spec: Gaussian
// observations, actions uniform in the box, negative rewards, importance
// weights in [0.2, 1] and every fourth transition terminal.
func workloadBatch(spec *env.Spec, n int, rng *rand.Rand) *replay.Batch {
	od, ad := spec.Obs.Dim(), len(spec.Act.Low)
	b := &replay.Batch{
		Idx: make([]int, n), Obs: make([]float32, od*n), NextObs: make([]float32, od*n),
		Actions: make([]float32, ad*n), Rewards: make([]float32, n), Weights: make([]float32, n),
		Terminated: make([]bool, n), Truncated: make([]bool, n),
	}
	for i := range od * n {
		b.Obs[i] = float32(rng.NormFloat64())
		b.NextObs[i] = float32(rng.NormFloat64())
	}
	for i := range n {
		for j := range ad {
			lo, hi := float64(spec.Act.Low[j]), float64(spec.Act.High[j])
			b.Actions[i*ad+j] = float32(lo + (hi-lo)*rng.Float64())
		}
		b.Rewards[i] = float32(-5 * rng.Float64())
		b.Weights[i] = float32(0.2 + 0.8*rng.Float64())
		b.Terminated[i] = i%4 == 0
	}
	return b
}

// BenchmarkTrainHopperWorkload is the learner of seed 000's Hopper
// configuration: DDPG with CleanRL's 256-256 networks on the
// Hopper-workload shapes (11 observations, 3 actions) at batch 16384. One
// op is one gradient step; the actor and target updates come every
// PolicyFrequency (2) steps, so an even number of steps averages them in.
// It reports host gradient steps per second (GPS).
func BenchmarkTrainHopperWorkload(b *testing.B) {
	const batch = 16384
	e, err := env.Make("Hopper-workload", rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	c, _ := CleanRL(DDPG, "Hopper-workload", 1000, 100)
	a, err := New(e.Spec(), c, 3)
	if err != nil {
		b.Fatal(err)
	}
	l, err := a.Learner()
	if err != nil {
		b.Fatal(err)
	}
	tb := workloadBatch(e.Spec(), batch, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, batch)
	step := 0
	for ; step < 2; step++ { // size the buffers outside the measurement
		l.Train(nil, tb, td, step)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.Train(nil, tb, td, step)
		step++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "GPS")
}
