package dse

import (
	"strings"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

// fpgaWithout returns the Table IV platform with every SLR's resources
// set to 0: an FPGA that can hold nothing.
func fpgaWithout(t *testing.T) *hw.Platform {
	t.Helper()
	p := tableIV(t)
	f := *p.FPGA
	f.SLRs = make([]hw.SLRSpec, len(p.FPGA.SLRs))
	p.FPGA = &f
	return p
}

// TestExploreNeverPlacesWhatDoesNotFit: on an FPGA without resources
// neither the learner nor the RMM is designed, the exploration says why,
// no mapping puts either there and Algorithm 3 chooses elsewhere (Hopper
// DDPG 16384 chose G-F-G on such an FPGA, with "DSP 40 of 0").
func TestExploreNeverPlacesWhatDoesNotFit(t *testing.T) {
	r := explore(t, fpgaWithout(t), "Hopper", 16384)
	if r.Arch.RMM.S != 0 || r.Arch.Learner != nil {
		t.Fatalf("designs on an FPGA of no resources: RMM S=%d %+v, learner %v", r.Arch.RMM.S, r.Arch.RMM.Resources, r.Arch.Learner)
	}
	for _, want := range []string{"needs DSP 40", "the RMM SLRs have DSP 0, LUT 0, FF 0, SRAM 0.0 MB"} {
		if !strings.Contains(r.Arch.NoRMM, want) {
			t.Errorf("NoRMM %q lacks %q", r.Arch.NoRMM, want)
		}
	}
	if !strings.Contains(r.Arch.NoLearner, "at most 0 DSP each and 0.0 MB SRAM") {
		t.Errorf("NoLearner %q", r.Arch.NoLearner)
	}
	if m := r.Decision.Mapping; m.Learner == hw.FPGA || m.RMM == hw.FPGA {
		t.Errorf("Algorithm 3 chose %s on an FPGA that holds nothing", m)
	}
	for _, ev := range r.Evals {
		onFPGA := ev.Mapping.Learner == hw.FPGA || ev.Mapping.RMM == hw.FPGA
		if onFPGA && (ev.GPS != 0 || !strings.Contains(ev.Infeasible, "fits")) {
			t.Errorf("%s: %g GPS, %q; want infeasible, saying nothing fits", ev.Mapping, ev.GPS, ev.Infeasible)
		}
	}
}

// TestExploreNoRMMSLR: rmm_slrs 0 reserves no SLR for the RMM, so the RMM
// is never on the FPGA, while the learner still is where it fits.
func TestExploreNoRMMSLR(t *testing.T) {
	p := tableIV(t)
	f := *p.FPGA
	f.RMMSLRs = 0
	p.FPGA = &f
	r := explore(t, p, "Hopper", 16384)
	if r.Arch.RMM.S != 0 || !strings.Contains(r.Arch.NoRMM, "rmm_slrs: 0") {
		t.Errorf("RMM S=%d, NoRMM %q", r.Arch.RMM.S, r.Arch.NoRMM)
	}
	if r.Arch.Learner == nil {
		t.Errorf("no learner on 3 learner SLRs: %s", r.Arch.NoLearner)
	}
	if r.Decision.Mapping.RMM == hw.FPGA {
		t.Errorf("chose %s with no RMM SLR", r.Decision.Mapping)
	}
}

// TestExploreDesignsFit: over the Table V grid every design the
// exploration keeps fits its SLRs.
func TestExploreDesignsFit(t *testing.T) {
	p := tableIV(t)
	for _, c := range TableVGrid {
		r := explore(t, p, c.Env, c.Batch)
		if r.Arch.RMM.S == 0 || !r.Arch.RMM.Resources.Fits(r.Arch.RMMBudget) {
			t.Errorf("%s %d: RMM S=%d uses %+v of %+v", c.Env, c.Batch, r.Arch.RMM.S, r.Arch.RMM.Resources, r.Arch.RMMBudget)
		}
		if l := r.Arch.Learner; l != nil && !l.Resources.Fits(r.Arch.LearnerBudget) {
			t.Errorf("%s %d: learner uses %+v of %+v", c.Env, c.Batch, l.Resources, r.Arch.LearnerBudget)
		}
	}
}
