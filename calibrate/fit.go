package calibrate

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/nn/kernel"
	"github.com/rlxdev/rlx/hw"
)

// CPUFit holds the parameters of hw's CPU model that a calibration fits to
// measured training steps: the sustained fp32 rate of one core on full
// GEMM tiles, the fixed cost of a framework op, the bandwidth of
// elementwise ops whose operands stay in the L2, and the cost per element
// of a convolution's im2col. TileNS, the fixed cost of a micro-kernel call
// (MeasureTileCall), and MemBWGBs, the bandwidth past the caches, are
// measured and held, not fitted.
type CPUFit struct {
	CoreGFLOPS     float64 `json:"core_gflops"`
	OpUS           float64 `json:"op_overhead_us"`
	TileNS         float64 `json:"tile_ns"`
	ElementwiseGBs float64 `json:"elementwise_gbs"`
	Im2colNS       float64 `json:"im2col_ns"`
	MemBWGBs       float64 `json:"mem_bw_gbs"`
	// RMSLogError is the root mean square of ln(predicted / measured) over
	// the fitted points: 0.1 is about 10%.
	RMSLogError float64 `json:"rms_log_error"`
}

// HostGEMMKernel describes core/nn's GEMM micro-kernel on this host to the
// CPU model: its tiling (kernel.Tile) and the FMA issue width and latency
// of the core. Two FMA units of 4 cycles' latency is what AMD Zen 2-5 and
// Intel Skylake to Golden Cove document (vendor optimization manuals;
// Agner Fog's instruction tables); the purego kernel's scalar multiply and
// add are modelled the same way, on one lane.
func HostGEMMKernel() *hw.GEMMKernelSpec {
	t := kernel.Tile()
	return &hw.GEMMKernelSpec{SIMDLanes: t.Lanes, FMAUnits: 2, FMALatencyCycles: 4,
		TileRows: t.Rows, TileCols: t.Cols, BlockK: t.BlockK, AccumulatorRegs: t.AccumulatorRegs}
}

// Spec returns base with the fit applied for rlx's learner, which trains
// on one goroutine: PeakGFLOPS is the whole CPU's (CoreGFLOPS x Cores, as
// hw scales the rate by threads / cores), the GEMM kernel is base's, or core/nn's on this host
// (HostGEMMKernel) when base names none, with the call cost held and the
// im2col cost fitted; the optimizer is fused as core/nn's is.
func (f CPUFit) Spec(base hw.CPUSpec) hw.CPUSpec {
	s := base
	s.PeakGFLOPS = f.CoreGFLOPS * float64(s.Cores)
	s.OpOverheadUS = f.OpUS
	s.MemBWGBs = f.MemBWGBs
	s.ElementwiseGBs = f.ElementwiseGBs
	// base's kernel when it names one (tests fix it; Run gives the host's),
	// copied: the fit sets its costs trial by trial.
	var k *hw.GEMMKernelSpec
	if base.GEMMKernel != nil {
		copied := *base.GEMMKernel
		k = &copied
	} else {
		k = HostGEMMKernel()
	}
	k.TileNS = f.TileNS
	k.Im2colNS = f.Im2colNS
	s.GEMMKernel = k
	s.FusedOptimizer = true
	s.TrainThreads = 1
	return s
}

// fitParam is one free parameter of the fit: how to read and set it in a
// CPUFit and its range.
type fitParam struct {
	name   string
	get    func(*CPUFit) *float64
	lo, hi float64
}

var fitParams = []fitParam{
	{"core rate (GFLOPS)", func(f *CPUFit) *float64 { return &f.CoreGFLOPS }, 0.1, 1e4},
	{"op overhead (µs)", func(f *CPUFit) *float64 { return &f.OpUS }, 0, 1000},
	{"elementwise bandwidth (GB/s)", func(f *CPUFit) *float64 { return &f.ElementwiseGBs }, 0.1, 1e5},
	{"im2col element (ns)", func(f *CPUFit) *float64 { return &f.Im2colNS }, 0, 1e4},
}

// Predictor returns the model's time of one measured point for a CPU.
type Predictor func(cpu hw.CPUSpec) (float64, error)

// FitCPU fits CPUFit on base (whose other fields, cores, clock and caches
// among them, are kept) to measured times: it minimizes the squared log
// error of each predictor against its measurement, by coordinate search in
// log space from a coarse grid over the core rate and the op cost, with
// steps halving to 0.01%. Relative error, not absolute: a 4096-wide step
// must not drown a 16-wide one. The bandwidth past the caches is held at
// memBWGBs and the micro-kernel call cost at tileNS.
func FitCPU(base hw.CPUSpec, memBWGBs, tileNS float64, predict []Predictor, measured []float64) (CPUFit, error) {
	if len(predict) != len(measured) {
		return CPUFit{}, fmt.Errorf("calibrate: %d predictors for %d measurements", len(predict), len(measured))
	}
	if len(predict) < len(fitParams) {
		return CPUFit{}, fmt.Errorf("%d measured points: the fit of %d parameters needs at least %d", len(predict), len(fitParams), len(fitParams))
	}
	if !(memBWGBs > 0) || math.IsInf(memBWGBs, 0) {
		return CPUFit{}, fmt.Errorf("memory bandwidth %g GB/s: must be positive", memBWGBs)
	}
	if !(tileNS >= 0) || math.IsInf(tileNS, 0) {
		return CPUFit{}, fmt.Errorf("micro-kernel call cost %g ns: must be 0 or more", tileNS)
	}
	for i, m := range measured {
		if !(m > 0) || math.IsInf(m, 0) {
			return CPUFit{}, fmt.Errorf("measured time %g s of point %d: must be positive", m, i)
		}
	}
	cost := func(f CPUFit) float64 {
		spec := f.Spec(base)
		var s float64
		for i, p := range predict {
			pred, err := p(spec)
			if err != nil || !(pred > 0) {
				return math.Inf(1)
			}
			d := math.Log(pred / measured[i])
			s += d * d
		}
		return s
	}
	best := CPUFit{CoreGFLOPS: 10, OpUS: 0.1, TileNS: tileNS, ElementwiseGBs: 50, Im2colNS: 1, MemBWGBs: memBWGBs}
	bestCost := cost(best)
	// The rate and the op cost set the scale of everything: a grid over
	// them first, so that the search does not start in a far valley.
	opCosts := append([]float64{0}, logGrid(1e-3, 1000, 0.5)...)
	for lr := math.Log(0.1); lr <= math.Log(1e4); lr += 0.25 {
		for _, o := range opCosts {
			f := best
			f.CoreGFLOPS, f.OpUS = math.Exp(lr), o
			if c := cost(f); c < bestCost {
				best, bestCost = f, c
			}
		}
	}
	// The elementwise bandwidth has a plateau: above the rate at which
	// the core computes the elements, it changes nothing, so a search
	// started there cannot find a lower one. Search from the grid's best
	// with the bandwidth at each decade, and keep the best end.
	start := best
	for _, gbs := range []float64{start.ElementwiseGBs, 1, 10, 100, 1000} {
		f := start
		f.ElementwiseGBs = gbs
		if f, c := descend(f, cost); c < bestCost {
			best, bestCost = f, c
		}
	}
	best.RMSLogError = math.Sqrt(bestCost / float64(len(predict)))
	return best, nil
}

// descend is FitCPU's coordinate search from f: each parameter in turn
// moves by a factor e^step either way while that lowers cost, the step
// halving to 0.01%. It returns the end and its cost.
func descend(f CPUFit, cost func(CPUFit) float64) (CPUFit, float64) {
	best, bestCost := f, cost(f)
	for step := 1.0; step > 1e-4; step /= 2 {
		for improved := true; improved; {
			improved = false
			for _, p := range fitParams {
				for _, dir := range []float64{step, -step} {
					f := best
					v := p.get(&f)
					// A parameter at 0 moves off it additively.
					*v = math.Min(p.hi, math.Max(p.lo, *v*math.Exp(dir)+1e-3*dir))
					if c := cost(f); c < bestCost {
						best, bestCost, improved = f, c, true
					}
				}
			}
		}
	}
	return best, bestCost
}

// logGrid returns lo, lo e^step, ... up to hi.
func logGrid(lo, hi, step float64) []float64 {
	var out []float64
	for v := math.Log(lo); v <= math.Log(hi)+1e-12; v += step {
		out = append(out, math.Exp(v))
	}
	return out
}

// Predictor returns the model's time of one training step of the shape,
// its workload built once: the fit calls it for every trial of its
// parameters.
func (s TrainShape) Predictor() Predictor {
	return stepPredictor(s.Workload(), s.Batch, nil)
}

// Predictor returns the model's time of one training step of the ConvNet,
// as TrainShape.Predictor does; a shape that does not build fails every
// call with the reason.
func (s ConvShape) Predictor() Predictor {
	w, err := s.Workload()
	return stepPredictor(w, s.Batch, err)
}

// stepPredictor returns the CPU model's time of one training step of w on
// batch samples, or err when the workload could not be built.
func stepPredictor(w hw.Workload, batch int, err error) Predictor {
	return func(cpu hw.CPUSpec) (float64, error) {
		if err != nil {
			return 0, err
		}
		return predictOn(cpu, &w, hw.TrainStep, batch)
	}
}

// predictOn returns the CPU's time for n items of prim of workload w.
func predictOn(cpu hw.CPUSpec, w *hw.Workload, prim hw.Primitive, n int) (float64, error) {
	e, err := hw.NewEstimator(&hw.Platform{Name: "calibrate", CPU: &cpu}, w, nil)
	if err != nil {
		return 0, err
	}
	return e.Seconds(hw.CPU, prim, n)
}
