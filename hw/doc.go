// Package hw simulates the devices of a heterogeneous CPU-GPU-FPGA platform
// for the primitives of deep reinforcement learning.
//
// Device specs are data (Platform, parsed and validated from YAML by
// ParsePlatform; presets in presets/devices). A Workload is a plain
// description of a training run (layer shapes, passes per gradient step,
// batch, replay capacity, fanout); hw imports nothing of core, so the
// engine translates its networks into it.
//
// Cost models (Estimator) charge every primitive to every device, from the
// papers' equations and the specs; docs/models.md gives each equation, its
// section and the source of each constant:
//
//   - training step: framework ops on the CPU (roofline with threads plus a
//     per-op dispatch cost, or, for a CPU that names its GEMM micro-kernel,
//     tile by tile with cache-resident elementwise ops and an optional
//     fused optimizer: a calibrated host) and the GPU (tile-wave GEMMs, memory roofline,
//     max of launch and execution per op: 003 §2.4); the FPGA learner
//     pipeline of 000 §IV-B3 and §VI-A2, (PI + n - 1) T_max + T_WU.
//   - prefix-sum sampling and priority update: CPU threads with cache- and
//     DRAM-latency per tree level and coherence misses at the top levels
//     (000 §IV-C2, §IV-D2); GPU launch, per-level latency and the serialized
//     root (000 §IV-C3, §IV-D3); FPGA B/S x F and B/S cycles (000 §VI-A2)
//     with the fixed-point tree of §IV-C4.
//   - PCIe transfers, insertion, inference, GAE.
//
// Cycle-level simulations return per-stage occupancy as run-length encoded
// busy intervals (Timeline, StageTrace): the RMM samplers and updaters
// (SimulateRMM), the learner pipeline (SimulateLearner), the P x P systolic
// array in NS, WS and IS with streamed, separate or SCALE-Sim-counted folds
// (SimulateGEMM, checked against the register-level StepGEMM, 003 Eq. 5 and
// SCALE-Sim v2's per-fold count), and the GAE processing elements with
// k-step lookahead (SimulateGAE, 004). rlx hw draws them as busy/idle
// strips with Bins in O(width + intervals); the explorer's strips come
// from the engine, which converts the intervals to seconds and bins them
// with the live units' traces itself (engine.NewStageView).
//
// What-if edits: Knobs are the device parameters an editor may change
// (PCIe bandwidth and latency, GPU launch latency, peak and memory
// bandwidth, FPGA clock, SLRs and memory bandwidth, CPU cores, peak and
// memory bandwidth), each at its YAML path and within a range real
// hardware spans; EditedYAML writes an edited platform back into the file
// it came from, rewriting the changed values in place and keeping every
// other comment, or, when the file's layout does not allow that (SLRs that
// share a line, a doc over several lines), writes the whole platform
// without the file's comments and says so in its header.
//
// Invariants: every Timeline interval lies in [0, Cycles), except in
// SimulateGEMM's ScaleSim mode, whose Cycles is SCALE-Sim's report (the
// index of the last cycle, one less than the count); streamed GEMM
// cycles never exceed Eq. 5 and equal it when the last fold fills the
// array; the simulations equal their closed forms on balanced inputs.
//
// Cost: Estimator queries allocate nothing and take about a microsecond
// (one pass over the step's framework ops); FPGA queries are O(1). The
// simulations allocate their timelines and cost O(cycles) (StepGEMM
// O(P^2 cycles), for tests).
package hw
