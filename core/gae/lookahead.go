package gae

import "fmt"

// ComputeLookahead fills adv and ret like Compute, through the k-step
// lookahead form of 004 §III-B (eq. (10), (11) and their general form):
//
//	A_t = P_k A_{t+k} + sum_{j=0}^{k-1} P_j delta_{t+j},  P_j = prod_{i<j} C*(1-(term or trunc)_{t+i})
//
// With no episode end inside the window P_j = C^j, C = gamma*lambda, and
// this is A_t = C^k A_{t+k} + sum_j C^j delta_{t+j} of eq. (10) and (11).
// (The general equation printed in 004 §III-B has C^{(k-1)-j}, which
// disagrees with (10), (11) and Table II; this follows those.) An episode end at t+i
// zeroes every later weight, so no term crosses the boundary; near the end
// of the rollout the window is cut at T, where A_T = 0. Each A_t depends on
// A_{t+k} only, not on A_{t+1}: that distance is what lets the HEPPO
// processing element put k registers in its feedback loop and pipeline it.
//
// The result equals Compute's up to float32 rounding (relative to the
// magnitudes summed; see docs/gae.md); k = 1 is the recurrence of Compute.
// ComputeLookahead costs O(k*T*N): it recomputes each delta_{t+j} from the
// inputs, as the processing element does, rather than keeping a delta row
// per register. It allocates nothing and runs on the calling goroutine.
//
// Errors are those of Compute, plus k < 1. k above T is the same as k = T.
// The destinations must not share memory with the inputs (the deltas of
// later rows are read again after a row is written), so in-place use is an
// error here. On an error about the values, adv and ret hold unspecified
// values.
func ComputeLookahead(adv, ret []float32, r Rollout, gamma, lambda float32, k int) error {
	if err := r.validate(len(adv), len(ret), float64(gamma), float64(lambda), 32); err != nil {
		return err
	}
	if k < 1 {
		return fmt.Errorf("%w: k = %d is not allowed: k must be >= 1", ErrRange, k)
	}
	if _, err := checkAlias(adv, ret, &r, false); err != nil {
		return err
	}
	T, N := r.T, r.N
	gtab := [2]float32{gamma, 0}
	ctab := [2]float32{gamma * lambda, 0}
	term, trunc := asBytes(r.Terminated), asBytes(r.Truncated)
	// Rows are cut into blocks of columns whose sums and weights live on
	// the stack.
	var acc, wt [lookaheadBlock]float32
	var chk float32 // as in the kernels: 0, or NaN once a return is not finite
	for t := T - 1; t >= 0; t-- {
		m := min(k, T-t) // the window, cut at T
		for i0 := 0; i0 < N; i0 += lookaheadBlock {
			w := min(lookaheadBlock, N-i0)
			a, p := acc[:w], wt[:w]
			for j := range m {
				o := (t+j)*N + i0
				lookaheadTerm(a, p, r.Rewards[o:o+w], r.Values[o:o+w], r.NextValues[o:o+w],
					term[o:o+w], trunc[o:o+w], &gtab, &ctab, j == 0)
			}
			o := t*N + i0
			if t+m < T {
				// P_k A_{t+k}: row t+k is final already.
				an := adv[o+m*N : o+m*N+w]
				for i := range a {
					a[i] += p[i] * an[i]
				}
			}
			v, ad, rt := r.Values[o:o+w], adv[o:o+w], ret[o:o+w]
			for i := range a {
				y := a[i] + v[i]
				ad[i], rt[i] = a[i], y
				chk += y * 0
			}
		}
	}
	if chk == 0 {
		return nil
	}
	// A NaN or Inf input reaches a return: the weights multiply it, even
	// when they are zero. Name the input, or else the overflow.
	if err := r.checkFinite(); err != nil {
		return err
	}
	return overflowError(adv, ret, N)
}

// lookaheadBlock is the number of columns whose partial sums are kept at a
// time: 2 KB of stack for the sums and the weights.
const lookaheadBlock = 256

// lookaheadTerm adds P_j*delta_{t+j} of one block of inputs to the sums a
// and advances the weights p to P_{j+1}. With first (j = 0) it starts them:
// a = delta_t, p = P_1.
func lookaheadTerm(a, p, r, v, nv []float32, tm, tr []uint8, gtab, ctab *[2]float32, first bool) {
	n := len(a)
	p, r, v, nv, tm, tr = p[:n], r[:n], v[:n], nv[:n], tm[:n], tr[:n]
	if first {
		for i := range a {
			t := tm[i] & 1
			a[i] = r[i] + gtab[t]*nv[i] - v[i]
			p[i] = ctab[(t|tr[i])&1]
		}
		return
	}
	for i := range a {
		t := tm[i] & 1
		a[i] += p[i] * (r[i] + gtab[t]*nv[i] - v[i])
		p[i] *= ctab[(t|tr[i])&1]
	}
}
