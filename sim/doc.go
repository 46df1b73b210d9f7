// Package sim is the simulated platform clock: it charges the primitives a
// training run executes to the devices of a mapping and tells when each
// finishes on the simulated CPU-GPU-FPGA platform.
//
// It takes hardware inputs only: a platform (hw.Platform), a workload
// (hw.Workload for off-policy runs; PPOIteration, with the iteration's
// sizes and counts, for PPO) and a mapping (hw.Mapping). It returns
// simulated times, per-unit busy traces (Trace) and the cycle-level runs of
// the FPGA pipelines (Pipeline). It knows nothing of the training code or
// of how a run is shown: the engine drives it with the primitives its
// trainers report and builds the views.
//
// OffPolicy is 000's loop (§II-A, §V): actors, replay manager, data
// storage and learner, with D batches sampled ahead. Placement holds the
// design-space exploration (core/dse) of the workload and the mapping in
// use; its prediction and the clock share the costs (hw.Estimator) and the
// routing rule (hw.Links), so that once warm the clock runs a mapping at
// the rate the exploration predicts. PPO is 003's synchronous iteration
// (rollout, GAE, K x M minibatch updates, weights back to the actors);
// IterationSeconds predicts an iteration from the same costs and counts the
// clock charges.
//
// Each unit (a device's learner, RMM or storage, an actor core, a PCIe
// link) does one thing at a time: work starts when its input is ready and
// the unit is free, so work on different units overlaps; an RMM on the
// learner's GPU shares the GPU's time with it (000 §VI-B) but keeps a
// trace of its own. The traces cover the units the mapping uses, and a
// unit an earlier mapping used only while its work is in the window.
// Charging a primitive is O(1) and allocates nothing; Traces is
// O(units x 1024).
//
// Nothing here is safe for concurrent use; the engine serializes calls.
//
// Imports: hw and core/dse of rlx, nothing else of it.
package sim
