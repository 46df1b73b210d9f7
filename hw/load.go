package hw

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/rlxdev/rlx/internal/yamldoc"
)

// ParsePlatform decodes a platform YAML document and validates every field.
// name labels error messages (usually the file name). Unknown fields are
// rejected. Every error reads "name:line:col: message", one per line, and
// names the field by its YAML path (cpu.cores, fpga.slrs[0].dsp); a range
// error also gives the value and the accepted range. A required field left
// out is placed at the mapping that should hold it.
func ParsePlatform(name string, data []byte) (*Platform, error) {
	var p Platform
	if err := yamldoc.Decode(data, &p); err != nil {
		return nil, errors.New(name + ":" + yamldoc.FieldMessage(data, err))
	}
	problems := p.validate()
	if len(problems) == 0 {
		return &p, nil
	}
	doc := yamldoc.ParseDoc(data)
	msgs := make([]string, 0, len(problems))
	for _, pr := range problems {
		msgs = append(msgs, name+":"+doc.NearestPosition(pr.path)+" "+pr.msg)
	}
	return nil, errors.New(strings.Join(msgs, "\n"))
}

// problem is one validation failure at a YAML path.
type problem struct {
	path string
	msg  string
}

// checker accumulates validation problems.
type checker struct{ problems []problem }

func (c *checker) add(path, format string, args ...any) {
	c.problems = append(c.problems, problem{path, fmt.Sprintf(format, args...)})
}

// intIn checks lo <= v <= hi.
func (c *checker) intIn(path string, v, lo, hi int) {
	if v < lo || v > hi {
		c.add(path, "%s = %d is out of range: must be %d..%d", path, v, lo, hi)
	}
}

// floatIn checks lo <= v <= hi and that v is finite.
func (c *checker) floatIn(path string, v, lo, hi float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		c.add(path, "%s = %g is out of range: must be %g..%g", path, v, lo, hi)
	}
}

// nonEmpty checks a required string.
func (c *checker) nonEmpty(path, v string) {
	if strings.TrimSpace(v) == "" {
		c.add(path, "%s is empty: a name is required", path)
	}
}

func (p *Platform) validate() []problem {
	var c checker
	c.nonEmpty("name", p.Name)
	if p.CPU == nil && p.GPU == nil && p.FPGA == nil {
		c.add("name", "platform %q has no device: give at least one of cpu, gpu, fpga", p.Name)
	}
	if p.CPU != nil {
		p.CPU.validate(&c, "cpu")
	}
	if p.GPU != nil {
		p.GPU.validate(&c, "gpu")
	}
	if p.FPGA != nil {
		p.FPGA.validate(&c, "fpga")
	}
	if (p.GPU != nil || p.FPGA != nil) && p.CPU != nil && p.Link == nil {
		c.add("link", "link is missing: a platform with a CPU and an accelerator needs the PCIe link")
	}
	if p.Link != nil {
		p.Link.validate(&c, "link")
	}
	p.validatePower(&c)
	return c.problems
}

func (s *CPUSpec) validate(c *checker, at string) {
	c.nonEmpty(at+".model", s.Model)
	c.intIn(at+".cores", s.Cores, 1, 4096)
	c.floatIn(at+".clock_ghz", s.ClockGHz, 0.1, 10)
	c.floatIn(at+".peak_gflops", s.PeakGFLOPS, 0.1, 1e6)
	c.floatIn(at+".mem_bw_gbs", s.MemBWGBs, 0.1, 1e5)
	c.floatIn(at+".memory_gb", s.MemoryGB, 0.01, 1e6)
	c.floatIn(at+".l1_kb", s.L1KB, 1, 1e4)
	c.floatIn(at+".l2_kb", s.L2KB, 1, 1e6)
	c.floatIn(at+".llc_mb", s.LLCMB, 0.01, 1e4)
	c.floatIn(at+".l1_latency_cycles", s.L1LatencyCycles, 1, 100)
	c.floatIn(at+".l2_latency_cycles", s.L2LatencyCycles, 1, 1000)
	c.floatIn(at+".llc_latency_cycles", s.LLCLatencyCycles, 1, 10000)
	c.floatIn(at+".dram_latency_cycles", s.DRAMLatencyCycles, 1, 100000)
	c.floatIn(at+".branch_miss_cycles", s.BranchMissCycles, 0, 1000)
	c.floatIn(at+".atomic_cycles", s.AtomicCycles, 0, 10000)
	c.floatIn(at+".op_overhead_us", s.OpOverheadUS, 0, 1e5)
	c.floatIn(at+".parallel_region_us", s.ParallelRegionUS, 0, 1e5)
	c.floatIn(at+".handoff_us", s.HandoffUS, 0, 1e5)
	c.floatIn(at+".elementwise_gbs", s.ElementwiseGBs, 0, 1e6)
	if s.Activations != nil {
		s.Activations.validate(c, at+".activations")
	}
	if s.GEMMKernel != nil {
		s.GEMMKernel.validate(c, at+".gemm_kernel")
	}
	if s.DerivedRate != nil {
		s.DerivedRate.validate(c, at+".derived_rate", s.Cores)
	}
	c.intIn(at+".train_threads", s.TrainThreads, 1, s.Cores)
	c.intIn(at+".rmm_threads", s.RMMThreads, 1, s.Cores)
	if !(s.L1LatencyCycles <= s.L2LatencyCycles && s.L2LatencyCycles <= s.LLCLatencyCycles && s.LLCLatencyCycles <= s.DRAMLatencyCycles) {
		c.add(at+".dram_latency_cycles", "%s cache latencies must not decrease from L1 to DRAM (got %g, %g, %g, %g)", at, s.L1LatencyCycles, s.L2LatencyCycles, s.LLCLatencyCycles, s.DRAMLatencyCycles)
	}
}

func (a *ActivationSpec) validate(c *checker, at string) {
	c.floatIn(at+".relu_ns", a.ReLUNS, 0, 1e4)
	c.floatIn(at+".relu_backward_ns", a.ReLUBackwardNS, 0, 1e4)
	c.floatIn(at+".tanh_ns", a.TanhNS, 0, 1e4)
	c.floatIn(at+".tanh_backward_ns", a.TanhBackwardNS, 0, 1e4)
}

// validate checks the derived reading of a CPU with threads hardware
// threads: a core has at least one.
func (d *DerivedRateSpec) validate(c *checker, at string, threads int) {
	c.intIn(at+".physical_cores", d.PhysicalCores, 1, max(1, threads))
	c.intIn(at+".flops_per_cycle", d.FlopsPerCycle, 1, 1024)
	c.floatIn(at+".gemm_efficiency", d.GEMMEfficiency, 0.01, 1)
}

func (k *GEMMKernelSpec) validate(c *checker, at string) {
	c.intIn(at+".simd_lanes", k.SIMDLanes, 1, 64)
	c.intIn(at+".fma_units", k.FMAUnits, 1, 16)
	c.intIn(at+".fma_latency_cycles", k.FMALatencyCycles, 1, 100)
	c.intIn(at+".tile_rows", k.TileRows, 1, 64)
	c.intIn(at+".tile_cols", k.TileCols, 1, 1024)
	c.intIn(at+".block_k", k.BlockK, 1, 1<<20)
	c.floatIn(at+".tile_ns", k.TileNS, 0, 1e6)
	c.floatIn(at+".im2col_ns", k.Im2colNS, 0, 1e6)
	c.intIn(at+".accumulator_registers", k.AccumulatorRegs, 0, 1024)
	if k.SIMDLanes >= 1 && k.TileCols%k.SIMDLanes != 0 {
		c.add(at+".tile_cols", "%s.tile_cols = %d must be a multiple of simd_lanes = %d", at, k.TileCols, k.SIMDLanes)
	}
}

func (s *GPUSpec) validate(c *checker, at string) {
	c.nonEmpty(at+".model", s.Model)
	c.intIn(at+".sms", s.SMs, 1, 10000)
	c.floatIn(at+".clock_ghz", s.ClockGHz, 0.1, 10)
	c.floatIn(at+".peak_gflops", s.PeakGFLOPS, 1, 1e7)
	c.floatIn(at+".mem_bw_gbs", s.MemBWGBs, 1, 1e6)
	c.floatIn(at+".memory_gb", s.MemoryGB, 0.01, 1e5)
	c.floatIn(at+".l2_mb", s.L2MB, 0.01, 1e4)
	c.floatIn(at+".l2_latency_cycles", s.L2LatencyCycles, 1, 10000)
	c.floatIn(at+".dram_latency_cycles", s.DRAMLatencyCycles, 1, 100000)
	c.floatIn(at+".launch_us", s.LaunchUS, 0, 1e5)
	c.intIn(at+".threads_per_sm", s.ThreadsPerSM, 32, 65536)
	if len(s.GEMMTiles) == 0 {
		c.add(at+".gemm_tiles", "%s.gemm_tiles is empty: give at least one tile edge, e.g. [32, 64, 128]", at)
	}
	for i, t := range s.GEMMTiles {
		c.intIn(fmt.Sprintf("%s.gemm_tiles[%d]", at, i), t, 1, 4096)
	}
}

func (s *FPGASpec) validate(c *checker, at string) {
	c.nonEmpty(at+".model", s.Model)
	c.floatIn(at+".clock_mhz", s.ClockMHz, 1, 2000)
	c.floatIn(at+".peak_gops", s.PeakGOPS, 0, 1e7)
	// The board's DDR: the storage's gather, PPO's rollout and the
	// inserts are charged at mem_bw_gbs, and the storage must fit in
	// memory_gb. A board without it is outside the models, and 0 would
	// make those times infinite, so both must be positive, as the CPU's.
	c.floatIn(at+".mem_bw_gbs", s.MemBWGBs, 0.1, 1e5)
	c.floatIn(at+".memory_gb", s.MemoryGB, 0.01, 1e5)
	c.intIn(at+".slrs (count)", len(s.SLRs), 1, 16)
	// An SLR may lack a resource (0): a design that needs it does not fit
	// there, and the exploration says so rather than placing it
	// (dse.ExploreFPGA).
	for i, r := range s.SLRs {
		p := fmt.Sprintf("%s.slrs[%d]", at, i)
		c.intIn(p+".dsp", r.DSP, 0, 1_000_000)
		c.intIn(p+".lut", r.LUT, 0, 100_000_000)
		c.intIn(p+".ff", r.FF, 0, 200_000_000)
		c.intIn(p+".bram", r.BRAM, 0, 1_000_000)
		c.floatIn(p+".sram_mb", r.SRAMMB, 0, 1e5)
	}
	c.intIn(at+".rmm_slrs", s.RMMSLRs, 0, max(0, len(s.SLRs)-1))
	c.intIn(at+".dsp_per_mac", s.DSPPerMAC, 1, 64)
	c.intIn(at+".dsp_per_add", s.DSPPerAdd, 0, 64)
	c.intIn(at+".fadd_latency_cycles", s.FAddLatencyCycles, 1, 64)
	// A stage may do without a DSP (its accumulator in LUTs), never
	// without logic and registers: at 0 LUT and 0 FF per stage the bank
	// factor S would grow for free.
	c.intIn(at+".rmm_dsp_per_stage", s.RMMDSPPerStage, 0, 64)
	c.intIn(at+".rmm_lut_per_stage", s.RMMLUTPerStage, 1, 1_000_000)
	c.intIn(at+".rmm_ff_per_stage", s.RMMFFPerStage, 1, 1_000_000)
	c.intIn(at+".rmm_leaf_bits", s.RMMLeafBits, 1, 64)
	c.intIn(at+".rmm_fifo_depth", s.RMMFIFODepth, 1, 1<<20)
	// Likewise a GAE PE: its multiplies may sit in LUTs (gae_pe_dsp 0),
	// but a PE of no logic would let the PE count grow for free.
	c.intIn(at+".gae_pe_lut", s.GAEPELUT, 1, 1_000_000)
	c.intIn(at+".gae_pe_ff", s.GAEPEFF, 1, 1_000_000)
	c.intIn(at+".gae_pe_dsp", s.GAEPEDSP, 0, 10_000)
	c.intIn(at+".gae_loop_latency_cycles", s.GAELoopLatencyCycles, 1, 64)
	c.floatIn(at+".bram_kbits", s.BRAMKbits, 1, 1e4)
	c.intIn(at+".bram_port_bytes", s.BRAMPortBytes, 1, 1024)
}

func (s *LinkSpec) validate(c *checker, at string) {
	c.nonEmpty(at+".name", s.Name)
	c.floatIn(at+".gbs", s.GBs, 0.001, 1e5)
	c.floatIn(at+".latency_us", s.LatencyUS, 0, 1e6)
}
