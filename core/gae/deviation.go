package gae

import (
	"fmt"
	"math"
)

// Deviation compares the advantages and returns of a configuration with
// those of the same configuration stored in float32 (the same scaling,
// Bits 0): the error that quantization adds, in the units the PPO loss sees.
type Deviation struct {
	MaxAbsAdv, RMSAdv float64 // |A - A_fp32|: largest and root mean square
	MaxAbsRet, RMSRet float64 // the same for the returns
	RMSAdvFP32        float64 // root mean square of A_fp32, the yardstick for the above
	Clipped           int     // standardized inputs beyond Clip, clamped to the end codes
}

// MeasureDeviation computes r under opt and under opt stored in float32,
// each with fresh statistics, and compares them. It does not modify r
// (InPlace is ignored) and allocates two Estimators: it is a diagnostic,
// not a step of the training loop.
func MeasureDeviation(opt Options, r Rollout, gamma, lambda float32) (Deviation, error) {
	opt.InPlace = false
	ref := opt
	ref.Rewards.Bits, ref.Values.Bits = 0, 0
	if err := checkShape(r.T, r.N); err != nil {
		return Deviation{}, err
	}
	eq, err := NewEstimator(r.T, r.N, opt)
	if err != nil {
		return Deviation{}, err
	}
	ef, err := NewEstimator(r.T, r.N, ref)
	if err != nil {
		return Deviation{}, err
	}
	aq, rq, err := eq.Estimate(r, gamma, lambda)
	if err != nil {
		return Deviation{}, fmt.Errorf("%v: %w", opt, err)
	}
	af, rf, err := ef.Estimate(r, gamma, lambda)
	if err != nil {
		return Deviation{}, fmt.Errorf("%v: %w", ref, err)
	}
	var d Deviation
	var sa, sr, sf float64
	for k := range aq {
		ea := math.Abs(float64(aq[k]) - float64(af[k]))
		er := math.Abs(float64(rq[k]) - float64(rf[k]))
		d.MaxAbsAdv = max(d.MaxAbsAdv, ea)
		d.MaxAbsRet = max(d.MaxAbsRet, er)
		sa += ea * ea
		sr += er * er
		sf += float64(af[k]) * float64(af[k])
	}
	n := float64(len(aq))
	d.RMSAdv, d.RMSRet, d.RMSAdvFP32 = math.Sqrt(sa/n), math.Sqrt(sr/n), math.Sqrt(sf/n)
	d.Clipped = eq.Clipped()
	return d, nil
}
