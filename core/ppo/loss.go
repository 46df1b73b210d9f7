package ppo

import (
	"fmt"
	"math"
)

// SurrogateStats summarizes the clipped surrogate objective over a
// minibatch.
type SurrogateStats struct {
	// Loss is the clipped surrogate loss, to be minimized.
	Loss float64
	// ApproxKL is mean((r-1) - log r), an unbiased, non-negative estimator
	// of KL(old || new) (Schulman's "k3"); CleanRL's approx_kl.
	ApproxKL float64
	// OldApproxKL is mean(-log r), CleanRL's old_approx_kl.
	OldApproxKL float64
	// ClipFrac is the fraction of samples with |r-1| > clip.
	ClipFrac float64
}

// ClippedSurrogate computes the PPO-clip policy loss of a minibatch (003
// eq. (1) and 004 Algorithm 1 line 7, negated to be minimized, as CleanRL's
// pg_loss):
//
//	r_i = exp(newLogp_i - oldLogp_i)
//	L   = (1/M) sum_i max(-A_i r_i, -A_i clamp(r_i, 1-clip, 1+clip))
//
// and, when dLogp is not nil, writes dL/dnewLogp_i to it:
//
//	-A_i r_i / M   where the unclipped term is not the smaller,
//	0              where the clipped term is the larger (the clamp is flat).
//
// The terms tie inside the clip range, where both give -A_i r_i / M, or
// when A_i = 0; a tie splits the gradient evenly, as PyTorch's maximum
// does, which here changes nothing. Arithmetic is float64. It panics if the
// lengths differ or are 0.
func ClippedSurrogate(dLogp, newLogp, oldLogp, adv []float32, clip float64) SurrogateStats {
	m := len(newLogp)
	if m == 0 || len(oldLogp) != m || len(adv) != m || (dLogp != nil && len(dLogp) != m) {
		panic(fmt.Sprintf("ppo: ClippedSurrogate: newLogp %d, oldLogp %d, adv %d, dLogp %d values: need equal, positive lengths",
			m, len(oldLogp), len(adv), len(dLogp)))
	}
	return clippedSurrogate(dLogp, newLogp, oldLogp, adv, clip, 1/float64(m))
}

// clippedSurrogate is ClippedSurrogate over a part of a minibatch of 1/inv
// samples: its loss and statistics are this part's share of the
// minibatch's means, and its gradients those of the minibatch's loss, so
// that the parts of a minibatch add up to the whole.
func clippedSurrogate(dLogp, newLogp, oldLogp, adv []float32, clip, inv float64) SurrogateStats {
	lo, hi := 1-clip, 1+clip
	var s SurrogateStats
	var clipped int
	for i := range newLogp {
		lr := float64(newLogp[i]) - float64(oldLogp[i])
		r := math.Exp(lr)
		a := float64(adv[i])
		rc := min(max(r, lo), hi)
		t1, t2 := -a*r, -a*rc
		s.Loss += max(t1, t2)
		s.OldApproxKL -= lr
		s.ApproxKL += (r - 1) - lr
		if math.Abs(r-1) > clip {
			clipped++
		}
		if dLogp == nil {
			continue
		}
		// d(-A r)/d logp = -A r. The clamp passes the gradient inside
		// [lo, hi] (bounds included, as torch.clamp) and blocks it outside.
		g1 := -a * r
		g2 := 0.0
		if r >= lo && r <= hi {
			g2 = g1
		}
		dLogp[i] = float32(maxGrad(t1, t2, g1, g2) * inv)
	}
	s.Loss *= inv
	s.ApproxKL *= inv
	s.OldApproxKL *= inv
	s.ClipFrac = float64(clipped) * inv
	return s
}

// ValueLoss computes the value loss of a minibatch (CleanRL's v_loss). With
// clip > 0 it is the clipped form of the PPO paper's implementations:
//
//	vc_i = oldV_i + clamp(v_i - oldV_i, -clip, clip)
//	L    = (1/2M) sum_i max((v_i - R_i)^2, (vc_i - R_i)^2)
//
// and with clip = 0 the plain L = (1/2M) sum_i (v_i - R_i)^2 (004
// Algorithm 1 line 8, halved); oldV may then be nil. When dv is not nil it
// receives coef * dL/dv_i, the gradient of coef*L (coef is vf_coef), with
// the gradient of a tie split as PyTorch's maximum does. Arithmetic is
// float64. It panics if the lengths differ, are 0, or clip is negative.
func ValueLoss(dv, v, oldV, ret []float32, clip, coef float64) float64 {
	m := len(v)
	if m == 0 || len(ret) != m || (dv != nil && len(dv) != m) || (clip > 0 && len(oldV) != m) || !(clip >= 0) {
		panic(fmt.Sprintf("ppo: ValueLoss: v %d, oldV %d, ret %d, dv %d values, clip %v: need equal, positive lengths and clip >= 0",
			m, len(oldV), len(ret), len(dv), clip))
	}
	return valueLoss(dv, v, oldV, ret, clip, coef, 1/float64(m))
}

// valueLoss is ValueLoss over a part of a minibatch of 1/inv samples, as
// clippedSurrogate.
func valueLoss(dv, v, oldV, ret []float32, clip, coef, inv float64) float64 {
	var loss float64
	for i := range v {
		p, r := float64(v[i]), float64(ret[i])
		du := p - r
		if clip == 0 {
			loss += du * du
			if dv != nil {
				dv[i] = float32(coef * du * inv)
			}
			continue
		}
		o := float64(oldV[i])
		d := p - o
		vc := o + min(max(d, -clip), clip)
		dc := vc - r
		lu, lc := du*du, dc*dc
		loss += max(lu, lc)
		if dv == nil {
			continue
		}
		// d/dv of (1/2)(.)^2 is (.); the clamp passes inside [-clip, clip].
		gu := du
		gc := 0.0
		if d >= -clip && d <= clip {
			gc = dc
		}
		dv[i] = float32(coef * maxGrad(lu, lc, gu, gc) * inv)
	}
	return 0.5 * loss * inv
}

// add accumulates the share o of a part of the minibatch.
func (s *SurrogateStats) add(o SurrogateStats) {
	s.Loss += o.Loss
	s.ApproxKL += o.ApproxKL
	s.OldApproxKL += o.OldApproxKL
	s.ClipFrac += o.ClipFrac
}

// maxGrad is the gradient of max(x1, x2) given the gradients g1 of x1 and
// g2 of x2: the larger operand's, and their mean at a tie, as PyTorch's
// maximum splits it.
func maxGrad(x1, x2, g1, g2 float64) float64 {
	switch {
	case x1 > x2:
		return g1
	case x2 > x1:
		return g2
	}
	return 0.5 * (g1 + g2)
}

// NormalizeAdvantages writes (adv - mean)/(std + 1e-8) to dst, with the
// sample standard deviation (n-1 in the denominator, as torch.std), as
// CleanRL does per minibatch (norm_adv). A single advantage normalizes to
// 0 (torch would give NaN). dst may be adv. It panics if the lengths differ
// or are 0.
func NormalizeAdvantages(dst, adv []float32) {
	n := len(adv)
	if n == 0 || len(dst) != n {
		panic(fmt.Sprintf("ppo: NormalizeAdvantages: dst %d, adv %d values: need equal, positive lengths", len(dst), n))
	}
	mean, inv := advantageScale(adv, nil)
	for i, a := range adv {
		dst[i] = float32((float64(a) - mean) * inv)
	}
}

// advantageScale returns the mean of the advantages adv[k] for k in idx
// (all of adv when idx is nil) and 1/(std + 1e-8), their sample standard
// deviation's: what NormalizeAdvantages subtracts and multiplies by. The
// trainer takes them over a minibatch larger than a chunk through its
// indices, and normalizes it a chunk at a time.
func advantageScale(adv []float32, idx []int) (mean, inv float64) {
	n := len(adv)
	if idx != nil {
		n = len(idx)
	}
	at := func(i int) float64 {
		if idx != nil {
			i = idx[i]
		}
		return float64(adv[i])
	}
	var sum, ss float64
	for i := range n {
		sum += at(i)
	}
	mean = sum / float64(n)
	for i := range n {
		d := at(i) - mean
		ss += d * d
	}
	std := 0.0
	if n > 1 {
		std = math.Sqrt(ss / float64(n-1))
	}
	return mean, 1 / (std + 1e-8)
}

// ExplainedVariance is 1 - Var(ret - v)/Var(ret) (population variances),
// how much of the returns' variance the values explain; NaN when the
// returns are constant, as CleanRL reports.
func ExplainedVariance(v, ret []float32) float64 {
	n := len(ret)
	if n == 0 || len(v) != n {
		panic(fmt.Sprintf("ppo: ExplainedVariance: v %d, ret %d values: need equal, positive lengths", len(v), n))
	}
	var sr, sd float64
	for i := range ret {
		sr += float64(ret[i])
		sd += float64(ret[i]) - float64(v[i])
	}
	mr, md := sr/float64(n), sd/float64(n)
	var vr, vd float64
	for i := range ret {
		a := float64(ret[i]) - mr
		b := float64(ret[i]) - float64(v[i]) - md
		vr += a * a
		vd += b * b
	}
	if vr == 0 {
		return math.NaN()
	}
	return 1 - vd/vr
}
