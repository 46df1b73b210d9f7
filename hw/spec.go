package hw

import "fmt"

// Platform is a heterogeneous platform: a multi-core CPU, a GPU, an FPGA and
// the PCIe links that join each accelerator to the CPU (000 Fig. 2). A
// section left out of the YAML is nil; the DSE needs all three devices,
// HEPPO sizing needs only the FPGA.
type Platform struct {
	Name string    `yaml:"name"`
	Doc  string    `yaml:"doc"`
	CPU  *CPUSpec  `yaml:"cpu"`
	GPU  *GPUSpec  `yaml:"gpu"`
	FPGA *FPGASpec `yaml:"fpga"`
	Link *LinkSpec `yaml:"link"`
}

// MemoryGB returns the memory capacity of the device of kind k.
func (p *Platform) MemoryGB(k Kind) float64 {
	switch k {
	case CPU:
		return p.CPU.MemoryGB
	case GPU:
		return p.GPU.MemoryGB
	}
	return p.FPGA.MemoryGB
}

// MemBWGBs returns the memory bandwidth, GB/s, of the device of kind k.
func (p *Platform) MemBWGBs(k Kind) float64 {
	switch k {
	case CPU:
		return p.CPU.MemBWGBs
	case GPU:
		return p.GPU.MemBWGBs
	}
	return p.FPGA.MemBWGBs
}

// CPUSpec describes a multi-core CPU (000 Table IV, 000 §IV-C2, §IV-D2).
type CPUSpec struct {
	Model string `yaml:"model"`
	// Cores is the number of hardware threads available to the run.
	Cores int `yaml:"cores"`
	// ClockGHz is the core clock.
	ClockGHz float64 `yaml:"clock_ghz"`
	// PeakGFLOPS is the fp32 rate of the whole CPU as Table IV gives it.
	PeakGFLOPS float64 `yaml:"peak_gflops"`
	// DerivedRate, when given, is the other reading of that rate: the
	// processor's documented per-core resources times a measured
	// efficiency (docs/models.md, "How Table IV's CPU figure is read").
	// The models run on PeakGFLOPS; rlx dse --sensitivity reports what the
	// derived reading would move (CPUSpec.Derived).
	DerivedRate *DerivedRateSpec `yaml:"derived_rate"`
	// MemBWGBs is the DRAM bandwidth in GB/s.
	MemBWGBs float64 `yaml:"mem_bw_gbs"`
	// MemoryGB is the DRAM capacity that can hold the data storage.
	MemoryGB float64 `yaml:"memory_gb"`
	// L1KB, L2KB are per-core cache sizes; LLCMB the shared last level.
	L1KB  float64 `yaml:"l1_kb"`
	L2KB  float64 `yaml:"l2_kb"`
	LLCMB float64 `yaml:"llc_mb"`
	// Load-to-use latencies in core cycles.
	L1LatencyCycles   float64 `yaml:"l1_latency_cycles"`
	L2LatencyCycles   float64 `yaml:"l2_latency_cycles"`
	LLCLatencyCycles  float64 `yaml:"llc_latency_cycles"`
	DRAMLatencyCycles float64 `yaml:"dram_latency_cycles"`
	// BranchMissCycles is the branch misprediction penalty.
	BranchMissCycles float64 `yaml:"branch_miss_cycles"`
	// AtomicCycles is an uncontended locked read-modify-write.
	AtomicCycles float64 `yaml:"atomic_cycles"`
	// OpOverheadUS is the framework's fixed cost per tensor operation
	// (dispatch), paid by every op of a CPU training step.
	OpOverheadUS float64 `yaml:"op_overhead_us"`
	// ParallelRegionUS is the fork/join cost of one OpenMP parallel region.
	ParallelRegionUS float64 `yaml:"parallel_region_us"`
	// HandoffUS is the latency of handing work to a thread that waits for
	// it: the wake-up of the parked thread and the move of the message to
	// its core. The learner runs on a thread of its own, so on the CPU the
	// batch it receives and the priorities it sends back each pay it
	// (Estimator.Handoff); 0 when not known (Table IV gives none).
	HandoffUS float64 `yaml:"handoff_us"`
	// GEMMKernel describes the register-blocked GEMM micro-kernel the
	// framework runs, when it is known (a calibrated host: rlx's own
	// kernels); nil charges a GEMM at the roofline of PeakGFLOPS.
	GEMMKernel *GEMMKernelSpec `yaml:"gemm_kernel"`
	// ElementwiseGBs is the bandwidth of an elementwise op whose operands
	// fit in the L2 cache; 0 charges every elementwise op at MemBWGBs.
	ElementwiseGBs float64 `yaml:"elementwise_gbs"`
	// Activations are the measured costs of the activation kernels, per
	// element; nil charges an activation as an elementwise op.
	Activations *ActivationSpec `yaml:"activations"`
	// FusedOptimizer is true when the framework runs Adam as one kernel
	// over all of a network's parameters and zeroes its gradients in one
	// pass (rlx's core/nn), false for one kernel per operation and tensor
	// (PyTorch's default Adam, 000 §IV-B2).
	FusedOptimizer bool `yaml:"fused_optimizer"`
	// TrainThreads is the number of threads of the CPU learner (000 §VII-C: 16).
	TrainThreads int `yaml:"train_threads"`
	// RMMThreads is the number of threads of the CPU replay manager when it
	// shares the CPU with the learner (000 §VI-B: 1).
	RMMThreads int `yaml:"rmm_threads"`
	// Power is the electrical power of the CPU sockets and MemoryPower that
	// of their DRAM modules (000 §VII-E counts the CPU and its DDR); nil
	// when the platform models no power (see Platform.Watts).
	Power       *PowerSpec `yaml:"power"`
	MemoryPower *PowerSpec `yaml:"memory_power"`
}

// ActivationSpec is the time per element of the framework's activation
// kernels and their derivatives, on operands in the L1 or L2. An
// activation is compute, not traffic: core/nn's tanh evaluates a
// polynomial, its ReLU is a scalar loop. 0 charges that one as an
// elementwise op.
type ActivationSpec struct {
	ReLUNS         float64 `yaml:"relu_ns"`
	ReLUBackwardNS float64 `yaml:"relu_backward_ns"`
	TanhNS         float64 `yaml:"tanh_ns"`
	TanhBackwardNS float64 `yaml:"tanh_backward_ns"`
}

// NS returns the time per element of act, or of its derivative when
// backward; 0 when not known.
func (a *ActivationSpec) NS(act Activation, backward bool) float64 {
	if a == nil {
		return 0
	}
	switch {
	case act == ActReLU && !backward:
		return a.ReLUNS
	case act == ActReLU:
		return a.ReLUBackwardNS
	case act == ActTanh && !backward:
		return a.TanhNS
	case act == ActTanh:
		return a.TanhBackwardNS
	}
	return 0
}

// GEMMKernelSpec is a register-blocked GEMM micro-kernel (the BLIS/GotoBLAS
// structure): C is computed in tiles of TileRows x TileCols, each tile
// accumulating in vector registers over a block of BlockK of the
// reduction. A tile of r rows and v vectors issues r x v fused multiply-adds
// per step of the reduction; with FMAUnits issued per cycle and every
// accumulator a dependency chain of FMALatencyCycles, a step takes
// max(r v / FMAUnits, FMALatencyCycles / sets) cycles, sets being the
// accumulator sets the tile alternates (docs/models.md "Training step").
type GEMMKernelSpec struct {
	// SIMDLanes is the number of fp32 lanes of a vector register (AVX2: 8).
	SIMDLanes int `yaml:"simd_lanes"`
	// FMAUnits is the number of vector FMAs the core issues per cycle.
	FMAUnits int `yaml:"fma_units"`
	// FMALatencyCycles is the latency of one FMA.
	FMALatencyCycles int `yaml:"fma_latency_cycles"`
	// TileRows and TileCols are the largest tile; TileCols is a multiple of
	// SIMDLanes. Columns left over take one narrower tile of whole vectors
	// and one masked vector.
	TileRows int `yaml:"tile_rows"`
	TileCols int `yaml:"tile_cols"`
	// BlockK is the block of the reduction a tile covers per call.
	BlockK int `yaml:"block_k"`
	// AccumulatorRegs is the number of vector registers a tile's
	// accumulators may take: a tile whose r x v accumulators fit twice
	// keeps two sets and alternates them over the reduction, which halves
	// the latency bound. 0 means one set always.
	AccumulatorRegs int `yaml:"accumulator_registers"`
	// TileNS is the fixed cost of one micro-kernel call: loading and
	// storing its tile of C, and the call itself.
	TileNS float64 `yaml:"tile_ns"`
	// Im2colNS is the time per element of the scalar loops that unroll a
	// convolution's input into the im2col matrix and fold its gradient
	// back (col2im). A CPU with a known kernel runs core/nn, which lowers
	// each convolution that way, per sample; 0 charges the unrolling as an
	// elementwise op instead.
	Im2colNS float64 `yaml:"im2col_ns"`
}

// DerivedRateSpec derives a CPU's sustained fp32 rate from what its
// vendor documents and what a tuned GEMM measures: PhysicalCores x the
// CPU's ClockGHz x FlopsPerCycle x GEMMEfficiency.
type DerivedRateSpec struct {
	// PhysicalCores counts cores, not hardware threads: two threads of
	// one core share its FMA units.
	PhysicalCores int `yaml:"physical_cores"`
	// FlopsPerCycle is one core's fp32 peak per cycle: 2 x SIMD lanes x
	// FMA units.
	FlopsPerCycle int `yaml:"flops_per_cycle"`
	// GEMMEfficiency is the fraction of that peak a tuned GEMM sustains
	// on a large product, as rlx calibrate measures it (gemm_efficiency).
	GEMMEfficiency float64 `yaml:"gemm_efficiency"`
}

// gflops is the derived rate of the whole CPU at clockGHz.
func (d *DerivedRateSpec) gflops(clockGHz float64) float64 {
	return float64(d.PhysicalCores) * clockGHz * float64(d.FlopsPerCycle) * d.GEMMEfficiency
}

// Formula spells out the derived rate at clockGHz, as Derived computes it.
func (d *DerivedRateSpec) Formula(clockGHz float64) string {
	return fmt.Sprintf("%d cores x %g GHz x %d FLOP/cycle x %g = %.4g GFLOPS",
		d.PhysicalCores, clockGHz, d.FlopsPerCycle, d.GEMMEfficiency, d.gflops(clockGHz))
}

// Derived returns the CPU under the derived reading of its rate: the
// whole-CPU rate from DerivedRate and one thread per physical core, so
// that a learner of TrainThreads threads gets TrainThreads cores' share;
// and whether the spec has that reading. The thread counts are capped at
// the physical cores.
func (s CPUSpec) Derived() (CPUSpec, bool) {
	d := s.DerivedRate
	if d == nil {
		return s, false
	}
	s.PeakGFLOPS = d.gflops(s.ClockGHz)
	s.Cores = d.PhysicalCores
	s.TrainThreads = min(s.TrainThreads, s.Cores)
	s.RMMThreads = min(s.RMMThreads, s.Cores)
	return s, true
}

// PeakFlopsPerCycle is the fp32 flops one core's FMA units can issue per
// cycle: 2 (multiply and add) x lanes x units.
func (k *GEMMKernelSpec) PeakFlopsPerCycle() int { return 2 * k.SIMDLanes * k.FMAUnits }

// GPUSpec describes a GPU (000 Table IV, 003 §2.4).
type GPUSpec struct {
	Model string `yaml:"model"`
	// SMs is the number of streaming multiprocessors.
	SMs int `yaml:"sms"`
	// ClockGHz is the boost clock.
	ClockGHz float64 `yaml:"clock_ghz"`
	// PeakGFLOPS is the fp32 peak (Table IV: 12.15 TOPS).
	PeakGFLOPS float64 `yaml:"peak_gflops"`
	// MemBWGBs is the device memory bandwidth.
	MemBWGBs float64 `yaml:"mem_bw_gbs"`
	// MemoryGB is the device memory capacity.
	MemoryGB float64 `yaml:"memory_gb"`
	// L2MB is the L2 cache size.
	L2MB float64 `yaml:"l2_mb"`
	// L2LatencyCycles is the L2 hit latency (003 §2.4: ~200 cycles).
	L2LatencyCycles float64 `yaml:"l2_latency_cycles"`
	// DRAMLatencyCycles is the extra latency of a device-memory access past
	// L2 (000 §IV-D4: 80-150 cycles for GDDR).
	DRAMLatencyCycles float64 `yaml:"dram_latency_cycles"`
	// LaunchUS is the host cost of launching one kernel (003 §2.4).
	LaunchUS float64 `yaml:"launch_us"`
	// ThreadsPerSM is the number of resident threads per SM.
	ThreadsPerSM int `yaml:"threads_per_sm"`
	// GEMMTiles lists the square output tile edges a GEMM library may pick
	// (one thread block per tile).
	GEMMTiles []int `yaml:"gemm_tiles"`
	// Power is the electrical power of the board, its memory included; nil
	// when the platform models no power.
	Power *PowerSpec `yaml:"power"`
}

// FPGASpec describes a multi-die FPGA board (000 Table IV and §VI-A2).
type FPGASpec struct {
	Model string `yaml:"model"`
	// ClockMHz is the kernel clock of the learner and the RMM.
	ClockMHz float64 `yaml:"clock_mhz"`
	// PeakGOPS is the vendor peak (Table IV: 0.68 TOPS INT32); reported only.
	PeakGOPS float64 `yaml:"peak_gops"`
	// MemBWGBs is the off-chip DDR bandwidth.
	MemBWGBs float64 `yaml:"mem_bw_gbs"`
	// MemoryGB is the off-chip DDR capacity.
	MemoryGB float64 `yaml:"memory_gb"`
	// SLRs are the super logic regions (dies), each with its own budget.
	SLRs []SLRSpec `yaml:"slrs"`
	// RMMSLRs is the number of SLRs reserved for the replay manager; the
	// learner gets the rest (000 §VI-A2: 1 and 2).
	RMMSLRs int `yaml:"rmm_slrs"`
	// DSPPerMAC is the DSP cost of one fp32 multiply-accumulate unit.
	DSPPerMAC int `yaml:"dsp_per_mac"`
	// DSPPerAdd is the DSP cost of one fp32 adder (weight update).
	DSPPerAdd int `yaml:"dsp_per_add"`
	// FAddLatencyCycles is the latency of an fp32 adder; an accumulation
	// that feeds back into itself can start once per this many cycles
	// (000 §IV-C4).
	FAddLatencyCycles int `yaml:"fadd_latency_cycles"`
	// RMM resource costs of one sampler or updater stage.
	RMMDSPPerStage int `yaml:"rmm_dsp_per_stage"`
	RMMLUTPerStage int `yaml:"rmm_lut_per_stage"`
	RMMFFPerStage  int `yaml:"rmm_ff_per_stage"`
	RMMLeafBits    int `yaml:"rmm_leaf_bits"`
	RMMFIFODepth   int `yaml:"rmm_fifo_depth"`
	// GAE processing element (004) costs for 2-step lookahead; they grow
	// with the square of the lookahead (004 Fig. 11).
	GAEPELUT int `yaml:"gae_pe_lut"`
	GAEPEFF  int `yaml:"gae_pe_ff"`
	GAEPEDSP int `yaml:"gae_pe_dsp"`
	// GAELoopLatencyCycles is the latency of the GAE feedback loop
	// (multiply-add); k-step lookahead with k >= it removes the bubbles.
	GAELoopLatencyCycles int `yaml:"gae_loop_latency_cycles"`
	// BRAMKbits is the size of one block RAM; BRAMPortBytes its port width.
	BRAMKbits     float64 `yaml:"bram_kbits"`
	BRAMPortBytes int     `yaml:"bram_port_bytes"`
	// Power is the electrical power of the board, its DDR included; nil
	// when the platform models no power.
	Power *PowerSpec `yaml:"power"`
}

// PowerSpec is the electrical power of a device in watts: IdleW when it is
// powered but does no work, ActiveW when it is busy all of the time. A
// device busy a fraction u of the time draws IdleW + (ActiveW - IdleW) x u
// (PowerSpec.WattsAt; the model of docs/models.md "Power").
type PowerSpec struct {
	IdleW   float64 `yaml:"idle_w"`
	ActiveW float64 `yaml:"active_w"`
}

// SLRSpec is the resource budget of one super logic region.
type SLRSpec struct {
	DSP    int     `yaml:"dsp"`
	LUT    int     `yaml:"lut"`
	FF     int     `yaml:"ff"`
	BRAM   int     `yaml:"bram"`
	SRAMMB float64 `yaml:"sram_mb"`
}

// LinkSpec describes the CPU-accelerator interconnect (000 §VII-A: PCIe,
// 16 GB/s). GPU and FPGA each have their own link to the CPU; traffic between
// them crosses both.
type LinkSpec struct {
	Name      string  `yaml:"name"`
	GBs       float64 `yaml:"gbs"`
	LatencyUS float64 `yaml:"latency_us"`
}

// Resources counts FPGA resources.
type Resources struct {
	DSP    int     `json:"dsp"`
	LUT    int     `json:"lut"`
	FF     int     `json:"ff"`
	BRAM   int     `json:"bram"`
	SRAMMB float64 `json:"sram_mb"`
}

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	return Resources{DSP: r.DSP + o.DSP, LUT: r.LUT + o.LUT, FF: r.FF + o.FF, BRAM: r.BRAM + o.BRAM, SRAMMB: r.SRAMMB + o.SRAMMB}
}

// Fits reports whether r fits within budget b.
func (r Resources) Fits(b Resources) bool {
	return r.DSP <= b.DSP && r.LUT <= b.LUT && r.FF <= b.FF && r.BRAM <= b.BRAM && r.SRAMMB <= b.SRAMMB
}

// Budget returns the summed resources of SLRs [from, to).
func (f *FPGASpec) Budget(from, to int) Resources {
	var b Resources
	for _, s := range f.SLRs[from:to] {
		b = b.Add(Resources(s))
	}
	return b
}

// Total returns the resources of the whole device.
func (f *FPGASpec) Total() Resources { return f.Budget(0, len(f.SLRs)) }

// LearnerSLRs returns the SLRs given to the learner (all but the RMM's).
func (f *FPGASpec) LearnerSLRs() []SLRSpec { return f.SLRs[f.RMMSLRs:] }

// RMMBudget returns the resources of the SLRs reserved for the RMM.
func (f *FPGASpec) RMMBudget() Resources { return f.Budget(0, f.RMMSLRs) }

// Hz returns the FPGA clock in Hz.
func (f *FPGASpec) Hz() float64 { return f.ClockMHz * 1e6 }
