package dse

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/hw"
)

// FPGAArch is the result of the FPGA architecture exploration of 000
// §VI-A2 for one workload and batch.
type FPGAArch struct {
	// Learner is the fastest learner design that fits the learner SLRs, nil
	// when none fits (the network's buffers exceed the SRAM).
	Learner *hw.LearnerDesign
	// RMM is the replay manager with its bank factor S; the zero design
	// (S = 0, which the estimator does not run) when not even one
	// pipeline fits the RMM's SLRs.
	RMM hw.RMMDesign
	// LearnerBudget and RMMBudget are the resources of their SLRs.
	LearnerBudget, RMMBudget hw.Resources
	// NoLearner and NoRMM say why Learner is nil or RMM.S is 0: what the
	// smallest design needs against what its SLRs have. Empty when there
	// is a design.
	NoLearner, NoRMM string
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
//
// A design is accepted only if it fits its SLRs: a device file may give an
// SLR none of a resource, or reserve no SLR for the RMM (rmm_slrs: 0), and
// then nothing is placed there; NoLearner and NoRMM say why.
func ExploreFPGA(spec *hw.FPGASpec, w *hw.Workload) FPGAArch {
	arch := FPGAArch{
		LearnerBudget: spec.Budget(spec.RMMSLRs, len(spec.SLRs)),
		RMMBudget:     spec.RMMBudget(),
	}
	arch.RMM, arch.NoRMM = fitRMM(spec, w)
	if len(spec.LearnerSLRs()) == 0 {
		arch.NoLearner = "no SLR is left for the learner (fpga.rmm_slrs reserves them all)"
		return arch
	}
	stages := hw.LearnerStages(w)
	var best *hw.LearnerDesign
	for dp := 1; dp <= w.Batch && dp <= 64; dp *= 2 {
		// bestForDP keeps only designs that fit their SLRs (a pipeline's
		// DSP in one SLR, the SRAM of them all), hence the total too.
		d, ok := bestForDP(spec, w, stages, dp)
		if !ok {
			continue
		}
		if best == nil || d.Cycles() < best.Cycles() {
			best = &d
		}
	}
	arch.Learner = best
	if best == nil {
		arch.NoLearner = noLearnerReason(spec, w, stages)
	}
	return arch
}

// fitRMM returns the RMM design of hw.ChooseRMMBanks for w at its batch,
// or the zero design and why when not even one pipeline (S = 1) fits the
// SLRs reserved for the RMM: ChooseRMMBanks starts from S = 1 whatever
// the budget.
func fitRMM(spec *hw.FPGASpec, w *hw.Workload) (hw.RMMDesign, string) {
	if spec.RMMSLRs == 0 {
		return hw.RMMDesign{}, "no SLR is reserved for the RMM (fpga.rmm_slrs: 0)"
	}
	d := hw.ChooseRMMBanks(spec, w, w.Batch)
	if budget := spec.RMMBudget(); !d.Resources.Fits(budget) {
		return hw.RMMDesign{}, fmt.Sprintf("one pipeline (S=1, H=%d) needs %s; the RMM SLRs have %s",
			d.H, resourceList(d.Resources), resourceList(budget))
	}
	return d, ""
}

// noLearnerReason says why no learner design fits: the smallest one, a
// single pipeline with one MAC unit per stage, against the largest DSP
// count of one learner SLR (a pipeline may not span SLRs) and the SRAM of
// them all.
func noLearnerReason(spec *hw.FPGASpec, w *hw.Workload, stages []hw.Stage) string {
	d := hw.NewLearnerDesign(spec, w, stages, w.Batch, 1, 0)
	perPipe := 0
	for _, u := range d.Units {
		perPipe += u
	}
	perPipe *= spec.DSPPerMAC
	maxDSP := 0
	var sram float64
	for _, s := range spec.LearnerSLRs() {
		maxDSP = max(maxDSP, s.DSP)
		sram += s.SRAMMB
	}
	return fmt.Sprintf("the smallest design (one pipeline, one MAC unit for each of its %d stages) needs %d DSP in one SLR and %.1f MB SRAM; "+
		"the learner SLRs have at most %d DSP each and %.1f MB SRAM", len(stages), perPipe, d.Resources.SRAMMB, maxDSP, sram)
}

// resourceList renders the resources an RMM uses or has.
func resourceList(r hw.Resources) string {
	return fmt.Sprintf("DSP %d, LUT %d, FF %d, SRAM %.1f MB", r.DSP, r.LUT, r.FF, r.SRAMMB)
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
