package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

// traceOf returns the trace of device's stage, nil if there is none.
func traceOf(traces []Trace, device, stage string) *Trace {
	for i := range traces {
		if traces[i].Device == device && traces[i].Stage == stage {
			return &traces[i]
		}
	}
	return nil
}

// traceNames lists the traces' units, "GPU learner, PCIe CPU-GPU, ...".
func traceNames(traces []Trace) string {
	var names []string
	for _, tr := range traces {
		names = append(names, tr.Device+" "+tr.Stage)
	}
	return strings.Join(names, ", ")
}

// busyTime is the total length of intervals.
func busyTime(iv []Interval) float64 {
	sum := 0.0
	for _, v := range iv {
		sum += v.End - v.Start
	}
	return sum
}

// TestGPURMMHasItsOwnTrace: under G-G-G the RMM shares the GPU with the
// learner (000 §VI-B), so their work never overlaps, but each is traced as
// its own: the learner's trace holds the training alone, the RMM's the
// sampling and the priority updates.
func TestGPURMMHasItsOwnTrace(t *testing.T) {
	w := hopperDDPG(t, 256)
	w.Depth, w.Actors = 4, 2
	ggg := hw.Mapping{Learner: hw.GPU, RMM: hw.GPU, Storage: hw.GPU}
	_, s := newClock(t, defaultPlatform(t), w, &ggg)
	const steps = 40 // fewer than traceSteps: the window holds the whole run
	for range steps {
		s.ActorSteps(w.InsertsPerStep())
		s.GradientStep()
	}
	traces, from, _ := s.Traces()
	if from != 0 {
		t.Fatalf("window from %v, want the whole run", from)
	}
	learner, rmm := traceOf(traces, "GPU", "learner"), traceOf(traces, "GPU", "RMM")
	if learner == nil || rmm == nil {
		t.Fatalf("G-G-G traces %s: want a GPU learner and a GPU RMM", traceNames(traces))
	}
	c := s.costs
	// Every batch sampled, D ahead of the steps trained, and every update.
	sampled := float64(s.sampled)*c.sample + steps*c.update
	if got, want := busyTime(learner.Busy), steps*c.train; math.Abs(got-want) > 1e-9*want {
		t.Errorf("GPU learner busy %v s, want the %d steps' training %v s", got, steps, want)
	}
	if got := busyTime(rmm.Busy); math.Abs(got-sampled) > 1e-9*sampled {
		t.Errorf("GPU RMM busy %v s, want its sampling and updates %v s", got, sampled)
	}
	for _, a := range learner.Busy {
		for _, b := range rmm.Busy {
			if a.Start < b.End && b.Start < a.End {
				t.Fatalf("the learner [%v, %v) and the RMM [%v, %v) overlap on one GPU", a.Start, a.End, b.Start, b.End)
			}
		}
	}
	if u := learner.Utilization + rmm.Utilization; u > 1+1e-9 {
		t.Errorf("the GPU's learner and RMM are busy %v of the window together, more than all of it", u)
	}
	for _, tr := range traces {
		if tr.Device == "FPGA" || tr.Stage == "CPU-FPGA" {
			t.Errorf("G-G-G traces %s %s", tr.Device, tr.Stage)
		}
	}
}

// TestRemapLeavesNoTraceBehind: after a switch from F-F-F to G-G-G, the
// FPGA's units and its link are traced while their work is in the window,
// and not once it has left it; the mapping's new units are traced from
// the switch on, before any work.
func TestRemapLeavesNoTraceBehind(t *testing.T) {
	w := hopperDDPG(t, 256)
	w.Depth, w.Actors = 4, 2
	fff := hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}
	_, s := newClock(t, defaultPlatform(t), w, &fff)
	step := func(n int) {
		for range n {
			s.ActorSteps(w.InsertsPerStep())
			s.GradientStep()
		}
	}
	step(100)
	ggg := hw.Mapping{Learner: hw.GPU, RMM: hw.GPU, Storage: hw.GPU}
	if err := s.Remap(ggg); err != nil {
		t.Fatal(err)
	}
	fpga := func(traces []Trace) (n int) {
		for _, tr := range traces {
			if tr.Device == "FPGA" || tr.Stage == "CPU-FPGA" {
				n++
			}
		}
		return n
	}
	traces, _, _ := s.Traces()
	if fpga(traces) == 0 {
		t.Errorf("just after the switch the FPGA's recent work is not traced: %s", traceNames(traces))
	}
	for _, st := range []string{"learner", "RMM", "storage"} {
		if tr := traceOf(traces, "GPU", st); tr == nil || len(tr.Busy) != 0 {
			t.Errorf("just after the switch the GPU %s is not traced idle: traces %s", st, traceNames(traces))
		}
	}
	step(traceSteps + w.LoopDepth())
	traces, _, _ = s.Traces()
	if n := fpga(traces); n != 0 {
		t.Errorf("%d steps after the switch, %d FPGA traces remain: %s", traceSteps+w.LoopDepth(), n, traceNames(traces))
	}
}

// TestPPORemapLeavesNoTraceBehind: a PPO run moved from the FPGA to the
// CPU traces no FPGA unit and no link once the four iterations of its
// window ran on the CPU.
func TestPPORemapLeavesNoTraceBehind(t *testing.T) {
	s, err := NewPPO(defaultPlatform(t), cartPolePPO(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remap(hw.Mapping{Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}); err != nil {
		t.Fatal(err)
	}
	runIterations(s, 3)
	if err := s.Remap(hw.Mapping{}); err != nil { // C-C-C
		t.Fatal(err)
	}
	runIterations(s, 5)
	traces, _, _ := s.Traces()
	for _, tr := range traces {
		if tr.Device != "CPU" {
			t.Errorf("C-C-C five iterations after the switch traces %s", traceNames(traces))
			break
		}
	}
	for _, st := range []string{"learner", "GAE", "storage"} {
		if traceOf(traces, "CPU", st) == nil {
			t.Errorf("no CPU %s among %s", st, traceNames(traces))
		}
	}
}
