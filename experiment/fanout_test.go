package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// fanoutSteps are two synthetic live runs at K = 2 and 16 and a step that
// did not run.
var fanoutSteps = func() []StepResult {
	k2 := engine.Config{Env: "CartPole-v1", Algo: "dqn", Fanout: 2, Capacity: 100000, Batch: 128}
	k16 := k2
	k16.Fanout = 16
	return []StepResult{
		{Index: 0, Title: "K = 2", Config: k2, Final: snap(k2, 5000, 600, 5*time.Second, 500, 0.25)},
		{Index: 1, Title: "K = 16", Final: snap(k16, 5000, 800, 5*time.Second, 600, 0.25)},
		{Index: 2, Title: "K = 256"},
	}
}()

// TestFanoutBest checks the structure of the measured sweep: one best K
// per capacity, taken from the sweep, with 002's K and the speedup
// measured at it carried beside.
func TestFanoutBest(t *testing.T) {
	r := builtReport(t, "fanout")
	d := r.Data.(FanoutData)
	if d.Host.CPUs < 1 || d.Goroutines < 1 || d.LockBatch < 1 {
		t.Errorf("host %+v, %d goroutines, lock batch %d", d.Host, d.Goroutines, d.LockBatch)
	}
	so := sumTreeOptions(true)
	if got := capacities(d.Best); !slices.Equal(got, so.LockCapacities) {
		t.Fatalf("best K at capacities %v, want %v", got, so.LockCapacities)
	}
	// 002 Fig. 9's best fanouts; none at 10^6.
	published := map[int]int{1000: 256, 10000: 128, 100000: 64}
	for _, b := range d.Best {
		var swept []int
		bestSpeedup := 0.0
		global := 0
		for _, l := range d.Sweep {
			if l.Capacity != b.Capacity {
				continue
			}
			if !(l.RoundsPerS > 0) || !(l.Speedup > 0) {
				t.Errorf("capacity %d, K=%d, %s: %v rounds/s, speedup %v", l.Capacity, l.Fanout, l.Locking, l.RoundsPerS, l.Speedup)
			}
			if l.Locking == "global-lock" {
				global++
				if l.Fanout != 2 || l.Speedup != 1 {
					t.Errorf("capacity %d: the global-lock baseline has K=%d, speedup %v; want the binary tree at 1", l.Capacity, l.Fanout, l.Speedup)
				}
				continue
			}
			swept = append(swept, l.Fanout)
			bestSpeedup = max(bestSpeedup, l.Speedup)
			if l.Fanout == b.PublishedK && l.Speedup != b.SpeedupAtPublishedK {
				t.Errorf("capacity %d: speedup at 002's K=%d is %v in the sweep, %v in the best row", b.Capacity, l.Fanout, l.Speedup, b.SpeedupAtPublishedK)
			}
		}
		if global != 1 {
			t.Errorf("capacity %d: %d global-lock baselines, want 1", b.Capacity, global)
		}
		if !slices.Equal(swept, so.LockFanouts) {
			t.Errorf("capacity %d: swept K %v, want %v", b.Capacity, swept, so.LockFanouts)
		}
		if !slices.Contains(swept, b.K) || b.Speedup != bestSpeedup {
			t.Errorf("capacity %d: best K=%d at %v, want a swept K at the best speedup %v", b.Capacity, b.K, b.Speedup, bestSpeedup)
		}
		if b.PublishedK != published[b.Capacity] {
			t.Errorf("capacity %d: 002's K is %d, want %d", b.Capacity, b.PublishedK, published[b.Capacity])
		}
		if (b.PublishedK == 0) != (b.SpeedupAtPublishedK == 0) {
			t.Errorf("capacity %d: 002's K %d with speedup %v", b.Capacity, b.PublishedK, b.SpeedupAtPublishedK)
		}
		pk, at := dash, dash
		if b.PublishedK > 0 {
			pk, at = fmt.Sprint(b.PublishedK), speedup(b.SpeedupAtPublishedK)
		}
		if row := fmt.Sprintf("| %d | %d | %s | %s | %s |", b.Capacity, b.K, speedup(b.Speedup), pk, at); !strings.Contains(r.Markdown, row) {
			t.Errorf("markdown lacks the best-K row %q", row)
		}
	}
}

// TestFanoutOpsAndSteps checks the per-index costs cover the quick sizes
// and the live runs are listed.
func TestFanoutOpsAndSteps(t *testing.T) {
	r := builtReport(t, "fanout")
	d := r.Data.(FanoutData)
	so := sumTreeOptions(true)
	// Every operation on the binary tree and each K, at each batch.
	if want := 2 * (1 + len(so.Fanouts)) * len(so.Batches) * len(so.Capacities); len(d.Ops) != want {
		t.Errorf("%d per-index rows, want %d", len(d.Ops), want)
	}
	for _, o := range d.Ops {
		if !(o.NsPerIndex > 0) || !slices.Contains(so.Batches, o.Batch) || o.Op != "find" && o.Op != "set" {
			t.Errorf("per-index row %+v", o)
		}
		if o.Tree != "binary" && !slices.Contains(so.Fanouts, o.Fanout) {
			t.Errorf("per-index row %+v: fanout not swept", o)
		}
	}
	if n := builtProgress["fanout"]; n < len(d.Ops)+len(d.Sweep) {
		t.Errorf("%d progress lines for %d measurements", n, len(d.Ops)+len(d.Sweep))
	}

	want := []FanoutStepRow{
		{Step: 0, Title: "K = 2", Env: "CartPole-v1", Algo: "dqn", Fanout: 2, Capacity: 100000, Batch: 128, HostGPS: 120, SimGPS: 2000},
		{Step: 1, Title: "K = 16", Env: "CartPole-v1", Algo: "dqn", Fanout: 16, Capacity: 100000, Batch: 128, HostGPS: 160, SimGPS: 2400},
	}
	if !slices.Equal(d.Steps, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", d.Steps, want)
	}
	if !slices.Equal(d.NotRun, []int{2}) {
		t.Errorf("NotRun = %v, want [2]", d.NotRun)
	}
	for _, s := range []string{
		"### Best fanout per capacity",
		"### The K sweep",
		"FindBatch ns/index",
		"SetBatch ns/index",
		"### Live runs",
		"| 2. K = 16 | CartPole-v1 | dqn | 16 | 100000 | 128 | 160 | 2.40k |",
		"Step 3 did not run",
	} {
		if !strings.Contains(r.Markdown, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

// TestFanoutQuickWarning checks that quick figures say they are not for
// quoting, and full ones do not.
func TestFanoutQuickWarning(t *testing.T) {
	const warning = "figures for tests, not for quoting"
	r := builtReport(t, "fanout")
	if !strings.Contains(r.Markdown, warning) {
		t.Errorf("quick markdown lacks %q", warning)
	}
	if full := fanoutMarkdown(r.Data.(FanoutData), false); strings.Contains(full, warning) {
		t.Errorf("full markdown says %q", warning)
	}
}

// TestSumTreeOptionsCoverPublishedK checks the claim of sumTreeOptions:
// quick or not, the two-lock sweep reaches every fanout 002 names.
func TestSumTreeOptionsCoverPublishedK(t *testing.T) {
	pub, err := seedTables()
	if err != nil {
		t.Fatal(err)
	}
	if len(pub.ParallelReplay.BestFanout) == 0 {
		t.Fatal("the seed tables list no best fanout")
	}
	for _, quick := range []bool{false, true} {
		so := sumTreeOptions(quick)
		for _, b := range pub.ParallelReplay.BestFanout {
			if !slices.Contains(so.LockFanouts, b.K) || !slices.Contains(so.LockCapacities, b.Capacity) {
				t.Errorf("quick %v: 002's K=%d at capacity %d is outside the sweep (K %v, capacities %v)",
					quick, b.K, b.Capacity, so.LockFanouts, so.LockCapacities)
			}
		}
	}
}

// capacities lists the capacities of the best-K rows in order.
func capacities(rows []FanoutBestRow) []int {
	var c []int
	for _, r := range rows {
		c = append(c, r.Capacity)
	}
	return c
}
