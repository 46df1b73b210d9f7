package ppo

import "math"

// The wrappers of CleanRL's ppo_continuous_action.py, per environment copy
// as there (each copy is wrapped on its own): Gymnasium 1.x's
// NormalizeObservation then a clip to ±10, and NormalizeReward(gamma) then
// a clip to ±10. Both keep Gymnasium's RunningMeanStd
// (gymnasium/wrappers/utils.py): mean 0, variance 1 and count 1e-4 at the
// start, each value merged as a batch of one by the parallel-variance
// update, normalization x/sqrt(var + 1e-8). Statistics are float64.

const (
	rmsInitCount = 1e-4 // RunningMeanStd(epsilon=1e-4)
	normEps      = 1e-8 // the wrappers' epsilon
)

// rmsPush merges one value x into (mean, variance, count) as
// RunningMeanStd.update does with a batch of one (batch variance 0):
//
//	delta = x - mean, tot = count + 1
//	mean += delta/tot
//	var   = (var*count + delta^2*count/tot) / tot
func rmsPush(mean, variance *float64, count float64, x float64) {
	delta := x - *mean
	tot := count + 1
	*mean += delta / tot
	*variance = (*variance*count + delta*delta*count/tot) / tot
}

// obsNormalizer standardizes the observations of each copy with that
// copy's running statistics.
type obsNormalizer struct {
	dim      int
	clip     float64
	mean, vr []float64 // N*dim
	count    []float64 // N
}

func newObsNormalizer(n, dim int, clip float64) *obsNormalizer {
	o := &obsNormalizer{dim: dim, clip: clip, mean: make([]float64, n*dim), vr: make([]float64, n*dim), count: make([]float64, n)}
	for i := range o.vr {
		o.vr[i] = 1
	}
	for i := range o.count {
		o.count[i] = rmsInitCount
	}
	return o
}

// apply merges the raw observation of copy i into its statistics, then
// writes the standardized and clipped observation to dst (Gymnasium
// updates before it normalizes).
func (o *obsNormalizer) apply(dst, raw []float32, i int) {
	c := o.count[i]
	mean, vr := o.mean[i*o.dim:(i+1)*o.dim], o.vr[i*o.dim:(i+1)*o.dim]
	for j, x := range raw[:o.dim] {
		rmsPush(&mean[j], &vr[j], c, float64(x))
		z := (float64(x) - mean[j]) / math.Sqrt(vr[j]+normEps)
		dst[j] = float32(min(max(z, -o.clip), o.clip))
	}
	o.count[i] = c + 1
}

// rewardNormalizer scales each copy's rewards by the running standard
// deviation of its discounted return.
type rewardNormalizer struct {
	gamma, clip float64
	ret         []float64 // the discounted return accumulator per copy
	mean, vr    []float64
	count       []float64
}

func newRewardNormalizer(n int, gamma, clip float64) *rewardNormalizer {
	r := &rewardNormalizer{gamma: gamma, clip: clip, ret: make([]float64, n), mean: make([]float64, n), vr: make([]float64, n), count: make([]float64, n)}
	for i := range r.vr {
		r.vr[i], r.count[i] = 1, rmsInitCount
	}
	return r
}

// apply returns the normalized, clipped reward of copy i. As Gymnasium's
// NormalizeReward it discounts the accumulator with the terminated flag of
// this very step (ret = ret*gamma*(1-terminated) + r) and never resets it
// on truncation: Gymnasium keeps that order for backward compatibility.
func (r *rewardNormalizer) apply(raw float32, terminated bool, i int) float32 {
	keep := r.gamma
	if terminated {
		keep = 0
	}
	r.ret[i] = r.ret[i]*keep + float64(raw)
	rmsPush(&r.mean[i], &r.vr[i], r.count[i], r.ret[i])
	r.count[i]++
	z := float64(raw) / math.Sqrt(r.vr[i]+normEps)
	return float32(min(max(z, -r.clip), r.clip))
}
