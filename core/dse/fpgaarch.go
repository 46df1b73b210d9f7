package dse

import (
	"math"

	"github.com/rlxdev/rlx/hw"
)

// FPGAArch is the result of the FPGA architecture exploration of 000
// §VI-A2 for one workload and batch.
type FPGAArch struct {
	// Learner is the fastest learner design that fits the learner SLRs, nil
	// when none fits (the network's buffers exceed the SRAM).
	Learner *hw.LearnerDesign
	// RMM is the replay manager with its bank factor S.
	RMM hw.RMMDesign
	// LearnerBudget and RMMBudget are the resources of their SLRs.
	LearnerBudget, RMMBudget hw.Resources
}

// Design returns the hw view of the architecture.
func (a *FPGAArch) Design() *hw.FPGADesign {
	return &hw.FPGADesign{Learner: a.Learner, RMM: a.RMM}
}

// ExploreFPGA runs the architecture exploration of 000 §VI-A2 for w at its
// batch on spec. For every data-parallel factor DP (powers of two up to the
// batch) it balances the stages (MAC units r_i x f, step a), grows f until
// a pipeline no longer fits its SLR or the buffers the SRAM (step b), and
// keeps the DP with the smallest T_pipeline + T_WU. The RMM gets its own
// SLR(s) and the bank factor of hw.ChooseRMMBanks.
func ExploreFPGA(spec *hw.FPGASpec, w *hw.Workload) FPGAArch {
	arch := FPGAArch{
		RMM:           hw.ChooseRMMBanks(spec, w, w.Batch),
		LearnerBudget: spec.Budget(spec.RMMSLRs, len(spec.SLRs)),
		RMMBudget:     spec.RMMBudget(),
	}
	if len(spec.LearnerSLRs()) == 0 {
		return arch
	}
	stages := hw.LearnerStages(w)
	var best *hw.LearnerDesign
	for dp := 1; dp <= w.Batch && dp <= 64; dp *= 2 {
		d, ok := bestForDP(spec, w, stages, dp)
		if !ok {
			continue
		}
		if best == nil || d.Cycles() < best.Cycles() {
			best = &d
		}
	}
	arch.Learner = best
	return arch
}

// bestForDP finds the largest f that fits (binary search on a log scale:
// the units, hence the resources, grow with f), then tries smaller f down
// to half of it, since rounding can make a slightly smaller allocation
// faster, and keeps the fastest.
func bestForDP(spec *hw.FPGASpec, w *hw.Workload, stages []hw.Stage, dp int) (hw.LearnerDesign, bool) {
	fits := func(f float64) bool {
		d := hw.NewLearnerDesign(spec, w, stages, w.Batch, dp, f)
		return hw.FitsLearnerSLRs(spec, &d)
	}
	lo, hi := math.Log(1e-9), math.Log(1e6)
	if !fits(math.Exp(lo)) {
		return hw.LearnerDesign{}, false
	}
	for range 60 {
		mid := (lo + hi) / 2
		if fits(math.Exp(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	fmax := math.Exp(lo)
	var best hw.LearnerDesign
	for i := range 16 {
		f := fmax * (1 - float64(i)/32)
		d := hw.NewLearnerDesign(spec, w, stages, w.Batch, dp, f)
		if !hw.FitsLearnerSLRs(spec, &d) {
			continue
		}
		if best.DP == 0 || d.Cycles() < best.Cycles() {
			best = d
		}
	}
	return best, best.DP != 0
}
