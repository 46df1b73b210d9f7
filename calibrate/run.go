package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/nn/kernel"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/machine"
)

// Schema names the JSON layout of a Result.
const Schema = "rlx.calibrate/v2"

// Options control a calibration.
type Options struct {
	// Quick measures fewer points, shorter: within a minute on 2 cores.
	Quick bool
	// Progress, when set, is called after each measurement with how many
	// of total are done and what was measured.
	Progress func(done, total int, what string)
}

// Point is one measured primitive on one shape, with the model's time for
// it on the calibrated CPU. Error is predicted / measured - 1.
type Point struct {
	Primitive  string  `json:"primitive"`
	Shape      string  `json:"shape"`
	PredictedS float64 `json:"predicted_s"`
	MeasuredS  float64 `json:"measured_s"`
	Error      float64 `json:"error"`
	// Spread is (max - min) / median of the per-round times.
	Spread  float64 `json:"spread"`
	Repeats int     `json:"repeats"`
}

// EnvStep is the measured host time of one environment step.
type EnvStep struct {
	Env    string `json:"env"`
	Timing Timing `json:"timing"`
}

// Result is one calibration of the host.
type Result struct {
	Schema string    `json:"schema"`
	When   time.Time `json:"when"`
	Quick  bool      `json:"quick"`
	// Seconds is the calibration's own wall time; Rounds how many times
	// each point was measured (its median is reported).
	Seconds float64 `json:"seconds"`
	Rounds  int     `json:"rounds"`
	Host    HostCPU `json:"host"`
	// Kernel is core/nn's GEMM micro-kernel family; Machine what rlx was
	// built with and ran on, GOMAXPROCS included (the GAE probe splits
	// over the cores).
	Kernel  string       `json:"kernel"`
	Machine machine.Host `json:"machine"`
	// Latency is each cache level's load-to-use latency from the chase.
	Latency Latencies `json:"latency_ns"`
	// CopyTiming is the timing of the copy that measured the bandwidth
	// past the caches (Fit.MemBWGBs).
	CopyTiming Timing `json:"copy_timing"`
	// TileCallTiming is the timing of the micro-kernel call cost
	// (MeasureTileCall, Fit.TileNS).
	TileCallTiming Timing `json:"tile_call_timing"`
	// Activations are the measured costs per element of the activation
	// kernels (hw.ActivationSpec), set on the CPU the fit starts from and
	// kept through it.
	Activations ActivationTimings `json:"activations"`
	// HandoffTiming is the timing of the hand-off latency between
	// goroutines on different threads (MeasureHandoff, CPU.HandoffUS).
	HandoffTiming Timing `json:"handoff_timing"`
	Fit           CPUFit `json:"fit"`
	// Efficiency is the fitted core rate over the peak the reported clock
	// and the kernel's FMA width give; above 1 when the core runs faster
	// than the clock the system reports (turbo).
	Efficiency float64 `json:"efficiency"`
	// ClockGHz is the clock one busy core runs at (MeasureClock), turbo
	// included; 0 where rlx has no clock probe. ClockTiming is its timing
	// (of one cycle).
	ClockGHz    float64 `json:"clock_ghz"`
	ClockTiming Timing  `json:"clock_timing"`
	// GEMMGFLOPS is the rate of a large GEMM on one core (MeasureGEMMRate),
	// GEMMTiming the timing of one such GEMM, and GEMMEfficiency the rate
	// over the peak of the measured clock and the kernel's FMA width: the
	// fraction of the peak a tuned GEMM sustains, which docs/models.md
	// carries to Table IV's processor (its cpu.derived_rate). 0 without a
	// measured clock.
	GEMMGFLOPS     float64 `json:"gemm_gflops"`
	GEMMTiming     Timing  `json:"gemm_timing"`
	GEMMEfficiency float64 `json:"gemm_efficiency"`
	// Fitted are the points the fit saw, Heldout those it did not see.
	Fitted  []Point `json:"fitted"`
	Heldout []Point `json:"heldout"`
	// HeldoutMedianAbsError and HeldoutMaxAbsError summarize Heldout's
	// |Error|.
	HeldoutMedianAbsError float64 `json:"heldout_median_abs_error"`
	HeldoutMaxAbsError    float64 `json:"heldout_max_abs_error"`
	// Uncalibrated are measured primitives whose CPU model has no free
	// parameter the fit sets yet (the sum tree, insertion, GAE): the
	// model's time beside the host's, outside both summaries.
	Uncalibrated []Point   `json:"uncalibrated"`
	EnvSteps     []EnvStep `json:"env_steps"`
	// CPU is the calibrated CPU spec (the host platform's cpu section).
	CPU hw.CPUSpec `json:"-"`
}

// probe is one primitive to measure and predict.
type probe struct {
	prim, shape string
	measure     func(ctx context.Context, repeats int, minTime time.Duration) (Timing, error)
	predict     Predictor
}

// Fitted and held-out training shapes: the fit's span widths 1..400 (1..1024
// without quick) and batches 1..512; the held-out ones sit between and beyond them, with the
// learners the presets run.
var (
	fitTrain = []TrainShape{
		{[]int{4, 64, 64, 2}, 32}, {[]int{8, 32, 32, 2}, 128}, {[]int{16, 64, 64, 4}, 512},
		{[]int{64, 256, 256, 8}, 32}, {[]int{64, 256, 256, 8}, 256}, {[]int{17, 256, 256, 1}, 256},
		{[]int{3, 400, 300, 1}, 100}, {[]int{11, 64, 64, 3}, 64}, {[]int{4, 16, 16, 2}, 16},
		// Small batches: a micro-kernel call's cost and the per-op cost
		// show apart from the arithmetic only there.
		{[]int{4, 64, 64, 2}, 1}, {[]int{64, 256, 256, 8}, 4}, {[]int{3, 400, 300, 1}, 2},
	}
	fitTrainFull = []TrainShape{{[]int{256, 256, 256, 256}, 256}, {[]int{64, 1024, 1024, 8}, 32}}
	heldTrain    = []TrainShape{
		{[]int{4, 120, 84, 2}, 128}, {[]int{376, 128, 64, 17}, 128}, {[]int{32, 128, 128, 8}, 1024},
		{[]int{8, 64, 64, 64, 2}, 8}, {[]int{6, 48, 48, 3}, 24},
	}
	heldTrainFull = []TrainShape{{[]int{128, 512, 512, 16}, 64}, {[]int{24, 384, 384, 4}, 200}}
	// Two small ConvNets, for the cost of core/nn's im2col per element:
	// kernels of 5 and 3, strides 2 and 1; the Nature CNN's 8x8 stride 4
	// and 4x4 stride 2 are in neither.
	fitConv = []ConvShape{
		{In: nn.Dims{C: 3, H: 32, W: 32}, Scale: 1.0 / 255, Convs: []ConvLayer{{16, 5, 2}}, Dense: []int{32, 4}, Batch: 8},
		{In: nn.Dims{C: 2, H: 24, W: 24}, Scale: 1.0 / 255, Convs: []ConvLayer{{8, 3, 1}, {16, 3, 2}}, Dense: []int{5}, Batch: 16},
	}
	heldLearners  = []LearnerShape{{"dqn", "CartPole-v1", 128}, {"dqn", "CartPole-v1", 32}, {"td3", "Pendulum-v1", 128}}
	heldInference = [][]int{{4, 120, 84, 2}, {4, 64, 64, 2}, {3, 400, 300, 1}, {376, 256, 256, 17}}
)

// Run calibrates the host: the cache latencies and the copy bandwidth,
// then every probe in rounds (each round measures every probe once, so
// that a burst of other work on a shared machine lands on all of them
// rather than on one), the fit on the fitted training steps, and the
// prediction of every point.
func Run(ctx context.Context, opt Options) (*Result, error) {
	start := time.Now()
	res := &Result{Schema: Schema, When: start.UTC().Truncate(time.Second), Quick: opt.Quick, Host: ReadHostCPU(),
		Kernel: kernel.Impl(), Machine: machine.Current()}
	rounds, minTime := 5, 25*time.Millisecond
	if opt.Quick {
		rounds, minTime = 3, 8*time.Millisecond
	}
	res.Rounds = rounds
	fit, held, other := probes(opt.Quick)
	all := slices.Concat(fit, held, other)
	// The constants measured once, before the rounds of probes.
	var bw, tileNS, handoff float64
	long := 2*rounds + 1 // rounds of the short measurements
	setup := []struct {
		what string
		run  func() error
	}{
		{"cache and memory latency", func() error {
			lat, err := MeasureLoadLatency(ctx, DefaultLatencySizes(res.Host, opt.Quick), rounds, 1<<20)
			if err == nil {
				res.Latency, err = FitLatencies(lat, res.Host)
			}
			return err
		}},
		{"copy bandwidth", func() (err error) {
			bw, res.CopyTiming, err = MeasureCopyBandwidth(ctx, copyBytes, long)
			return err
		}},
		{"micro-kernel call", func() (err error) {
			tileNS, res.TileCallTiming, err = MeasureTileCall(ctx, long, minTime/4)
			return err
		}},
		{"activations", func() (err error) {
			res.Activations, err = MeasureActivations(ctx, long, minTime/4)
			return err
		}},
		{"thread hand-off", func() (err error) {
			handoff, res.HandoffTiming, err = MeasureHandoff(ctx, long)
			return err
		}},
		{"core clock", func() error {
			ghz, ct, err := MeasureClock(ctx, long)
			if errors.Is(err, ErrNoClockProbe) {
				return nil // no clock, no efficiency
			}
			res.ClockGHz, res.ClockTiming = ghz, ct
			return err
		}},
		{"GEMM rate", func() (err error) {
			res.GEMMGFLOPS, res.GEMMTiming, err = MeasureGEMMRate(ctx, long, minTime)
			return err
		}},
	}
	total := len(setup) + rounds*len(all)
	done := 0
	step := func(what string) {
		done++
		if opt.Progress != nil {
			opt.Progress(done, total, what)
		}
	}
	for _, m := range setup {
		if err := m.run(); err != nil {
			return nil, err
		}
		step(m.what)
	}

	times := make([][]float64, len(all))
	for range rounds {
		for i, p := range all {
			t, err := p.measure(ctx, 1, minTime)
			if err != nil {
				return nil, fmt.Errorf("calibrate: %s %s: %w", p.prim, p.shape, err)
			}
			times[i] = append(times[i], t.Seconds)
			step(p.prim + " " + p.shape)
		}
	}
	measured := make([]Timing, len(all))
	for i, ts := range times {
		measured[i] = timingOf(ts)
	}

	base := res.baseCPU()
	base.HandoffUS = handoff
	preds := make([]Predictor, len(fit))
	secs := make([]float64, len(fit))
	for i, p := range fit {
		preds[i], secs[i] = p.predict, measured[i].Seconds
	}
	var err error
	if res.Fit, err = FitCPU(base, bw, tileNS, preds, secs); err != nil {
		return nil, err
	}
	res.CPU = res.Fit.Spec(base)
	res.Efficiency = res.Fit.CoreGFLOPS / (res.Host.ClockGHz * float64(res.CPU.GEMMKernel.PeakFlopsPerCycle()))
	if res.ClockGHz > 0 {
		res.GEMMEfficiency = res.GEMMGFLOPS / (res.ClockGHz * float64(res.CPU.GEMMKernel.PeakFlopsPerCycle()))
	}

	point := func(p probe, t Timing) (Point, error) {
		pred, err := p.predict(res.CPU)
		if err != nil {
			return Point{}, fmt.Errorf("calibrate: %s %s: %w", p.prim, p.shape, err)
		}
		return Point{Primitive: p.prim, Shape: p.shape, PredictedS: pred, MeasuredS: t.Seconds,
			Error: pred/t.Seconds - 1, Spread: t.Spread, Repeats: t.Repeats}, nil
	}
	for i, p := range all {
		if p.predict == nil {
			res.EnvSteps = append(res.EnvSteps, EnvStep{Env: p.shape, Timing: measured[i]})
			continue
		}
		pt, err := point(p, measured[i])
		if err != nil {
			return nil, err
		}
		switch {
		case i < len(fit):
			res.Fitted = append(res.Fitted, pt)
		case i < len(fit)+len(held):
			res.Heldout = append(res.Heldout, pt)
		default:
			res.Uncalibrated = append(res.Uncalibrated, pt)
		}
	}
	res.HeldoutMedianAbsError, res.HeldoutMaxAbsError = absErrors(res.Heldout)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// absErrors returns the median and the largest |Error| of points.
func absErrors(points []Point) (med, largest float64) {
	errs := make([]float64, len(points))
	for i, p := range points {
		errs[i] = math.Abs(p.Error)
		largest = max(largest, errs[i])
	}
	if len(errs) == 0 {
		return 0, 0
	}
	return median(errs), largest
}

// baseCPU is the host's CPU as the system reports it and the chase
// measured it, before the fit: one learner thread and one replay thread,
// as rlx's runtime runs them; the constants the calibration does not
// measure (branch miss, atomics, fork/join) from the default platform's
// documented figures.
func (r *Result) baseCPU() hw.CPUSpec {
	h := r.Host
	l1, l2, llc, dram := r.Latency.Cycles(h.ClockGHz)
	return hw.CPUSpec{Model: h.Model, Cores: h.Cores, ClockGHz: h.ClockGHz, PeakGFLOPS: 1, MemBWGBs: 1,
		MemoryGB: h.MemoryGB, L1KB: h.L1KB, L2KB: h.L2KB, LLCMB: h.LLCMB,
		L1LatencyCycles: l1, L2LatencyCycles: max(l1, l2), LLCLatencyCycles: max(l1, l2, llc), DRAMLatencyCycles: max(l1, l2, llc, dram),
		BranchMissCycles: 16, AtomicCycles: 18, ParallelRegionUS: 1, TrainThreads: 1, RMMThreads: 1,
		GEMMKernel: HostGEMMKernel(), Activations: r.Activations.Spec()}
}

// probes lists the fitted, held-out and uncalibrated probes and the
// environment steps (no predictor).
func probes(quick bool) (fit, held, other []probe) {
	train := func(s TrainShape) probe {
		return probe{"train-step", s.String(),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				p, err := MeasureTrainStep(ctx, s, r, mt)
				return p.Timing, err
			},
			s.Predictor()}
	}
	fitShapes, heldShapes := fitTrain, heldTrain
	if !quick {
		fitShapes, heldShapes = slices.Concat(fitTrain, fitTrainFull), slices.Concat(heldTrain, heldTrainFull)
	}
	conv := func(s ConvShape) probe {
		return probe{"train-step", s.String(),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureConvTrainStep(ctx, s, r, mt)
			},
			s.Predictor()}
	}
	for _, s := range fitShapes {
		fit = append(fit, train(s))
	}
	for _, s := range fitConv {
		fit = append(fit, conv(s))
	}
	for _, s := range heldShapes {
		held = append(held, train(s))
	}
	for _, s := range heldLearners {
		held = append(held, probe{"learner-step", s.String(),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureLearnerStep(ctx, s, r, mt)
			},
			s.Predictor()})
	}
	// The ConvNet of the Pong workload (000 §VII-A), 6 actions, batch 4:
	// its input and its first two convolutions (8x8 stride 4, 4x4 stride
	// 2) are none of the fitted ConvNets'; its 3x3 stride 1 is.
	held = append(held, conv(NatureCNNShape(6, 4)))
	for _, sizes := range heldInference {
		w := TrainShape{Sizes: sizes, Batch: 1}.Workload()
		held = append(held, probe{"inference", TrainShape{Sizes: sizes, Batch: 1}.String(),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureInference(ctx, sizes, 1, r, mt)
			},
			func(cpu hw.CPUSpec) (float64, error) { return predictOn(cpu, &w, hw.Inference, 1) }})
	}
	other = replayProbes(quick)
	for _, id := range calibratedEnvs {
		other = append(other, probe{"env-step", id,
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureEnvStep(ctx, id, r, mt)
			}, nil})
	}
	return fit, held, other
}

// calibratedEnvs are the environments whose step the calibration times.
var calibratedEnvs = []string{"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"}

// insertCapacity is the replay buffer the insertion probes fill.
const insertCapacity = 10_000

// replayWorkload is a workload for the models of the replay primitives and
// GAE, which read its replay fields only; its one-layer net is there
// because a workload must have one.
func replayWorkload(batch, capacity, fanout, dataPointBytes int) hw.Workload {
	return hw.Workload{Name: "calibrate replay", Nets: []hw.Net{{Name: "none", Layers: hw.MLPLayers(1, 1), FW: 1}},
		Batch: batch, Capacity: capacity, Fanout: fanout, Actors: 1, DataPointBytes: dataPointBytes}
}

// replayProbes are the sum tree's sampling and update, insertion and GAE.
func replayProbes(quick bool) []probe {
	type tree struct{ capacity, fanout, batch int }
	trees := []tree{{10_000, 16, 128}, {1 << 20, 16, 128}, {1 << 20, 2, 128}}
	if !quick {
		trees = append(trees, tree{1000, 16, 32}, tree{1 << 16, 4, 64}, tree{1 << 20, 16, 1024})
	}
	var out []probe
	for _, t := range trees {
		w := replayWorkload(t.batch, t.capacity, t.fanout, 4)
		shape := fmt.Sprintf("N=%d K=%d B=%d", t.capacity, t.fanout, t.batch)
		out = append(out,
			probe{"prefix-sum", shape,
				func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
					return MeasurePrefixSum(ctx, t.capacity, t.fanout, t.batch, r, mt)
				},
				func(cpu hw.CPUSpec) (float64, error) { return predictOn(cpu, &w, hw.PrefixSum, t.batch) }},
			probe{"priority-update", shape,
				func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
					return MeasurePriorityUpdate(ctx, t.capacity, t.fanout, t.batch, r, mt)
				},
				func(cpu hw.CPUSpec) (float64, error) { return predictOn(cpu, &w, hw.PriorityUpdate, t.batch) }})
	}
	for _, in := range []struct{ obs, act, n int }{{4, 1, 100}, {376, 17, 100}} {
		w := replayWorkload(1, insertCapacity, replay.DefaultFanout, hw.TransitionBytes(in.obs, in.act))
		out = append(out, probe{"insert", fmt.Sprintf("obs=%d act=%d n=%d", in.obs, in.act, in.n),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureInsert(ctx, in.obs, in.act, insertCapacity, in.n, r, mt)
			},
			func(cpu hw.CPUSpec) (float64, error) { return predictOn(cpu, &w, hw.Insert, in.n) }})
	}
	for _, g := range []struct{ t, n int }{{128, 4}, {2048, 1}, {1024, 64}} {
		w := replayWorkload(1, 2, 2, 4)
		out = append(out, probe{"gae", fmt.Sprintf("T=%d N=%d", g.t, g.n),
			func(ctx context.Context, r int, mt time.Duration) (Timing, error) {
				return MeasureGAE(ctx, g.t, g.n, r, mt)
			},
			func(cpu hw.CPUSpec) (float64, error) {
				e, err := hw.NewEstimator(&hw.Platform{Name: "calibrate", CPU: &cpu}, &w, nil)
				if err != nil {
					return 0, err
				}
				return e.GAE(hw.CPU, g.t, g.n, 0, 0)
			}})
	}
	return out
}
