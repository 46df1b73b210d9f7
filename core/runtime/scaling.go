package runtime

import (
	"sync/atomic"
	"time"
)

// Profile is an Observer that accumulates, per unit role and primitive
// kind, the number of calls, the items and the host time. It is safe for
// concurrent use and allocates nothing per event: the measured primitive
// times of the scaling models below come from it.
type Profile struct {
	cells [numRoles][numKinds]profileCell
}

type profileCell struct {
	calls, items, ns atomic.Int64
}

// Observe records e.
func (p *Profile) Observe(e Event) {
	if e.Unit.Role >= numRoles || e.Kind >= numKinds {
		return
	}
	c := &p.cells[e.Unit.Role][e.Kind]
	c.calls.Add(1)
	c.items.Add(int64(e.Items))
	c.ns.Add(int64(e.End - e.Start))
}

// Calls returns the number of calls of kind k by units of role r.
func (p *Profile) Calls(r Role, k Kind) int64 { return p.cells[r][k].calls.Load() }

// Total returns their summed host time.
func (p *Profile) Total(r Role, k Kind) time.Duration {
	return time.Duration(p.cells[r][k].ns.Load())
}

// Mean returns their mean host time, 0 if there was none.
func (p *Profile) Mean(r Role, k Kind) time.Duration {
	n := p.cells[r][k].calls.Load()
	if n == 0 {
		return 0
	}
	return time.Duration(p.cells[r][k].ns.Load() / n)
}

// PrimitiveTimes are the times of one policy update's primitives in the
// notation of 001 Table 5.2, in seconds: B is the batch of single-learner
// ApeX, b = B/L the batch of each of L learners.
type PrimitiveTimes struct {
	L int `json:"l"` // learners
	H int `json:"h"` // local steps between weight averagings (SPO)

	SampleB   float64 `json:"sample_B"`   // T^B_sample
	PriorityB float64 `json:"priority_B"` // T^B_priority
	ForwardB  float64 `json:"forward_B"`  // T^B_for
	BackwardB float64 `json:"backward_B"` // T^B_back
	Sampleb   float64 `json:"sample_b"`   // T^b_sample
	Priorityb float64 `json:"priority_b"` // T^b_priority
	Forwardb  float64 `json:"forward_b"`  // T^b_for
	Backwardb float64 `json:"backward_b"` // T^b_back
	Update    float64 `json:"update"`     // T_Update, the optimizer step

	SubBatchTrans float64 `json:"sub_batch_trans"` // T^Sub-batch_Trans
	GradTrans     float64 `json:"grad_trans"`      // T^Gradient_Trans
	WeightTrans   float64 `json:"weight_trans"`    // T^Weight_Trans
	Average       float64 `json:"average"`         // T^L_Average, gradient or weight averaging of L learners
}

// ApeX is 001 Eq. 5.2, one policy update of single-learner ApeX:
// T^B_sample + T^B_for + T^B_back + T_Update + T^B_priority.
func (p PrimitiveTimes) ApeX() float64 {
	return p.SampleB + p.ForwardB + p.BackwardB + p.Update + p.PriorityB
}

// DataParallelApeX is 001 Eq. 5.1, one policy update of multi-learner
// data-parallel ApeX: the central sample and priority update of B, the
// sub-batch, gradient and weight transfers, one learner's forward and
// backward of b, the averaging of L gradients and the update.
func (p PrimitiveTimes) DataParallelApeX() float64 {
	return p.SampleB + p.SubBatchTrans + p.Forwardb + p.Backwardb + p.GradTrans +
		p.Average + p.Update + p.WeightTrans + p.PriorityB
}

// SPO is 001 Eq. 5.5, one policy update of Scalable Policy Optimization:
// each learner samples, trains and updates b on its own bank, and every H
// steps transfers and averages weights,
// T^b_sample + T^b_for + T^b_back + T_Update + T^b_priority + (2 T^Weight_Trans + T^L_Average)/H.
func (p PrimitiveTimes) SPO() float64 {
	h := float64(max(p.H, 1))
	return p.Sampleb + p.Forwardb + p.Backwardb + p.Update + p.Priorityb + (2*p.WeightTrans+p.Average)/h
}

// ScalingDataParallel is the scaling factor of data-parallel ApeX, the
// speedup over single-learner ApeX per learner: T_ApeX / (L T_multi-ApeX)
// with the times of Eq. 5.1 and 5.2. (001 §5.1.4 quotes a 1.25x speedup with
// scaling factor 0.63 at L = 2: the factor is the speedup over L.)
func (p PrimitiveTimes) ScalingDataParallel() float64 {
	return p.ApeX() / (float64(max(p.L, 1)) * p.DataParallelApeX())
}

// ScalingSPO is the scaling factor of SPO, T_ApeX / (L T_SPO) (001
// Eq. 5.6 before its simplification).
func (p PrimitiveTimes) ScalingSPO() float64 {
	return p.ApeX() / (float64(max(p.L, 1)) * p.SPO())
}

// Eq53 is 001 Eq. 5.3 as printed,
//
//	SF = 1 - 1 / (1 + 2 T^b_for / (T^B_replay + T^B_Trans + T^L_Avg)),
//
// with T^B_replay = T^B_sample + T^B_priority and T^B_Trans the three
// transfers: it equals 2 T^b_for / T_multi-ApeX under the section's
// assumptions (T_for = T_back, T^B_for = L T^b_for, T_Update ignored), the
// same as ScalingDataParallel when T_ApeX's replay time is negligible.
func (p PrimitiveTimes) Eq53() float64 {
	rest := p.SampleB + p.PriorityB + p.SubBatchTrans + p.GradTrans + p.WeightTrans + p.Average
	if rest == 0 {
		return 1
	}
	return 1 - 1/(1+2*p.Forwardb/rest)
}

// Eq56 is 001 Eq. 5.6 as printed,
//
//	SF = 1 / (1 + (2 T^Weight_Trans + T^L_Average) L / (T_ApeX H)),
//
// which assumes the b-sized primitives take exactly 1/L of the B-sized ones.
func (p PrimitiveTimes) Eq56() float64 {
	apex := p.ApeX()
	if apex == 0 {
		return 0
	}
	return 1 / (1 + (2*p.WeightTrans+p.Average)*float64(max(p.L, 1))/(apex*float64(max(p.H, 1))))
}
