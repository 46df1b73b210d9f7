package calibrate

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rlxdev/rlx/presets"
)

// PlatformYAML returns the platform file of the calibrated host: the
// measured and fitted CPU, and the GPU, FPGA and PCIe link of base (the
// default platform's YAML), so that "what if this machine had that GPU or
// FPGA" has an answer. Every CPU value says in its comment whether it was
// read from the system, measured, fitted (when and to what) or assumed.
// The accelerators' power figures are left out: power is all or nothing
// in a platform (hw.Platform.Watts), and this machine's is not measured.
func (r *Result) PlatformYAML(base []byte) ([]byte, error) {
	accel, err := acceleratorSections(base)
	if err != nil {
		return nil, err
	}
	c := r.CPU
	h := r.Host
	day := r.When.Format("2006-01-02")
	on := fmt.Sprintf("%s, %d CPUs, %s kernel", h.Model, h.Cores, r.Kernel)
	src := func(field string) string {
		if s, ok := h.Sources[field]; ok && !strings.HasPrefix(s, notReported) {
			return "read from " + s
		}
		return "assumption: " + h.Sources[field]
	}
	chase := fmt.Sprintf("measured %s: dependent-load chase, median of %d", day, r.Rounds)
	fitted := fmt.Sprintf("calibrated %s: fitted to %d training steps of core/nn on %s (rms log error %.2f)", day, len(r.Fitted), on, r.Fit.RMSLogError)
	var b bytes.Buffer
	w := func(indent, key, value, comment string) {
		line := fmt.Sprintf("%s%s: %s", indent, key, value)
		if comment != "" {
			line = fmt.Sprintf("%-34s # %s", line, comment)
		}
		b.WriteString(line + "\n")
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	fmt.Fprintf(&b, "# This machine, as `rlx calibrate` measured it on %s (schema %s).\n", day, Schema)
	b.WriteString("# The CPU is measured and fitted here; the GPU, FPGA and PCIe link are the\n")
	b.WriteString("# default platform's, so that runs can ask what adding them would change.\n")
	b.WriteString("# Re-run `rlx calibrate` after changing the machine; see docs/models.md.\n")
	w("", "name", presets.HostDevices, "")
	w("", "doc", strconv.Quote(fmt.Sprintf("this machine's CPU (%s), calibrated %s, with the accelerators of the default platform", on, day)), "")
	b.WriteString("\ncpu:\n")
	w("  ", "model", strconv.Quote(h.Model), src("Model"))
	w("  ", "cores", strconv.Itoa(c.Cores), "read from the Go runtime (runtime.NumCPU: hardware threads)")
	w("  ", "clock_ghz", num(c.ClockGHz), src("ClockGHz"))
	w("  ", "peak_gflops", num(c.PeakGFLOPS), fitted+"; cores x the sustained rate of one core")
	w("  ", "mem_bw_gbs", num(c.MemBWGBs), fmt.Sprintf("measured %s: copy of %d MiB, median of %d (spread %.2f)", day, copyBytes>>20, r.CopyTiming.Repeats, r.CopyTiming.Spread))
	w("  ", "memory_gb", num(c.MemoryGB), src("MemoryGB"))
	w("  ", "l1_kb", num(c.L1KB), src("L1KB"))
	w("  ", "l2_kb", num(c.L2KB), src("L2KB"))
	w("  ", "llc_mb", num(c.LLCMB), src("LLCMB"))
	w("  ", "l1_latency_cycles", num(c.L1LatencyCycles), chase)
	w("  ", "l2_latency_cycles", num(c.L2LatencyCycles), chase)
	w("  ", "llc_latency_cycles", num(c.LLCLatencyCycles), chase)
	w("  ", "dram_latency_cycles", num(c.DRAMLatencyCycles), chase)
	w("  ", "branch_miss_cycles", num(c.BranchMissCycles), "assumption: the default platform's (Skylake), not measured here")
	w("  ", "atomic_cycles", num(c.AtomicCycles), "assumption: the default platform's (Skylake), not measured here")
	w("  ", "op_overhead_us", num(c.OpOverheadUS), fitted)
	w("  ", "parallel_region_us", num(c.ParallelRegionUS), "assumption: the default platform's; rlx's learner runs on one thread")
	w("  ", "handoff_us", num(c.HandoffUS), fmt.Sprintf("measured %s: goroutine ping-pong, %d round trips, median of %d (spread %.2f)", day, handoffMessages, r.HandoffTiming.Repeats, r.HandoffTiming.Spread))
	b.WriteString("  gemm_kernel:                     # core/nn's micro-kernel (" + r.Kernel + ")\n")
	k := c.GEMMKernel
	w("    ", "simd_lanes", strconv.Itoa(k.SIMDLanes), "core/nn/kernel.Tile")
	w("    ", "fma_units", strconv.Itoa(k.FMAUnits), "AMD Zen 2-5, Intel Skylake-Golden Cove optimization manuals")
	w("    ", "fma_latency_cycles", strconv.Itoa(k.FMALatencyCycles), "AMD Zen 2-5, Intel Skylake-Golden Cove optimization manuals")
	w("    ", "tile_rows", strconv.Itoa(k.TileRows), "core/nn/kernel.Tile")
	w("    ", "tile_cols", strconv.Itoa(k.TileCols), "core/nn/kernel.Tile")
	w("    ", "block_k", strconv.Itoa(k.BlockK), "core/nn/kernel.Tile")
	w("    ", "accumulator_registers", strconv.Itoa(k.AccumulatorRegs), "core/nn/kernel.Tile")
	w("    ", "tile_ns", num(k.TileNS), fmt.Sprintf("measured %s: GEMMs of %d tiles, reductions of 1 and %d, median of %d (spread %.2f)", day, tileCallTiles, tileCallK, r.TileCallTiming.Repeats, r.TileCallTiming.Spread))
	w("    ", "im2col_ns", num(k.Im2colNS), fitted)
	w("  ", "elementwise_gbs", num(c.ElementwiseGBs), fitted)
	b.WriteString("  activations:                     # core/nn's activation kernels, ns per element\n")
	act := func(key string, v float64, t Timing) {
		w("    ", key, num(v), fmt.Sprintf("measured %s: %d elements, median of %d (spread %.2f)", day, activationElems, t.Repeats, t.Spread))
	}
	a := c.Activations
	act("relu_ns", a.ReLUNS, r.Activations.ReLU)
	act("relu_backward_ns", a.ReLUBackwardNS, r.Activations.ReLUBackward)
	act("tanh_ns", a.TanhNS, r.Activations.Tanh)
	act("tanh_backward_ns", a.TanhBackwardNS, r.Activations.TanhBackward)
	w("  ", "fused_optimizer", "true", "core/nn runs Adam as one kernel per network")
	w("  ", "train_threads", "1", "rlx's learner: one goroutine")
	w("  ", "rmm_threads", "1", "rlx's replay manager: one goroutine")
	b.WriteString("\n")
	b.Write(accel)
	return b.Bytes(), nil
}

// acceleratorSections returns the gpu, fpga and link sections of a
// platform YAML, from the line "gpu:" to the end, without their power
// blocks.
func acceleratorSections(base []byte) ([]byte, error) {
	i := bytes.Index(base, []byte("\ngpu:"))
	if i < 0 {
		return nil, fmt.Errorf("calibrate: the default platform has no gpu section to copy")
	}
	var out bytes.Buffer
	skipDeeper := -1 // indentation of a power key being skipped
	sc := bufio.NewScanner(bytes.NewReader(base[i+1:]))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if skipDeeper >= 0 {
			if trimmed == "" || indent > skipDeeper {
				continue // inside the power block
			}
			skipDeeper = -1
		}
		if strings.HasPrefix(trimmed, "power:") {
			skipDeeper = indent
			continue
		}
		out.WriteString(line + "\n")
	}
	return out.Bytes(), sc.Err()
}
