package gae

// Reference fills adv and ret (len T*N) with the advantages and returns of
// r computed one trajectory at a time in float64, by the recurrence of
// Compute:
//
//	delta_t = r_t + gamma*(1-term_t)*NextV_t - V_t
//	A_t     = delta_t + gamma*lambda*(1-(term_t or trunc_t))*A_{t+1},  A_T = 0
//	ret_t   = A_t + V_t
//
// It is the slow, plain statement of 004 eq. (2), (4) and (5) that the fast
// kernels are tested against: column i is walked backward from t = T-1 to 0
// with branches for the episode ends, the way a per-trajectory loop is
// usually written. It returns the same errors as Compute for bad shapes,
// gamma or lambda outside [0, 1] and non-finite inputs. It allocates nothing
// and costs O(T*N) with a stride of N between consecutive reads.
func Reference(adv, ret []float64, r Rollout, gamma, lambda float64) error {
	if err := r.validate(len(adv), len(ret), gamma, lambda, 64); err != nil {
		return err
	}
	if err := r.checkFinite(); err != nil {
		return err
	}
	T, N := r.T, r.N
	for i := range N {
		var next float64 // A_{t+1}; A_T = 0
		for t := T - 1; t >= 0; t-- {
			k := t*N + i
			delta := float64(r.Rewards[k]) - float64(r.Values[k])
			if !r.Terminated[k] {
				// Not terminal: bootstrap from V(s_{t+1}), also when truncated.
				delta += gamma * float64(r.NextValues[k])
			}
			a := delta
			if !r.Terminated[k] && !r.Truncated[k] {
				// The episode goes on into step t+1 of the same column.
				a += gamma * lambda * next
			}
			adv[k] = a
			ret[k] = a + float64(r.Values[k])
			next = a
		}
	}
	return nil
}
