package engine

import (
	"math"
	"testing"
)

// TestSimRecentIsTheLastQuarter feeds a run whose simulated rate steps from
// 100 to 400 gradient steps per second at three quarters of its simulated
// time, over more snapshots than the window keeps (so that it thins), and
// checks that SimRecent is the last quarter's 400 while the whole-run
// average says otherwise. A run of two snapshots has a window too.
func TestSimRecentIsTheLastQuarter(t *testing.T) {
	const n = 3000 // snapshots, > runPoints: thinned several times
	var w rateWindow
	var grad float64
	for i := 1; i <= n; i++ {
		sim := float64(i) // one simulated second per snapshot
		rate := 100.0
		if i > 3*n/4 {
			rate = 400
		}
		grad += rate
		s := &Snapshot{SimElapsed: sim, SimGradSteps: int64(grad), SimGradEnd: sim, Config: Config{Algo: DQN}}
		s.Counters.GradSteps = int64(grad)
		w.update(s)
		if len(w.run) > runPoints {
			t.Fatalf("snapshot %d: %d run points kept, bound %d", i, len(w.run), runPoints)
		}
	}
	if got := w.simRecent.GPS; math.Abs(got-400) > 400*2.0/runPoints*4 {
		t.Errorf("SimRecent %.1f GPS, want the last quarter's 400", got)
	}
	whole := grad / n
	if math.Abs(w.simRecent.GPS-whole) < 100 {
		t.Errorf("SimRecent %.1f GPS is the whole run's %.1f", w.simRecent.GPS, whole)
	}
	var short rateWindow
	for i := range 2 {
		s := &Snapshot{SimElapsed: float64(i), SimGradSteps: int64(100 * i), SimGradEnd: float64(i), Config: Config{Algo: DQN}}
		short.update(s)
	}
	if short.simRecent.GPS != 100 {
		t.Errorf("a run of two snapshots: SimRecent %.1f GPS, want 100", short.simRecent.GPS)
	}
}

// TestSimGPSIgnoresTheActorsLead: the learner ends 100 steps per simulated
// second while the platform's now runs ahead of it by an actors' lead that
// grows and then shrinks (the host's pacing, not the platform). The
// simulated gradient-step rate, short window and last quarter, is the
// learner's 100 throughout; over the platform's now it would not be.
func TestSimGPSIgnoresTheActorsLead(t *testing.T) {
	var w rateWindow
	for i := 1; i <= 400; i++ {
		end := float64(i)
		lead := 20 * math.Sin(math.Pi*float64(i)/400) // 0 .. 20 s .. 0
		s := &Snapshot{SimElapsed: end + lead, SimGradSteps: int64(100 * i), SimGradEnd: end, Config: Config{Algo: DQN}}
		w.update(s)
		if i > 1 && (math.Abs(w.sim.GPS-100) > 1e-9 || math.Abs(w.simRecent.GPS-100) > 1e-9) {
			t.Fatalf("snapshot %d: sim %.3f GPS, recent %.3f GPS; the learner runs 100", i, w.sim.GPS, w.simRecent.GPS)
		}
	}
}

// TestSimGPSRightAfterTheFirstSteps: a run whose first gradient step comes
// after some snapshots (learning starts) shows its simulated rate from the
// second snapshot with steps, not rateSpan snapshots later.
func TestSimGPSRightAfterTheFirstSteps(t *testing.T) {
	var w rateWindow
	for i := range 5 { // before learning starts: no step ended
		w.update(&Snapshot{SimElapsed: float64(i), Config: Config{Algo: DQN}})
	}
	for i := 5; i < 8; i++ {
		end := float64(i)
		w.update(&Snapshot{SimElapsed: end, SimGradSteps: int64(100 * (i - 4)), SimGradEnd: end, Config: Config{Algo: DQN}})
		if i == 5 {
			continue // one end: nothing to divide by yet
		}
		if !w.simSpans || math.Abs(w.sim.GPS-100) > 1e-9 {
			t.Fatalf("snapshot %d: spans %v, GPS %g; want 100 from the second snapshot with steps", i, w.simSpans, w.sim.GPS)
		}
	}
}
