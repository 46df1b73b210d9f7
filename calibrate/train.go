package calibrate

import (
	"context"
	"fmt"
	"math"
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
		Nets:  []hw.Net{{Name: "mlp", Layers: hw.MLPLayers(s.Sizes...), FW: 1, BW: 1, WA: 1}},
		Batch: s.Batch, Capacity: 2, Fanout: 2, Actors: 1,
		DataPointBytes: 4 * (s.Sizes[0] + s.Sizes[len(s.Sizes)-1]),
		LossOps:        1,
	}
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
	rng := rand.New(rand.NewPCG(7, uint64(shape.Batch)))
	net.InitPyTorch(rng)
	opt, err := nn.NewAdam(0, net)
	if err != nil {
		return TrainPoint{}, err
	}
	in, out := shape.Sizes[0], shape.Sizes[len(shape.Sizes)-1]
	x := make([]float32, shape.Batch*in)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	target := make([]float32, shape.Batch*out)
	for i := range target {
		target[i] = float32(rng.NormFloat64())
	}
	pred, grad := make([]float32, len(target)), make([]float32, len(target))
	step := func() {
		net.ZeroGrad()
		net.Forward(pred, x)
		nn.MSE(grad, pred, target, nil)
		net.Backward(nil, grad)
		opt.Step()
	}
	t, err := timeRepeats(ctx, step, repeats, minTime)
	return TrainPoint{Shape: shape, Timing: t}, err
}

// timeRepeats runs f once to warm up, then repeats times a batch of calls
// sized to last about minTime, and returns the median per-call time.
func timeRepeats(ctx context.Context, f func(), repeats int, minTime time.Duration) (Timing, error) {
	if repeats < 1 || repeats > 1000 {
		return Timing{}, fmt.Errorf("repeats %d is out of range: must be 1..1000", repeats)
	}
	if minTime < time.Microsecond || minTime > time.Minute {
		return Timing{}, fmt.Errorf("time per repeat %v is out of range: must be 1µs..1m", minTime)
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
	med, spread := medianSpread(per)
	return Timing{Seconds: med, Spread: spread, Repeats: repeats}, nil
}

// CPUFit is the CPU model's training-step parameters fitted to measured
// steps: the sustained fp32 rate of one core and the fixed cost per
// framework op (hw's op enumeration of a training step), with the memory
// bandwidth the roofline's elementwise ops use held at MemBWGBs.
type CPUFit struct {
	CoreGFLOPS float64 `json:"core_gflops"`
	OpUS       float64 `json:"op_overhead_us"`
	MemBWGBs   float64 `json:"mem_bw_gbs"`
	// RMSLogError is the root mean square of ln(predicted / measured) over
	// the fitted points: 0.1 is about 10%.
	RMSLogError float64 `json:"rms_log_error"`
}

// Spec returns base with the fit applied for threads-thread training:
// PeakGFLOPS is the whole CPU's (CoreGFLOPS x Cores, as hw scales the rate
// by threads / cores), OpOverheadUS and MemBWGBs the fitted ones.
func (f CPUFit) Spec(base hw.CPUSpec, threads int) hw.CPUSpec {
	s := base
	s.PeakGFLOPS = f.CoreGFLOPS * float64(s.Cores)
	s.OpOverheadUS = f.OpUS
	s.MemBWGBs = f.MemBWGBs
	s.TrainThreads = threads
	return s
}

// PredictTrainStep returns the hw model's time for one training step of
// shape on a one-device platform holding only cpu.
func PredictTrainStep(cpu hw.CPUSpec, shape TrainShape) (float64, error) {
	w := shape.Workload()
	e, err := hw.NewEstimator(&hw.Platform{Name: "calibrate", CPU: &cpu}, &w, nil)
	if err != nil {
		return 0, err
	}
	return e.Seconds(hw.CPU, hw.TrainStep, shape.Batch)
}

// FitTrainStep fits CPUFit to the measured points on base (whose other
// fields, cores and clock among them, are kept) for one-thread training:
// it minimizes the squared log error of PredictTrainStep over the core
// rate (0.1..10000 GFLOPS) and the per-op cost (0..1000 µs), by a
// coarse grid in log space refined by coordinate search. Relative error,
// not absolute: a 4096-wide step must not drown a 16-wide one.
func FitTrainStep(base hw.CPUSpec, memBWGBs float64, points []TrainPoint) (CPUFit, error) {
	if len(points) < 2 {
		return CPUFit{}, fmt.Errorf("%d measured training steps: the fit of two parameters needs at least 2", len(points))
	}
	if !(memBWGBs > 0) || math.IsInf(memBWGBs, 0) {
		return CPUFit{}, fmt.Errorf("memory bandwidth %g GB/s: must be positive", memBWGBs)
	}
	cost := func(gflops, opUS float64) float64 {
		spec := CPUFit{CoreGFLOPS: gflops, OpUS: opUS, MemBWGBs: memBWGBs}.Spec(base, 1)
		var s float64
		for _, p := range points {
			pred, err := PredictTrainStep(spec, p.Shape)
			if err != nil || pred <= 0 {
				return math.Inf(1)
			}
			d := math.Log(pred / p.Seconds)
			s += d * d
		}
		return s
	}
	// ln(rate) over [ln 0.1, ln 1e4]; the op cost on a log scale from
	// 1 ns, plus 0 itself.
	bestR, bestO, best := 1.0, 0.0, math.Inf(1)
	for lr := math.Log(0.1); lr <= math.Log(1e4); lr += 0.1 {
		for _, o := range append([]float64{0}, logGrid(1e-3, 1000, 0.2)...) {
			if c := cost(math.Exp(lr), o); c < best {
				bestR, bestO, best = math.Exp(lr), o, c
			}
		}
	}
	for step := 0.05; step > 1e-4; step /= 2 {
		for improved := true; improved; {
			improved = false
			for _, cand := range [][2]float64{
				{bestR * math.Exp(step), bestO}, {bestR * math.Exp(-step), bestO},
				{bestR, bestO*math.Exp(step) + 1e-4*step}, {bestR, math.Max(0, bestO*math.Exp(-step)-1e-4*step)},
			} {
				if c := cost(cand[0], cand[1]); c < best {
					bestR, bestO, best, improved = cand[0], cand[1], c, true
				}
			}
		}
	}
	return CPUFit{CoreGFLOPS: bestR, OpUS: bestO, MemBWGBs: memBWGBs, RMSLogError: math.Sqrt(best / float64(len(points)))}, nil
}

// logGrid returns lo, lo e^step, ... up to hi.
func logGrid(lo, hi, step float64) []float64 {
	var out []float64
	for v := math.Log(lo); v <= math.Log(hi)+1e-12; v += step {
		out = append(out, math.Exp(v))
	}
	return out
}
