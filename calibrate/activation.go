package calibrate

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/rlxdev/rlx/core/nn/kernel"
	"github.com/rlxdev/rlx/hw"
)

// activationElems is the length of the vectors the activation probes run
// over: 16 Ki float32, 64 KiB per operand, the size of a hidden layer's
// output at batch 128 to 256, which stays in the L2 as a training step's
// does.
const activationElems = 16 << 10

// ActivationTimings are the measured costs per element of core/nn's
// activation kernels (hw.ActivationSpec), each the median over rounds.
type ActivationTimings struct {
	ReLU         Timing `json:"relu"`
	ReLUBackward Timing `json:"relu_backward"`
	Tanh         Timing `json:"tanh"`
	TanhBackward Timing `json:"tanh_backward"`
}

// Spec returns the per-element costs in ns.
func (a ActivationTimings) Spec() *hw.ActivationSpec {
	return &hw.ActivationSpec{ReLUNS: a.ReLU.Seconds * 1e9, ReLUBackwardNS: a.ReLUBackward.Seconds * 1e9,
		TanhNS: a.Tanh.Seconds * 1e9, TanhBackwardNS: a.TanhBackward.Seconds * 1e9}
}

// MeasureActivations times core/nn's activation kernels (kernel.ReLU,
// ReLUBackward, Tanh, TanhBackward) over activationElems elements of
// normal noise, half of them negative as a layer's pre-activations are,
// and returns the time per element of each: rounds (1..MaxRepeats) of
// about minTime, median and spread over the rounds, the four kernels
// interleaved in each round. A cancelled ctx returns ctx.Err().
func MeasureActivations(ctx context.Context, rounds int, minTime time.Duration) (ActivationTimings, error) {
	if err := checkTiming(ctx, rounds, minTime); err != nil {
		return ActivationTimings{}, err
	}
	rng := rand.New(rand.NewPCG(11, activationElems))
	x, dy := normals(rng, activationElems), normals(rng, activationElems)
	y, dx := make([]float32, activationElems), make([]float32, activationElems)
	kernel.Tanh(y, x) // outputs in (-1, 1) for the tanh derivative
	kernels := []func(){
		func() { kernel.ReLU(dx, x) },
		func() { kernel.ReLUBackward(dx, dy, x) },
		func() { kernel.Tanh(dx, x) },
		func() { kernel.TanhBackward(dx, dy, y) },
	}
	per := make([][]float64, len(kernels))
	for range rounds {
		for i, k := range kernels {
			t, err := timeRepeats(ctx, k, 1, minTime)
			if err != nil {
				return ActivationTimings{}, err
			}
			per[i] = append(per[i], t.Seconds/activationElems)
		}
	}
	return ActivationTimings{ReLU: timingOf(per[0]), ReLUBackward: timingOf(per[1]), Tanh: timingOf(per[2]), TanhBackward: timingOf(per[3])}, nil
}
