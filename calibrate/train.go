package calibrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
)

// TrainShape is one training-step workload: an MLP's layer sizes (input,
// hidden..., output) and the batch it trains on.
type TrainShape struct {
	Sizes []int `json:"sizes"`
	Batch int   `json:"batch"`
}

// String is "64-256-256-8 @ 128".
func (s TrainShape) String() string {
	parts := make([]string, len(s.Sizes))
	for i, v := range s.Sizes {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, "-") + " @ " + strconv.Itoa(s.Batch)
}

// Workload returns the hw workload of one supervised training step of the
// shape: one trained net, one forward, one input-gradient and one
// weight-gradient pass, Adam, and the loss (one op). The replay fields
// are placeholders the training-step model does not read.
func (s TrainShape) Workload() hw.Workload {
	return hw.Workload{
		Name:  "calibrate " + s.String(),
		Nets:  []hw.Net{{Name: "mlp", Layers: mlpLayers(s.Sizes), FW: 1, BW: 1, WA: 1}},
		Batch: s.Batch, Capacity: 2, Fanout: 2, Actors: 1,
		DataPointBytes: 4 * (s.Sizes[0] + s.Sizes[len(s.Sizes)-1]),
		LossOps:        1,
	}
}

// mlpLayers are the layers of the MLPs MeasureTrainStep and
// MeasureInference build: ReLU hidden layers, a linear output.
func mlpLayers(sizes []int) []hw.Layer {
	layers := hw.MLPLayers(sizes...)
	for i := range layers[:len(layers)-1] {
		layers[i].Act = hw.ActReLU
	}
	return layers
}

// check validates a shape: 2..8 layer sizes of 1..4096 and a batch of
// 1..8192 (a calibration that fits in a few seconds).
func (s TrainShape) check() error {
	if len(s.Sizes) < 2 || len(s.Sizes) > 8 {
		return fmt.Errorf("MLP %v: give 2..8 layer sizes (input, hidden..., output)", s.Sizes)
	}
	for _, v := range s.Sizes {
		if v < 1 || v > 4096 {
			return fmt.Errorf("MLP %v: layer size %d is out of range: must be 1..4096", s.Sizes, v)
		}
	}
	if s.Batch < 1 || s.Batch > 8192 {
		return fmt.Errorf("MLP %v: batch %d is out of range: must be 1..8192", s.Sizes, s.Batch)
	}
	return nil
}

// Timing is the host time of one primitive on one shape: the median of
// the repeats and their spread, (max - min) / median.
type Timing struct {
	Seconds float64 `json:"seconds"`
	Spread  float64 `json:"spread"`
	Repeats int     `json:"repeats"`
}

// TrainPoint is one measured training step.
type TrainPoint struct {
	Shape TrainShape `json:"shape"`
	Timing
}

// MeasureTrainStep times the real training step of rlx's core (core/nn: a
// forward pass, the MSE loss, the backward pass and Adam) on shape, on one
// goroutine, as the learners run it. Each repeat runs enough steps to last
// about minTime and yields the mean step time; the median of repeats is
// reported. The learning rate is 0: Adam does the same arithmetic, and the
// weights cannot drift into float32 subnormals, which would time a
// different machine (core/nn's benchmarks do the same).
func MeasureTrainStep(ctx context.Context, shape TrainShape, repeats int, minTime time.Duration) (TrainPoint, error) {
	if err := shape.check(); err != nil {
		return TrainPoint{}, err
	}
	net, err := nn.NewMLP(shape.Sizes, nn.ReLU, nn.Identity)
	if err != nil {
		return TrainPoint{}, err
	}
	rng, opt, err := initForTiming(net, shape.Batch)
	if err != nil {
		return TrainPoint{}, err
	}
	in, out := shape.Sizes[0], shape.Sizes[len(shape.Sizes)-1]
	x := normals(rng, shape.Batch*in)
	target := normals(rng, shape.Batch*out)
	t, err := timeRepeats(ctx, supervisedStep(net, opt, x, target), repeats, minTime)
	return TrainPoint{Shape: shape, Timing: t}, err
}

// initForTiming initializes net as PyTorch would, from a generator seeded
// by the batch, and returns the generator (for the step's inputs) and an
// Adam with learning rate 0, so that repeated steps leave the weights as
// they are.
func initForTiming(net *nn.Net, batch int) (*rand.Rand, *nn.Adam, error) {
	rng := rand.New(rand.NewPCG(7, uint64(batch)))
	net.InitPyTorch(rng)
	opt, err := nn.NewAdam(0, net)
	return rng, opt, err
}

// supervisedStep returns one training step of net on inputs x and
// regression targets target: forward, MSE, backward, the optimizer.
func supervisedStep(net *nn.Net, opt *nn.Adam, x, target []float32) func() {
	pred, grad := make([]float32, len(target)), make([]float32, len(target))
	return func() {
		net.ZeroGrad()
		net.Forward(pred, x)
		nn.MSE(grad, pred, target, nil)
		net.Backward(nil, grad)
		opt.Step()
	}
}

// timeRepeatsErr is timeRepeats of a call that can fail: the timing, and
// the first error a call returned.
func timeRepeatsErr(ctx context.Context, f func() error, repeats int, minTime time.Duration) (Timing, error) {
	var first error
	t, err := timeRepeats(ctx, func() {
		if err := f(); err != nil && first == nil {
			first = err
		}
	}, repeats, minTime)
	if err != nil {
		return Timing{}, err
	}
	return t, first
}

// timeRepeats runs f once to warm up, then repeats times a batch of calls
// sized to last about minTime, and returns the median per-call time.
func timeRepeats(ctx context.Context, f func(), repeats int, minTime time.Duration) (Timing, error) {
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	start := time.Now()
	f()
	calls := max(1, int(minTime/max(time.Since(start), time.Nanosecond)))
	per := make([]float64, 0, repeats)
	for range repeats {
		if err := ctx.Err(); err != nil {
			return Timing{}, err
		}
		t0 := time.Now()
		for range calls {
			f()
		}
		per = append(per, time.Since(t0).Seconds()/float64(calls))
	}
	return timingOf(per), nil
}
