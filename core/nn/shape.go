package nn

import "fmt"

// Dims is the shape of one sample: C channels of H×W. A flat vector of n
// values is Dims{n, 1, 1}.
type Dims struct{ C, H, W int }

// Size is C*H*W, the number of float32 values of one sample.
func (d Dims) Size() int { return d.C * d.H * d.W }

// String prints "4" for a vector and "4x84x84" for an image.
func (d Dims) String() string {
	if d.H == 1 && d.W == 1 {
		return fmt.Sprint(d.C)
	}
	return fmt.Sprintf("%dx%dx%d", d.C, d.H, d.W)
}

// LayerShape is what a hardware model needs to cost one layer.
type LayerShape struct {
	Kind           string // "dense", "conv" or "scale"
	In, Out        Dims
	Act            Activation
	Kernel, Stride int // conv only

	// GEMM is the forward matrix product of one sample as M, N, K
	// (an M×K times K×N product): dense is 1×out×in; conv is the im2col
	// product Cout × (Hout*Wout) × (Cin*kernel*kernel). Zero for scale.
	GEMM [3]int
	// MACs is the number of multiply-accumulates of one sample's forward
	// pass (M*N*K); the backward pass costs MACs for the weight gradient
	// and MACs again for the input gradient (skipped for the first layer).
	MACs   int
	Params int // weights and biases
}

// Shape is a network's layer list with totals.
type Shape struct {
	In, Out Dims
	Layers  []LayerShape
	// MACs is the forward multiply-accumulates per sample.
	MACs int
	// BackwardMACs is the multiply-accumulates per sample of a backward
	// pass with parameter gradients and no input gradient for the network
	// input, as in training.
	BackwardMACs int
	Params       int
}

// Shape returns the layer shapes and totals, for hardware cost models and
// for display. For the CleanRL CartPole actor 4-64-64-2 it reports 4480
// MACs and 4610 parameters.
func (n *Net) Shape() Shape {
	s := Shape{In: n.in, Out: n.out}
	first := true
	for i, l := range n.layers {
		ls := l.shape()
		ls.Act = n.acts[i]
		s.Layers = append(s.Layers, ls)
		s.MACs += ls.MACs
		s.Params += ls.Params
		if ls.MACs > 0 {
			s.BackwardMACs += ls.MACs // weight gradient
			if !first {
				s.BackwardMACs += ls.MACs // input gradient
			}
			first = false
		}
	}
	return s
}

// String renders the shape as a small table.
func (s Shape) String() string {
	out := fmt.Sprintf("in %v -> out %v: %d MACs/sample forward, %d backward, %d params\n", s.In, s.Out, s.MACs, s.BackwardMACs, s.Params)
	for _, l := range s.Layers {
		out += fmt.Sprintf("  %-5s %10v -> %-10v %-8v MACs %9d params %8d\n", l.Kind, l.In, l.Out, l.Act, l.MACs, l.Params)
	}
	return out
}
