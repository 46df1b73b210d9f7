package gae

// kernels lists the kernels this CPU and build can run, fastest first;
// active is the one Compute uses. Tests swap active to run every kernel
// against the reference.
var (
	kernels = availableKernels()
	active  = kernels[0]
)

// Kernel names the kernel Compute uses on this machine: "avx512", "avx2" or
// "go" (the portable kernel, the only one with the purego build tag or off
// amd64).
func Kernel() string { return active.String() }

// Compute fills adv and ret (len T*N) with the generalized advantage
// estimates and returns of r (004 eq. (2), (4), (5), with episode ends):
//
//	delta_t = r_t + gamma*(1-term_t)*NextV_t - V_t
//	A_t     = delta_t + gamma*lambda*(1-(term_t or trunc_t))*A_{t+1},  A_T = 0
//	ret_t   = A_t + V_t
//
// A terminated step does not bootstrap: its delta ignores NextValues. A
// truncated step bootstraps from NextValues, the value of the observation at
// which the time limit cut the episode, and like a terminated step stops the
// recursion, so no advantage flows across an episode boundary. A_T = 0 at
// the end of the window: a step that neither terminated nor was truncated at
// t = T-1 still bootstraps through its delta.
//
// Compute sweeps the rows backward, t = T-1 to 0, advancing all N
// trajectories of a row together (004 §IV-A1/A2). It allocates nothing,
// costs O(T*N), and splits the columns across cores when T*N is large (see
// ParallelThreshold); the result does not depend on the split.
//
// Compute returns an error, and writes nothing, if T or N is below 1, a
// slice length is not T*N, or gamma or lambda is outside [0, 1]. It returns
// an error naming the first offending index if an input value is NaN or
// ±Inf (Rewards, then Values, then NextValues) or if a result overflows
// float32; adv and ret then hold unspecified values.
//
// adv may be r.Rewards and ret may be r.Values: the in-place layout of
// 004 §IV-A3, in which the outputs overwrite the inputs row by row. In place,
// Compute checks the inputs for NaN and Inf before it writes, so an error
// leaves them intact (except after an overflow). Any other overlap between
// adv, ret and the inputs is an error.
func Compute(adv, ret []float32, r Rollout, gamma, lambda float32) error {
	if err := r.validate(len(adv), len(ret), float64(gamma), float64(lambda), 32); err != nil {
		return err
	}
	al, err := checkAlias(adv, ret, &r, true)
	if err != nil {
		return err
	}
	if al.advOnRewards || al.retOnValues {
		// In place, an input that fails the check after the sweep would
		// already be gone: look first.
		if err := r.checkFinite(); err != nil {
			return err
		}
	}
	return sweep(adv, ret, &r, gamma, lambda)
}

// sweep runs the kernel on a validated rollout and explains a non-finite
// result: a bad input if there is one, else an overflow.
func sweep(adv, ret []float32, r *Rollout, gamma, lambda float32) error {
	p := panel{
		adv: adv, ret: ret, rew: r.Rewards, val: r.Values, nval: r.NextValues,
		term: r.Terminated, trunc: r.Truncated,
		rows: r.T, stride: r.N, c0: 0, c1: r.N,
		gamma: gamma, c: gamma * lambda,
	}
	if run(&p, active) {
		return nil
	}
	if err := r.checkFinite(); err != nil {
		return err
	}
	return overflowError(adv, ret, r.N)
}
