package calibrate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
)

// ConvShape is one ConvNet training-step workload: the input, an optional
// pixel scaling, convolutions (ReLU), dense layers after the flattening
// (ReLU, the last linear) and the batch.
type ConvShape struct {
	Name  string      `json:"name,omitempty"` // shown instead of the layers when set
	In    nn.Dims     `json:"in"`
	Scale float32     `json:"scale,omitempty"` // 0: no scaling layer
	Convs []ConvLayer `json:"convs"`
	Dense []int       `json:"dense"`
	Batch int         `json:"batch"`
}

// ConvLayer is one convolution: Out channels of Kernel x Kernel, Stride.
type ConvLayer struct{ Out, Kernel, Stride int }

// NatureCNNShape is the Pong network of 000 §VII-A (nn.NewNatureCNN) with
// actions outputs, at batch.
func NatureCNNShape(actions, batch int) ConvShape {
	return ConvShape{
		Name: fmt.Sprintf("nature-cnn %d actions", actions),
		In:   nn.Dims{C: 4, H: 84, W: 84}, Scale: 1.0 / 255,
		Convs: []ConvLayer{{32, 8, 4}, {64, 4, 2}, {64, 3, 1}},
		Dense: []int{512, actions}, Batch: batch,
	}
}

// String is "3x32x32 c16k5s2 64-4 @ 8", or the name and the batch.
func (s ConvShape) String() string {
	if s.Name != "" {
		return s.Name + " @ " + strconv.Itoa(s.Batch)
	}
	parts := []string{fmt.Sprintf("%dx%dx%d", s.In.C, s.In.H, s.In.W)}
	for _, c := range s.Convs {
		parts = append(parts, fmt.Sprintf("c%dk%ds%d", c.Out, c.Kernel, c.Stride))
	}
	dense := make([]string, len(s.Dense))
	for i, d := range s.Dense {
		dense[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, " ") + " " + strings.Join(dense, "-") + " @ " + strconv.Itoa(s.Batch)
}

// Limits of a ConvShape: a training step of a few milliseconds to a
// second.
const (
	MaxConvBatch    = 256
	MaxConvChannels = 1024
	MaxConvPixels   = 256 // input height and width
	MaxConvLayers   = 4
	MaxConvDense    = 4096 // dense widths, the outputs among them
)

// Net builds the shape's network, or says which value is out of range.
func (s ConvShape) Net() (*nn.Net, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	specs := []nn.LayerSpec{}
	if s.Scale != 0 {
		specs = append(specs, nn.Scale(s.Scale))
	}
	for _, c := range s.Convs {
		specs = append(specs, nn.Conv(c.Out, c.Kernel, c.Stride, nn.ReLU))
	}
	for i, d := range s.Dense {
		act := nn.ReLU
		if i == len(s.Dense)-1 {
			act = nn.Identity
		}
		specs = append(specs, nn.Dense(d, act))
	}
	net, err := nn.NewNet(s.In, specs...)
	if err != nil {
		return nil, fmt.Errorf("calibrate: ConvNet %s: %w", s, err)
	}
	return net, nil
}

// check validates the ranges; nn.NewNet checks that the layers fit.
func (s ConvShape) check() error {
	in := fmt.Sprintf("ConvNet %s", s)
	if err := checkRange(in+": input channels", s.In.C, 1, MaxConvChannels); err != nil {
		return err
	}
	if err := checkRange(in+": input height", s.In.H, 1, MaxConvPixels); err != nil {
		return err
	}
	if err := checkRange(in+": input width", s.In.W, 1, MaxConvPixels); err != nil {
		return err
	}
	if err := checkRange(in+": convolutions", len(s.Convs), 1, MaxConvLayers); err != nil {
		return err
	}
	for _, c := range s.Convs {
		if err := checkRange(in+": output channels", c.Out, 1, MaxConvChannels); err != nil {
			return err
		}
		if err := checkRange(in+": kernel", c.Kernel, 1, MaxConvPixels); err != nil {
			return err
		}
		if err := checkRange(in+": stride", c.Stride, 1, MaxConvPixels); err != nil {
			return err
		}
	}
	if err := checkRange(in+": dense layers", len(s.Dense), 1, MaxConvLayers); err != nil {
		return err
	}
	for _, d := range s.Dense {
		if err := checkRange(in+": dense width", d, 1, MaxConvDense); err != nil {
			return err
		}
	}
	return checkRange(in+": batch", s.Batch, 1, MaxConvBatch)
}

// Workload returns the hw workload of one supervised training step of the
// shape, as TrainShape.Workload does for an MLP.
func (s ConvShape) Workload() (hw.Workload, error) {
	net, err := s.Net()
	if err != nil {
		return hw.Workload{}, err
	}
	return hw.Workload{Name: "calibrate " + s.String(), Batch: s.Batch, Capacity: 2, Fanout: 2, Actors: 1,
		DataPointBytes: 4 * (s.In.Size() + s.Dense[len(s.Dense)-1]),
		Nets:           []hw.Net{{Name: "convnet", Layers: agents.HWLayers(net.Shape()), FW: 1, BW: 1, WA: 1}},
		LossOps:        1}, nil
}

// MeasureConvTrainStep times the training step of the ConvNet of shape on
// Batch inputs of random pixel values (0..255), as MeasureTrainStep times
// an MLP's: ZeroGrad, Forward, MSE against fixed normal targets, Backward
// and Adam with learning rate 0, on one goroutine. The Nature CNN
// (NatureCNNShape) is Pong's learner step without the target network's
// forward; at batch 32 it takes tens to hundreds of milliseconds on a CPU.
//
// A value out of its range (the Max* constants, repeats and minTime as
// MeasureTrainStep) or layers that do not fit the input return an error
// naming it; a cancelled ctx returns ctx.Err().
func MeasureConvTrainStep(ctx context.Context, shape ConvShape, repeats int, minTime time.Duration) (Timing, error) {
	if err := checkTiming(ctx, repeats, minTime); err != nil {
		return Timing{}, err
	}
	net, err := shape.Net()
	if err != nil {
		return Timing{}, err
	}
	rng, opt, err := initForTiming(net, shape.Batch)
	if err != nil {
		return Timing{}, err
	}
	x := make([]float32, shape.Batch*net.In().Size())
	for i := range x {
		x[i] = float32(rng.IntN(256))
	}
	target := normals(rng, shape.Batch*net.Out().Size())
	return timeRepeats(ctx, supervisedStep(net, opt, x, target), repeats, minTime)
}
