package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/nn"
)

// A training step as in CleanRL: zero the gradients, forward, loss,
// backward, clip, Adam. The net learns XOR.
func ExampleNewMLP() {
	rng := rand.New(rand.NewPCG(1, 2))
	net, err := nn.NewMLP([]int{2, 16, 1}, nn.Tanh, nn.Identity)
	if err != nil {
		panic(err)
	}
	net.InitOrthogonal(rng, math.Sqrt2, 1)
	opt, _ := nn.NewAdam(0.05, net)
	x := []float32{0, 0, 0, 1, 1, 0, 1, 1}
	target := []float32{0, 1, 1, 0}
	y, dy := make([]float32, 4), make([]float32, 4)
	for step := 0; step <= 300; step++ {
		net.ZeroGrad()
		net.Forward(y, x)
		loss := nn.MSE(dy, y, target, nil)
		net.Backward(nil, dy)
		nn.ClipGradNorm(0.5, net)
		opt.Step()
		if step == 0 || step == 300 {
			fmt.Printf("step %d: loss below 0.01: %v\n", step, loss < 0.01)
		}
	}
	net.Forward(y, x)
	r := func(v float32) int { return int(math.Round(float64(v))) }
	fmt.Println("xor:", r(y[0]), r(y[1]), r(y[2]), r(y[3]))
	// Output:
	// step 0: loss below 0.01: false
	// step 300: loss below 0.01: true
	// xor: 0 1 1 0
}

// The categorical head of discrete PPO: sample in the rollout, then
// log-probabilities, entropies and their gradient in the update.
func ExampleCategoricalSample() {
	rng := rand.New(rand.NewPCG(3, 4))
	logits := []float32{0, 0, 2, -2} // two rows of two actions
	actions, logp := make([]int, 2), make([]float32, 2)
	nn.CategoricalSample(actions, logp, logits, 2, rng)
	ent := make([]float32, 2)
	nn.CategoricalLogProb(logp, ent, logits, 2, actions)
	fmt.Printf("entropy of a fair coin %.4f = ln 2; of the skewed row %.4f\n", ent[0], ent[1])
	// d(mean log-prob)/d logits for the sampled actions:
	dlogits := make([]float32, 4)
	nn.CategoricalBackward(dlogits, logits, 2, actions, []float32{0.5, 0.5}, nil)
	fmt.Printf("gradients sum to zero per row: %.1f %.1f\n", dlogits[0]+dlogits[1], dlogits[2]+dlogits[3])
	// Output:
	// entropy of a fair coin 0.6931 = ln 2; of the skewed row 0.0901
	// gradients sum to zero per row: 0.0 0.0
}

// The Gaussian head of continuous PPO with a state-independent log-std.
func ExampleNewDiagGaussian() {
	head := nn.NewDiagGaussian(2, 0) // two action dimensions, sigma = 1
	mean := []float32{0.5, -0.5}
	actions := []float32{0.5, -0.5} // the mode
	logp, ent := make([]float32, 1), make([]float32, 1)
	head.LogProb(logp, ent, mean, actions)
	fmt.Printf("log pi(mode) = %.4f = -log(2 pi); entropy %.4f\n", logp[0], ent[0])
	// Output:
	// log pi(mode) = -1.8379 = -log(2 pi); entropy 2.8379
}

// Target networks: a copy, then soft updates.
func ExamplePolyak() {
	q, _ := nn.NewMLP([]int{3, 8, 2}, nn.ReLU, nn.Identity)
	q.InitPyTorch(rand.New(rand.NewPCG(5, 6)))
	target := q.Clone()
	q.Params()[0] += 1
	nn.Polyak(target.Params(), q.Params(), 0.005)
	fmt.Printf("target moved %.3f of the way\n", target.Params()[0]-(q.Params()[0]-1))
	// Output:
	// target moved 0.005 of the way
}

func ExampleNewNatureCNN() {
	net, _ := nn.NewNatureCNN(6)
	s := net.Shape()
	fmt.Printf("%v -> %v, %d params, %.2f M MACs per frame\n", s.In, s.Out, s.Params, float64(s.MACs)/1e6)
	for _, l := range s.Layers[1:4] {
		fmt.Printf("conv %v -> %v GEMM %v\n", l.In, l.Out, l.GEMM)
	}
	// Output:
	// 4x84x84 -> 6, 1687206 params, 9.35 M MACs per frame
	// conv 4x84x84 -> 32x20x20 GEMM [32 400 256]
	// conv 32x20x20 -> 64x9x9 GEMM [64 81 512]
	// conv 64x9x9 -> 64x7x7 GEMM [64 49 576]
}
