package engine

import (
	"math"
	"testing"
	"time"
)

// TestHistoryRatesAndSwitches: the first point, the points before the
// first gradient step and a window in which the simulated clock stood
// still are not rates (NaN, not a 0 drawn as a minimum); a
// change of the running mapping is noted at the simulated and host time of
// the first snapshot after it, with the prediction following the mapping;
// switches older than the window are dropped.
func TestHistoryRatesAndSwitches(t *testing.T) {
	var f rateFeed
	h := &f.h
	snap := func(i int, grad int64, mapping string, pred float64) *Snapshot {
		s := &Snapshot{Config: Config{Algo: DQN}, SimElapsed: float64(i), SimGradSteps: grad, SimGradEnd: float64(i) + 0.5}
		s.HostElapsed = 10 * time.Duration(i) * time.Second
		s.Counters.GradSteps = grad
		s.Mapping.Chosen, s.Mapping.PredictedGPS = mapping, pred
		return s
	}
	f.add(snap(0, 5, "G-F-G", 173)) // the first point: a window of no time
	f.add(snap(1, 0, "G-F-G", 173)) // no gradient step yet
	f.add(snap(2, 40, "G-F-G", 173))
	f.add(snap(3, 90, "G-G-G", 143))
	for i, want := range []bool{false, false, true, true} {
		if got := !math.IsNaN(h.SimRate[i]) && !math.IsNaN(h.HostRate[i]); got != want {
			t.Errorf("point %d: sim %v host %v, want a rate %v", i, h.SimRate[i], h.HostRate[i], want)
		}
	}
	if len(h.Switches) != 1 {
		t.Fatalf("switches %+v, want one", h.Switches)
	}
	if sw := h.Switches[0]; sw.SimTime != 3 || sw.HostTime != 30 || sw.From != "G-F-G" || sw.To != "G-G-G" {
		t.Errorf("switch %+v, want G-F-G to G-G-G at 3 s sim, 30 s host", sw)
	}
	if h.Predicted[2] != 173 || h.Predicted[3] != 143 {
		t.Errorf("predicted %v, want 173 then 143 after the switch", h.Predicted)
	}
	// A snapshot's copy continues from the same mapping: a switch back is
	// one more.
	c := h.clone()
	c.add(snap(4, 100, "G-F-G", 173), true, true)
	if len(c.Switches) != 2 || len(h.Switches) != 1 {
		t.Errorf("switch back on a clone: clone %+v, history %+v", c.Switches, h.Switches)
	}
	for i := range MaxHistory {
		f.add(snap(4+i, 100, "G-G-G", 143))
	}
	if len(h.Switches) != 0 {
		t.Errorf("a switch older than the window is kept: %+v", h.Switches)
	}

	// The first step ends at point 3, then the host finishes no step for
	// a whole window: the sim rate is measured from the window's first
	// point at which a step had ended (point 3 on), where the steps' ends
	// moved since; the host's is a measured 0 throughout. The snapshot's own rate agrees with the
	// chart: the same value where the chart has one, 0 where not.
	var still rateFeed
	const stall = 3 + rateSpan
	var simGPS []float64
	for i := range stall + rateSpan {
		s := snap(i, 10*int64(i), "G-F-G", 173)
		s.SimGradEnd = float64(min(i, stall))
		if i < 3 {
			s.SimGradEnd = 0
		}
		if i >= stall {
			s.Counters.GradSteps, s.SimGradSteps = 10*stall, 10*stall
		}
		still.add(s)
		simGPS = append(simGPS, s.Sim.GPS)
	}
	for i, v := range still.h.SimRate {
		from := max(i-(rateSpan-1), 3) // the window's first point with a step's end
		want := from < i && from < stall
		if got := !math.IsNaN(v); got != want || (i > 0 && math.IsNaN(still.h.HostRate[i])) {
			t.Errorf("point %d (rate from %d, steps from 3, stalled from %d): sim rate %v host %v, want a sim rate %v",
				i, from, stall, v, still.h.HostRate[i], want)
		}
		if agree := (want && v == simGPS[i]) || (!want && simGPS[i] == 0); !agree {
			t.Errorf("point %d: the snapshot's sim rate %v, the chart's %v", i, simGPS[i], v)
		}
	}
}

// rateFeed publishes snapshots as a run does: the rate window measures
// the rates and decides whether they span time, the history reads that.
type rateFeed struct {
	w rateWindow
	h History
}

func (f *rateFeed) add(s *Snapshot) {
	f.w.update(s)
	s.Host, s.Sim = f.w.host, f.w.sim
	f.h.add(s, f.w.hostSpans, f.w.simSpans)
}
