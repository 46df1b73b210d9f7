package gae

import (
	"fmt"
	"math"
)

// Scale is the standardization a stream went through: z = (x-Mean)/Std.
// NoScaling is Mean 0, Std 1.
type Scale struct {
	Mean, Std float64
}

// Scales are the scales of the last batch an Estimator computed.
type Scales struct {
	Rewards, Values Scale
}

// Estimator computes GAE for successive batches of one shape (T, N) with the
// numerics and layout of its Options: the piece of a PPO loop between
// collecting a rollout and the loss. It owns the running reward (and value)
// statistics of dynamic standardization, the code buffers of quantized
// streams and, unless in place, the output buffers, all allocated by
// NewEstimator: Estimate allocates nothing.
//
// For each batch, Estimate
//
//  1. checks the rollout (shape, gamma, lambda, NaN and Inf) before it
//     changes any state;
//  2. standardizes each stream: running statistics updated with the batch
//     first (004 §II-A), or this batch's (004 §II-B);
//  3. stores quantized streams as n-bit codes of the standardized values
//     (004 §II-C);
//  4. reads every stream back, de-quantizing and de-standardizing as
//     configured, inside the GAE sweep (the dequantize-then-compute of the
//     HEPPO processing element, 004 §III-A), and writes the advantages and
//     returns.
//
// With identity streams (float32 and unscaled, or scaled and restored)
// Estimate is Compute. Otherwise it runs a portable fused kernel on the
// calling goroutine, O(T*N).
//
// An Estimator is not safe for concurrent use.
type Estimator struct {
	t, n   int
	opt    Options
	rq, vq Quantizer

	rewStats, valStats RunningStats
	scales             Scales

	// Codes of quantized streams: 8-bit ones in the uint8 buffers, wider
	// ones in the uint16 buffers.
	rew8, val8, nval8    []uint8
	rew16, val16, nval16 []uint16

	adv, ret []float32 // outputs, unless InPlace

	clipped int // standardized inputs of the last batch beyond Clip
}

// NewEstimator returns an Estimator for rollouts of shape (T, N). It returns
// an error if the shape or the options are out of range.
func NewEstimator(T, N int, opt Options) (*Estimator, error) {
	if err := checkShape(T, N); err != nil {
		return nil, err
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	e := &Estimator{t: T, n: N, opt: opt}
	n := T * N
	var err error
	if b := opt.Rewards.Bits; b > 0 {
		if e.rq, err = NewQuantizer(b, opt.clip()); err != nil {
			return nil, err
		}
		if b <= 8 {
			e.rew8 = make([]uint8, n)
		} else {
			e.rew16 = make([]uint16, n)
		}
	}
	if b := opt.Values.Bits; b > 0 {
		if e.vq, err = NewQuantizer(b, opt.clip()); err != nil {
			return nil, err
		}
		if b <= 8 {
			e.val8, e.nval8 = make([]uint8, n), make([]uint8, n)
		} else {
			e.val16, e.nval16 = make([]uint16, n), make([]uint16, n)
		}
	}
	if !opt.InPlace {
		e.adv, e.ret = make([]float32, n), make([]float32, n)
	}
	e.Reset()
	return e, nil
}

// Options returns the options e was made with.
func (e *Estimator) Options() Options { return e.opt }

// Reset forgets the running statistics, as at the start of a run.
func (e *Estimator) Reset() {
	e.rewStats, e.valStats = RunningStats{}, RunningStats{}
	e.scales = Scales{Rewards: Scale{0, 1}, Values: Scale{0, 1}}
	e.clipped = 0
}

// RewardStats returns the running statistics of the rewards seen so far
// (empty unless Rewards.Scaling is RunningScaling), for a checkpoint.
func (e *Estimator) RewardStats() RunningStats { return e.rewStats }

// SetRewardStats restores running reward statistics from a checkpoint. It
// returns an error, and changes nothing, if s is not a possible state.
func (e *Estimator) SetRewardStats(s RunningStats) error {
	if err := checkStats(s); err != nil {
		return err
	}
	e.rewStats = s
	return nil
}

// ValueStats and SetValueStats are RewardStats and SetRewardStats for the
// values, when Values.Scaling is RunningScaling.
func (e *Estimator) ValueStats() RunningStats { return e.valStats }

// SetValueStats restores running value statistics; see SetRewardStats.
func (e *Estimator) SetValueStats(s RunningStats) error {
	if err := checkStats(s); err != nil {
		return err
	}
	e.valStats = s
	return nil
}

func checkStats(s RunningStats) error {
	if s.N < 0 || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) || !(s.M2 >= 0) || math.IsInf(s.M2, 0) ||
		(s.N == 0 && (s.Mean != 0 || s.M2 != 0)) {
		return fmt.Errorf("%w: running statistics %+v are not possible: need N >= 0, finite Mean, finite M2 >= 0, and zeros when N = 0",
			ErrRange, s)
	}
	return nil
}

// Scales returns the scales the last batch was standardized with: what a
// PPO loop needs to read standardized returns (Restore false) in the
// stream's units.
func (e *Estimator) Scales() Scales { return e.scales }

// Clipped returns how many standardized inputs (rewards, values and next
// values) of the last batch fell outside [-Clip, Clip] and were clamped to
// the quantizer's end codes.
func (e *Estimator) Clipped() int { return e.clipped }

// Estimate computes the advantages and returns of r, which must have the
// Estimator's shape. Without InPlace, adv and ret are the Estimator's own
// buffers, valid until the next call; with InPlace they are r.Rewards and
// r.Values, overwritten. It returns the errors of Compute; on an error
// other than an overflow, r and the Estimator's state are unchanged.
func (e *Estimator) Estimate(r Rollout, gamma, lambda float32) (adv, ret []float32, err error) {
	if r.T != e.t || r.N != e.n {
		return nil, nil, fmt.Errorf("%w: rollout is %dx%d, the Estimator is for %dx%d (T x N)", ErrShape, r.T, r.N, e.t, e.n)
	}
	adv, ret = e.adv, e.ret
	if e.opt.InPlace {
		adv, ret = r.Rewards, r.Values
	}
	if err := r.validate(len(adv), len(ret), float64(gamma), float64(lambda), 32); err != nil {
		return nil, nil, err
	}
	if _, err := checkAlias(adv, ret, &r, e.opt.InPlace); err != nil {
		return nil, nil, err
	}
	if err := r.checkFinite(); err != nil {
		return nil, nil, err
	}

	// Standardize: running statistics take the batch in first (004 §II-A:
	// "accounting for all previously attained rewards", these included).
	rs := e.scale(e.opt.Rewards, &e.rewStats, r.Rewards)
	vs := e.scale(e.opt.Values, &e.valStats, r.Values)
	e.scales = Scales{Rewards: rs, Values: vs}

	if e.opt.Rewards.identity() && e.opt.Values.identity() {
		// Nothing to transform: the fast kernels read the input, which is
		// checked already.
		if err := sweep(adv, ret, &r, gamma, lambda); err != nil {
			return nil, nil, err
		}
		e.clipped = 0
		return adv, ret, nil
	}

	// Store quantized streams as codes of the standardized values.
	e.clipped = 0
	if e.opt.Rewards.Bits > 0 {
		e.clipped += storeCodes(e.rew8, e.rew16, e.rq, r.Rewards, rs)
	}
	if e.opt.Values.Bits > 0 {
		e.clipped += storeCodes(e.val8, e.val16, e.vq, r.Values, vs)
		e.clipped += storeCodes(e.nval8, e.nval16, e.vq, r.NextValues, vs)
	}

	ra := readMap(e.opt.Rewards, e.rq, rs)
	va := readMap(e.opt.Values, e.vq, vs)
	ok := e.decode(adv, ret, &r, ra, va, gamma, gamma*lambda)
	if !ok {
		return nil, nil, overflowError(adv, ret, r.N)
	}
	return adv, ret, nil
}

// scale updates the statistics of one stream with the batch x and returns
// the scale to standardize it with.
func (e *Estimator) scale(s Stream, running *RunningStats, x []float32) Scale {
	var st RunningStats
	switch s.Scaling {
	case NoScaling:
		return Scale{0, 1}
	case RunningScaling:
		running.Update(x)
		st = *running
	case BlockScaling:
		st = batchStats(x)
	}
	return Scale{Mean: st.Mean, Std: max(st.Std(), MinStd)}
}

// storeCodes quantizes the standardized x into whichever code buffer is in
// use.
func storeCodes(c8 []uint8, c16 []uint16, q Quantizer, x []float32, s Scale) int {
	if c8 != nil {
		return quantizeScaled(c8, q, x, s.Mean, 1/s.Std)
	}
	return quantizeScaled(c16, q, x, s.Mean, 1/s.Std)
}

// affine is how the kernel reads a stored stream back: x = stored*a + b.
type affine struct{ a, b float32 }

// readMap folds de-quantization and de-standardization into one affine map
// from what is stored (a float32 input or a code) to what the kernel uses.
func readMap(s Stream, q Quantizer, sc Scale) affine {
	mean, std := 0.0, 1.0
	if s.Restore && s.Scaling != NoScaling {
		mean, std = sc.Mean, sc.Std
	}
	if s.Bits == 0 {
		if s.Scaling == NoScaling || s.Restore {
			return affine{1, 0}
		}
		// Kept standardized: z = (x - mean)/std.
		return affine{float32(1 / sc.Std), float32(-sc.Mean / sc.Std)}
	}
	// z = -clip + code*step, then x = z*std + mean when restored.
	return affine{float32(q.step * std), float32(-q.clip*std + mean)}
}

// decode runs the fused kernel on the stored representation of each stream.
func (e *Estimator) decode(adv, ret []float32, r *Rollout, ra, va affine, gamma, c float32) bool {
	T, N := r.T, r.N
	switch {
	case e.rew8 != nil:
		return decodeValues(adv, ret, e.rew8, e, r, ra, va, T, N, gamma, c)
	case e.rew16 != nil:
		return decodeValues(adv, ret, e.rew16, e, r, ra, va, T, N, gamma, c)
	}
	return decodeValues(adv, ret, r.Rewards, e, r, ra, va, T, N, gamma, c)
}

func decodeValues[R sample](adv, ret []float32, rew []R, e *Estimator, r *Rollout, ra, va affine, T, N int, gamma, c float32) bool {
	switch {
	case e.val8 != nil:
		return decodeGAE(adv, ret, rew, e.val8, e.nval8, r.Terminated, r.Truncated, T, N, ra, va, gamma, c)
	case e.val16 != nil:
		return decodeGAE(adv, ret, rew, e.val16, e.nval16, r.Terminated, r.Truncated, T, N, ra, va, gamma, c)
	}
	return decodeGAE(adv, ret, rew, r.Values, r.NextValues, r.Terminated, r.Truncated, T, N, ra, va, gamma, c)
}

// sample is what a stream is stored as: float32 or a code.
type sample interface{ ~float32 | ~uint8 | ~uint16 }

// decodeGAE is the recurrence of Compute on streams read back through ra
// (rewards) and va (values and next values). Like the Go kernel it sweeps
// rows backward and reads the carry from the row below; it reports whether
// every return is finite. adv may be rew and ret may be val when they are
// float32 (in place).
func decodeGAE[R, V sample](adv, ret []float32, rew []R, val, nval []V, term, trunc []bool,
	T, N int, ra, va affine, gamma, c float32) bool {
	tmb, trb := asBytes(term), asBytes(trunc)
	var chk float32
	for t := T - 1; t >= 0; t-- {
		o := t * N
		a, rt := adv[o:o+N], ret[o:o+N]
		r, v, nv := rew[o:o+N], val[o:o+N], nval[o:o+N]
		tm, tr := tmb[o:o+N], trb[o:o+N]
		var an []float32
		if t < T-1 {
			an = adv[o+N : o+2*N]
		}
		for j := range a {
			rr := float32(r[j])*ra.a + ra.b
			vv := float32(v[j])*va.a + va.b
			nn := float32(nv[j])*va.a + va.b
			x := rr + gamma*float32(1-tm[j])*nn - vv
			if an != nil {
				x += c * float32(1-(tm[j]|tr[j])) * an[j]
			}
			y := x + vv
			a[j], rt[j] = x, y
			chk += y * 0
		}
	}
	return chk == 0
}
