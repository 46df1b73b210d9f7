// Package gae computes generalized advantage estimates (GAE) and returns for
// PPO, time-major and at hardware speed, with the numerics of HEPPO (seed
// 004) available as options.
//
// # What it computes
//
// A Rollout holds T steps of N environments, element (t, i) at t*N+i. For
// each element, with C = gamma*lambda (004 eq. (2), (4), (5)):
//
//	delta_t = r_t + gamma*(1-term_t)*NextV_t - V_t
//	A_t     = delta_t + C*(1-(term_t or trunc_t))*A_{t+1},  A_T = 0
//	ret_t   = A_t + V_t
//
// A terminated step does not bootstrap; a truncated one bootstraps from the
// value of the observation where the time limit cut it; both stop the
// recursion, so no advantage crosses an episode boundary.
//
//   - Compute is the fast kernel: rows swept backward from t = T-1, all N
//     trajectories of a row advanced together (the memory layout of
//     004 §IV-A1, popped in the FILO order of §IV-A2), branch-free masks,
//     SIMD assembly on amd64 (AVX-512 or AVX2, chosen at run time), columns
//     split across cores for large rollouts. Kernel and Cores say what it
//     does on this machine.
//   - ComputeLookahead is the same result through the k-step lookahead form
//     of 004 §III-B, A_t = P_k A_{t+k} + sum_j P_j delta_{t+j}.
//   - Reference is the float64 per-trajectory statement of the recurrence
//     that the fast paths are tested against.
//   - Estimator applies the numerics of 004 §II around the kernel, as
//     selected by Options: dynamic (running Welford) or block
//     standardization of rewards and values, n-bit uniform quantization
//     (Quantizer) with de-quantization and de-standardization on read, and
//     the in-place layout where advantages and returns overwrite rewards and
//     values (004 §IV-A3). Options.Footprint gives the bytes per element of
//     a configuration and MeasureDeviation its error against float32.
//
// # Invariants
//
// Columns are independent, so splitting them across cores gives
// bit-identical results. The masks multiply rather than select: a NaN or
// ±Inf anywhere in an element's inputs, even a NextValue behind a
// termination, makes its return non-finite, which is how one multiply-add
// per element checks every input. The kernels differ from each other and
// from Reference only by float32 rounding (fused multiply-adds in the
// assembly), bounded in the tests relative to the magnitudes summed.
//
// # Errors
//
// Bad shapes, slice lengths that are not T*N, gamma or lambda outside
// [0, 1], k < 1, options out of range (a quantizer clip so small that the
// float32 step underflows, among them) and NaN or Inf inputs are errors,
// never panics; the message
// names the first offending value or index and the accepted range, and
// wraps ErrShape, ErrRange, ErrNonFinite or ErrAlias. Programmer misuse
// (a zero Quantizer, codes too narrow for their bits) panics with a "gae: "
// message.
//
// # Cost and allocation
//
// Compute costs O(T*N) and is bound by memory bandwidth on large rollouts;
// ComputeLookahead costs O(k*T*N). Compute, ComputeLookahead, Reference and
// Estimator.Estimate allocate nothing per call; NewEstimator allocates the
// code and output buffers once. Parallel calls use the process's pool of
// worker goroutines (internal/parallel, shared with core/nn), started on
// first use and kept for the life of the process.
//
// # Build tags
//
// The purego tag, and every architecture but amd64, builds only the
// portable Go kernel; the tests run every kernel the machine supports
// against Reference, so run them with and without -tags purego.
//
// See docs/gae.md for the equations with their sections in 004, the layout,
// the options, the bytes per element of each configuration and how to run
// `rlx bench gae`.
package gae
