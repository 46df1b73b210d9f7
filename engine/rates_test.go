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
		s := &Snapshot{SimElapsed: sim, SimGradSteps: int64(grad), Config: Config{Algo: DQN}}
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
		s := &Snapshot{SimElapsed: float64(i), SimGradSteps: int64(100 * i), Config: Config{Algo: DQN}}
		short.update(s)
	}
	if short.simRecent.GPS != 100 {
		t.Errorf("a run of two snapshots: SimRecent %.1f GPS, want 100", short.simRecent.GPS)
	}
}
