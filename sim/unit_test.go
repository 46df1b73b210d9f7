package sim

import (
	"math"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

func TestResourceQueuesAndMerges(t *testing.T) {
	var r unit
	steps := []struct{ ready, dur, start, end float64 }{
		{0, 1, 0, 1},
		{0.5, 1, 1, 2},     // queued behind the first: touches, merged
		{5, 2, 5, 7},       // idle gap
		{6, 0.5, 7, 7.5},   // queued again
		{100, 0, 100, 100}, // no work: no interval
	}
	for i, s := range steps {
		start, end := r.run(s.ready, s.dur)
		if start != s.start || end != s.end {
			t.Fatalf("step %d: ran [%v, %v), want [%v, %v)", i, start, end, s.start, s.end)
		}
	}
	tr := r.trace(0, 10)
	iv, util := tr.Busy, tr.Utilization
	want := []Interval{{0, 2}, {5, 7.5}}
	if len(iv) != len(want) || iv[0] != want[0] || iv[1] != want[1] {
		t.Fatalf("intervals %v, want %v", iv, want)
	}
	if math.Abs(util-0.45) > 1e-12 || r.busy != 4.5 {
		t.Errorf("utilization %v, busy %v; want 0.45 and 4.5", util, r.busy)
	}
	tr = r.trace(1.5, 6)
	iv, util = tr.Busy, tr.Utilization
	if len(iv) != 2 || iv[0] != (Interval{1.5, 2}) || iv[1] != (Interval{5, 6}) || math.Abs(util-1.5/4.5) > 1e-12 {
		t.Errorf("clipped window: %v, %v", iv, util)
	}
}

func TestResourceRingKeepsTheLatest(t *testing.T) {
	var r unit
	for i := range 3 * ringSize {
		r.run(float64(2*i), 1) // never touching: one interval each
	}
	iv := r.trace(0, math.Inf(1)).Busy
	if len(iv) != ringSize || iv[len(iv)-1].Start != float64(2*(3*ringSize-1)) {
		t.Errorf("%d intervals, last %v", len(iv), iv[len(iv)-1])
	}
}

// TestChargingAllocatesNothing: the charging functions run per gradient
// step, per insert and per vector step of a run, on every mapping.
func TestChargingAllocatesNothing(t *testing.T) {
	p := defaultPlatform(t)
	w := hopperDDPG(t, 256)
	w.Depth, w.Actors = 8, 4
	_, off := newClock(t, p, w, nil)
	ppo, err := NewPPO(p, cartPolePPO(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	it := ppo.Iteration()
	for _, m := range []hw.Mapping{{}, {Learner: hw.GPU, RMM: hw.FPGA, Storage: hw.GPU}, {Learner: hw.FPGA, RMM: hw.FPGA, Storage: hw.FPGA}} {
		if err := ppo.Remap(m); err != nil {
			t.Fatal(err)
		}
		runIterations(ppo, 1) // the mapping's units exist
		for name, charge := range map[string]func(){
			"GradientStep": func() { off.GradientStep() }, "ActorSteps": func() { off.ActorSteps(10) },
			"EnvSteps": func() { ppo.EnvSteps(it.Envs) }, "Inference": func() { ppo.Inference(it.Envs) },
			"Store": func() { ppo.Store(it.Envs) }, "GAE": func() { ppo.GAE(it.Samples()) },
			"Minibatch": ppo.Minibatch, "EndIteration": ppo.EndIteration,
		} {
			if n := testing.AllocsPerRun(100, charge); n != 0 {
				t.Errorf("%s on %s: %v allocations", name, m, n)
			}
		}
	}
}

// TestArrivalsStayBounded: in a run's steady state, actors charging data
// and gradient steps consuming it, the clock's record of arrivals stops
// growing: charging allocates nothing over a long run, which AllocsPerRun,
// rounding an occasional regrowth down to 0, cannot show.
func TestArrivalsStayBounded(t *testing.T) {
	w := hopperDDPG(t, 256)
	w.Depth, w.Actors = 8, 4
	_, off := newClock(t, defaultPlatform(t), w, nil)
	step := func() {
		off.ActorSteps(w.InsertsPerStep())
		off.GradientStep()
	}
	for range 1000 {
		step()
	}
	warm := cap(off.arrivals)
	if n := testing.AllocsPerRun(20000, step); n != 0 || cap(off.arrivals) != warm {
		t.Errorf("steady state: %v allocations per step, arrivals capacity %d after warm-up, %d after 20000 steps", n, warm, cap(off.arrivals))
	}
}
