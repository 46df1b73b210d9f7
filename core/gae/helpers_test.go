package gae

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randomRollout returns a T x N rollout with values of order 1 and episode
// ends drawn with probabilities pTerm and pTrunc per step.
func randomRollout(rng *rand.Rand, T, N int, pTerm, pTrunc float64) Rollout {
	r, err := NewRollout(T, N)
	if err != nil {
		panic(err)
	}
	for k := range T * N {
		r.Rewards[k] = float32(rng.NormFloat64())
		r.Values[k] = float32(2 * rng.NormFloat64())
		r.NextValues[k] = float32(2 * rng.NormFloat64())
		u := rng.Float64()
		r.Terminated[k] = u < pTerm
		r.Truncated[k] = u >= pTerm && u < pTerm+pTrunc
	}
	return r
}

// scale returns, per element, sum_i prod(C*m) (|r|+gamma|NextV|+|V|)_{t+i}
// within the episode: the magnitude that float32 rounding errors of A_t are
// proportional to. It is the denominator of the relative error checks.
func scale(r Rollout, gamma, lambda float64) []float64 {
	s := make([]float64, r.T*r.N)
	for i := range r.N {
		var next float64
		for t := r.T - 1; t >= 0; t-- {
			k := t*r.N + i
			m := math.Abs(float64(r.Rewards[k])) + gamma*math.Abs(float64(r.NextValues[k])) + math.Abs(float64(r.Values[k]))
			if !r.Terminated[k] && !r.Truncated[k] {
				m += gamma * lambda * next
			}
			s[k] = m
			next = m
		}
	}
	return s
}

// withKernel runs f with Compute using kernel k.
func withKernel(k kernelID, f func()) {
	saved := active
	active = k
	defer func() { active = saved }()
	f()
}

// checkClose fails t if got differs from the reference by more than
// tol*(scale + |V|) anywhere.
func checkClose(t *testing.T, what string, r Rollout, adv, ret []float32, gamma, lambda float32, tol float64) {
	t.Helper()
	n := r.T * r.N
	wa, wr := make([]float64, n), make([]float64, n)
	if err := Reference(wa, wr, r, float64(gamma), float64(lambda)); err != nil {
		t.Fatalf("%s: Reference: %v", what, err)
	}
	s := scale(r, float64(gamma), float64(lambda))
	bad := 0
	for k := range n {
		lim := tol * (s[k] + math.Abs(float64(r.Values[k])))
		if math.Abs(float64(adv[k])-wa[k]) > lim || math.Abs(float64(ret[k])-wr[k]) > lim {
			if bad < 5 {
				t.Errorf("%s: (t=%d, i=%d): adv %v ret %v, want %v %v (tolerance %g)",
					what, k/r.N, k%r.N, adv[k], ret[k], wa[k], wr[k], lim)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements out of tolerance", what, bad, n)
	}
}
