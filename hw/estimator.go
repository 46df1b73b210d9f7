package hw

import (
	"errors"
	"fmt"
)

// ErrUnsupported is returned for a primitive a device cannot run in these
// models (an environment step on an accelerator, a learner on an FPGA whose
// design was not given).
var ErrUnsupported = errors.New("hw: primitive not modelled on this device")

// FPGADesign is the hardware configuration the FPGA models use: the learner
// pipelines (nil when the learner is not on the FPGA or does not fit) and
// the replay manager.
type FPGADesign struct {
	Learner *LearnerDesign
	RMM     RMMDesign
}

// Estimator answers "how long does primitive X take on device Y" for one
// platform and workload. It precomputes what does not depend on the call,
// so each query is a few hundred floating-point operations and allocates
// nothing; it is safe for concurrent use.
type Estimator struct {
	p    *Platform
	w    Workload
	cpu  cpuModel
	gpu  gpuModel
	fpga FPGADesign
}

// NewEstimator returns an estimator for w on p. fpga may be nil when the
// platform has no FPGA or nothing is mapped to it.
func NewEstimator(p *Platform, w *Workload, fpga *FPGADesign) (*Estimator, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	e := &Estimator{p: p, w: *w}
	if p.CPU != nil {
		e.cpu = cpuModel{s: p.CPU, hz: p.CPU.ClockGHz * 1e9}
	}
	if p.GPU != nil {
		e.gpu = gpuModel{s: p.GPU, hz: p.GPU.ClockGHz * 1e9}
	}
	if fpga != nil {
		e.fpga = *fpga
	}
	return e, nil
}

// Platform returns the platform.
func (e *Estimator) Platform() *Platform { return e.p }

// Workload returns the workload.
func (e *Estimator) Workload() *Workload { return &e.w }

// FPGA returns the FPGA design in use.
func (e *Estimator) FPGA() FPGADesign { return e.fpga }

func (e *Estimator) has(k Kind) bool {
	switch k {
	case CPU:
		return e.p.CPU != nil
	case GPU:
		return e.p.GPU != nil
	case FPGA:
		return e.p.FPGA != nil
	}
	return false
}

// Seconds returns the simulated time of primitive prim on device k, in
// seconds. n is the batch for TrainStep, PrefixSum, PriorityUpdate and
// Inference, the number of data points for Insert, and is ignored for
// EnvStep; use GAE for advantage estimation. It returns ErrUnsupported for
// a device the platform lacks or a pair the models do not cover, and an
// error for n < 1.
func (e *Estimator) Seconds(k Kind, prim Primitive, n int) (float64, error) {
	if !e.has(k) {
		return 0, ErrUnsupported
	}
	if n < 1 && prim != EnvStep {
		return 0, fmt.Errorf("hw: %s of %d items: the count must be >= 1", prim, n)
	}
	switch prim {
	case EnvStep:
		if k != CPU {
			return 0, ErrUnsupported
		}
		return e.w.EnvStepUS * 1e-6, nil
	case Inference:
		if k != CPU {
			return 0, ErrUnsupported
		}
		return e.cpu.inference(&e.w, n), nil
	case TrainStep:
		return e.trainStep(k, n)
	case PrefixSum:
		return e.prefixSum(k, n)
	case PriorityUpdate:
		return e.priorityUpdate(k, n)
	case Insert:
		switch k {
		case CPU:
			return e.cpu.insert(&e.w, n), nil
		case GPU:
			return e.gpu.insert(&e.w, n), nil
		default:
			return float64(n) * float64(e.w.DataPointBytes) / (e.p.FPGA.MemBWGBs * 1e9), nil
		}
	}
	return 0, ErrUnsupported
}

func (e *Estimator) trainStep(k Kind, batch int) (float64, error) {
	switch k {
	case CPU:
		return e.cpu.trainStep(&e.w, batch), nil
	case GPU:
		return e.gpu.trainStep(&e.w, batch), nil
	}
	if e.fpga.Learner == nil {
		return 0, ErrUnsupported
	}
	return float64(e.fpga.Learner.CyclesFor(batch)) / e.p.FPGA.Hz(), nil
}

func (e *Estimator) prefixSum(k Kind, batch int) (float64, error) {
	switch k {
	case CPU:
		return e.cpu.prefixSum(&e.w, batch, e.p.CPU.RMMThreads), nil
	case GPU:
		return e.gpu.prefixSum(&e.w, batch), nil
	}
	if e.fpga.RMM.S == 0 {
		return 0, ErrUnsupported
	}
	return float64(e.fpga.RMM.SampleCycles(batch)) / e.p.FPGA.Hz(), nil
}

func (e *Estimator) priorityUpdate(k Kind, batch int) (float64, error) {
	switch k {
	case CPU:
		return e.cpu.priorityUpdate(&e.w, batch, e.p.CPU.RMMThreads), nil
	case GPU:
		return e.gpu.priorityUpdate(&e.w, batch), nil
	}
	if e.fpga.RMM.S == 0 {
		return 0, ErrUnsupported
	}
	return float64(e.fpga.RMM.UpdateCycles(batch)) / e.p.FPGA.Hz(), nil
}

// ActorStepSeconds returns one actor step on one CPU core: an environment
// step and the policy's inference on its one observation (000 §IV-A). It
// returns ErrUnsupported when the platform has no CPU.
func (e *Estimator) ActorStepSeconds() (float64, error) {
	env, err := e.Seconds(CPU, EnvStep, 1)
	if err != nil {
		return 0, err
	}
	infer, err := e.Seconds(CPU, Inference, 1)
	if err != nil {
		return 0, err
	}
	return env + infer, nil
}

// RMMSeconds returns sampling plus priority update of one batch, the RMM
// time of one gradient step (000 §VI-A3).
func (e *Estimator) RMMSeconds(k Kind, batch int) (float64, error) {
	s, err := e.Seconds(k, PrefixSum, batch)
	if err != nil {
		return 0, err
	}
	u, err := e.Seconds(k, PriorityUpdate, batch)
	return s + u, err
}

// CPUThreads returns sampling (read-only, parallel) and priority update on
// the CPU with an explicit thread count, for the thread sweeps of 000
// Fig. 12.
func (e *Estimator) CPUThreads(prim Primitive, batch, threads int) (float64, error) {
	if e.p.CPU == nil {
		return 0, ErrUnsupported
	}
	if batch < 1 || threads < 1 || threads > e.p.CPU.Cores {
		return 0, fmt.Errorf("hw: batch %d with %d threads: need batch >= 1 and threads 1..%d", batch, threads, e.p.CPU.Cores)
	}
	switch prim {
	case PrefixSum:
		return e.cpu.prefixSum(&e.w, batch, threads), nil
	case PriorityUpdate:
		return e.cpu.priorityUpdate(&e.w, batch, threads), nil
	}
	return 0, ErrUnsupported
}

// Transfer returns how long moving bytes keeps one PCIe link busy: the
// bytes at the link's bandwidth. The per-transfer latency (TransferLatency)
// comes on top of it but does not occupy the link: transfers queue on a
// link's bandwidth and each arrives a latency after it leaves, so several
// may be in flight (CrossingSeconds).
func (e *Estimator) Transfer(bytes int64) float64 {
	if e.p.Link == nil || bytes <= 0 {
		return 0
	}
	return float64(bytes) / (e.p.Link.GBs * 1e9)
}

// TransferLatency returns the fixed latency of one PCIe transfer: the DMA
// set-up and completion that every transfer pays whatever its size
// (hw-anchors: about 5 us), the latency 000 §V-A's relaxed dependency
// hides by sampling ahead.
func (e *Estimator) TransferLatency() float64 {
	if e.p.Link == nil {
		return 0
	}
	return e.p.Link.LatencyUS * 1e-6
}

// Handoff returns the latency of a message from a unit on device a to
// one on device b running on a thread of its own: the CPU's HandoffUS when
// both are the CPU, else 0 (a crossing to an accelerator pays the PCIe
// latency instead, CrossingLatency). Which messages cross threads is the
// runtime's: the batch to the learner and the priorities back (see
// sim.OffPolicy.GradientStep and dse.Evaluate).
func (e *Estimator) Handoff(a, b Kind) float64 {
	if a != CPU || b != CPU || e.p.CPU == nil {
		return 0
	}
	return e.p.CPU.HandoffUS * 1e-6
}

// CrossingSeconds returns moving bytes from device a to device b on idle
// links: on each link the data crosses (Links: one between the CPU and an
// accelerator, both between two accelerators) the bytes at the link's
// bandwidth and one transfer latency. It is 0 when a == b or bytes <= 0.
func (e *Estimator) CrossingSeconds(a, b Kind, bytes int64) float64 {
	if bytes <= 0 {
		return 0
	}
	return float64(len(Links(a, b)))*e.Transfer(bytes) + e.CrossingLatency(a, b)
}

// CrossingLatency is the part of CrossingSeconds that does not depend on
// the bytes: one per-transfer latency per link crossed.
func (e *Estimator) CrossingLatency(a, b Kind) float64 {
	return float64(len(Links(a, b))) * e.TransferLatency()
}

// GAE returns advantage estimation over n trajectories of t steps on k. On
// the FPGA it uses pes processing elements with k-step lookahead (004);
// pes and lookahead are ignored elsewhere. The CPU uses its training threads.
func (e *Estimator) GAE(k Kind, t, n, pes, lookahead int) (float64, error) {
	if !e.has(k) {
		return 0, ErrUnsupported
	}
	if t < 1 || n < 1 {
		return 0, fmt.Errorf("hw: GAE over %d steps of %d trajectories: both must be >= 1", t, n)
	}
	switch k {
	case CPU:
		return e.cpu.gae(t, n, e.p.CPU.TrainThreads), nil
	case GPU:
		return e.gpu.gae(t, n), nil
	}
	c, err := GAECycles(t, n, pes, lookahead, e.p.FPGA.GAELoopLatencyCycles)
	if err != nil {
		return 0, err
	}
	return float64(c) / e.p.FPGA.Hz(), nil
}

// GPUExecSeconds returns the part of a GPU training step spent executing
// kernels, without launch and synchronization overhead (003 §2.4 reports
// the rest as overhead).
func (e *Estimator) GPUExecSeconds(batch int) (float64, error) {
	if e.p.GPU == nil {
		return 0, ErrUnsupported
	}
	if batch < 1 {
		return 0, fmt.Errorf("hw: batch %d: must be >= 1", batch)
	}
	t := 0.0
	forEachOp(&e.w, batch, lowering{}, func(o op) { t += e.gpu.execSeconds(o) })
	return t, nil
}
