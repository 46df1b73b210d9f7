package gae

import "math"

// RunningStats is the running mean and variance of every value seen so far,
// by Welford's method: the dynamic standardization of rewards of 004 §II-A.
// The zero value is empty and ready to use. The fields are exported so that
// a training run can checkpoint and restore them.
type RunningStats struct {
	N    int64   // n, the number of values seen
	Mean float64 // M_n, their mean (004 eq. (6), (7))
	M2   float64 // S_n, the sum of squared deviations from the mean (004 eq. (8))
}

// Push adds one value by 004 eq. (7) and (8):
//
//	M_n = M_{n-1} + (x - M_{n-1})/n
//	S_n = S_{n-1} + (x - M_{n-1})*(x - M_n)
func (s *RunningStats) Push(x float64) {
	s.N++
	d := x - s.Mean
	s.Mean += d / float64(s.N)
	s.M2 += d * (x - s.Mean)
}

// Update adds a batch. It computes the batch's mean and squared deviations
// in two passes and merges them (Merge), which gives what Push on every
// element would, up to rounding, at a fraction of the cost: one division
// per batch instead of one per value. It costs O(len(batch)) and allocates
// nothing. NaN or Inf in batch poison the statistics; callers check first.
func (s *RunningStats) Update(batch []float32) {
	if len(batch) == 0 {
		return
	}
	s.Merge(batchStats(batch))
}

// Merge adds the values summarized by o (Chan, Golub and LeVeque's pairwise
// update, the batch form of 004 eq. (7) and (8)):
//
//	n = n_a + n_b,  d = M_b - M_a
//	M = M_a + d*n_b/n,  S = S_a + S_b + d^2*n_a*n_b/n
func (s *RunningStats) Merge(o RunningStats) {
	if o.N == 0 {
		return
	}
	if s.N == 0 {
		*s = o
		return
	}
	na, nb := float64(s.N), float64(o.N)
	n := na + nb
	d := o.Mean - s.Mean
	s.Mean += d * nb / n
	s.M2 += o.M2 + d*d*na*nb/n
	s.N += o.N
}

// Var returns the population variance S_n/n, or 0 with no values.
func (s RunningStats) Var() float64 {
	if s.N == 0 {
		return 0
	}
	return s.M2 / float64(s.N)
}

// Std returns the running standard deviation sqrt(S_n/n) of 004 eq. (9),
// or 0 with no values.
func (s RunningStats) Std() float64 { return math.Sqrt(s.Var()) }

// batchStats summarizes x in two passes: the mean, then the squared
// deviations from it, which loses less to cancellation than sums of
// squares.
func batchStats(x []float32) RunningStats {
	var sum float64
	for _, v := range x {
		sum += float64(v)
	}
	mean := sum / float64(len(x))
	var m2 float64
	for _, v := range x {
		d := float64(v) - mean
		m2 += d * d
	}
	return RunningStats{N: int64(len(x)), Mean: mean, M2: m2}
}
