package engine

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/units"
)

// peakHeap runs f and returns the peak of the heap above what it was
// before, sampled every millisecond, with the collector run at a tenth of
// the heap's growth (GOGC=10) so that the heap is what f holds, within
// 10%, rather than the garbage it has yet to free.
func peakHeap(f func()) int64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	// One P more than the run can use for itself, so that the sampler is
	// never queued behind it: a run's large GEMMs keep every P the worker
	// pool may use (parallel.Parties, at most the CPUs) busy, and on a
	// loaded 2-core machine a sampler waiting for a P missed the PPO peak
	// (69 MiB sampled of 100).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + 1))
	// The heap's objects, live and not yet freed; read without stopping
	// the world, as ReadMemStats would.
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	runtime.GC()
	base := heap()
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			peak.Store(max(peak.Load(), heap()-base))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	f()
	close(stop)
	wg.Wait()
	return peak.Load()
}

func total(parts []MemoryPart) int64 {
	var n int64
	for _, p := range parts {
		n += p.Bytes
	}
	return n
}

// The estimate is what a run holds: measured on runs whose largest part
// is each of the parts in turn.
func TestEstimateMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs training")
	}
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"replay", Config{Env: "CartPole-v1", Algo: DQN, Capacity: 1 << 21, Batch: 64, Steps: 3000}},
		{"presampled", Config{Env: "CartPole-v1", Algo: DQN, Capacity: 8192, Batch: 8192, Depth: 64, Duration: 2 * time.Second}},
		{"learners", Config{Env: "Pendulum-v1", Algo: TD3, Capacity: 16384, Batch: 16384, Duration: 2 * time.Second}},
		{"ppo", Config{Env: "CartPole-v1", Algo: PPO, Envs: 64, Horizon: 8192, Minibatches: 1, Steps: 1}},
	} {
		est := mustEstimate(t, c.cfg)
		got := peakHeap(func() {
			r, err := Start(context.Background(), c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r.Wait()
		})
		// Measured here: 1.01, 0.82, 0.99, 1.00. The band leaves room for
		// the allocator and the collector, not for a missing part.
		r := float64(est) / float64(got)
		t.Logf("%s: estimate %s, peak heap %s (%.2f)", c.name, units.Bytes(est), units.Bytes(got), r)
		if r < 0.75 || r > 1.35 {
			t.Errorf("%s: the estimate %s is %.2f times the peak heap %s", c.name, units.Bytes(est), r, units.Bytes(got))
		}
	}
}

func mustEstimate(t *testing.T, cfg Config) int64 {
	t.Helper()
	parts, err := EstimateMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		t.Logf("  %s: %s", p.Name, units.Bytes(p.Bytes))
	}
	return total(parts)
}

// A run that would not fit the memory limit is refused before it starts,
// with the estimate, the limit and the settings to lower.
func TestStartRefusesWhatDoesNotFit(t *testing.T) {
	SetMemoryLimit(64 << 20)
	defer SetMemoryLimit(0)
	_, err := Start(context.Background(), Config{Env: "CartPole-v1", Algo: DQN, Capacity: 1 << 21, Batch: 64})
	if err == nil || !strings.Contains(err.Error(), "this run needs about 189.2 MiB: replay buffer 188.7 MiB (capacity); that is more than the memory limit of 64.0 MiB (--memory-limit)") {
		t.Fatalf("Start: %v", err)
	}
	// PPO is refused before its trainer allocates the rollout, and a
	// prediction refuses what Start refuses.
	big := Config{Env: "CartPole-v1", Algo: PPO, Envs: 64, Horizon: 8192, Minibatches: 1}
	if _, err := Start(context.Background(), big); err == nil || !strings.Contains(err.Error(), "this run needs about") {
		t.Errorf("Start of PPO: %v", err)
	}
	if _, err := Predict(big); err == nil || !strings.Contains(err.Error(), "this run needs about") {
		t.Errorf("Predict of PPO: %v", err)
	}
	if r, err := Start(context.Background(), Config{Env: "CartPole-v1", Algo: DQN, Steps: 100}); err != nil {
		t.Fatalf("Start of a small run: %v", err)
	} else {
		r.Wait()
	}
}

// A PPO iteration of a million samples takes far longer than a budget of
// a fraction of a second: the budget ends the run inside the iteration,
// not after it (a timing-free check: no iteration completes).
func TestPPOBudgetEndsTheRunInsideAnIteration(t *testing.T) {
	r, err := Start(context.Background(), Config{Env: "CartPole-v1", Algo: PPO, Envs: 64, Horizon: 16384, Minibatches: 1, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	drain(r)
	final, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	// The iteration is 4 epochs of one minibatch: a budget seen only
	// between iterations lets it make all 4 steps.
	if c := final.Counters; final.State != Finished || c.Iterations != 0 || c.EnvSteps == 0 || c.GradSteps >= 4 {
		t.Errorf("state %v after %v, counters %+v: want finished inside the first iteration", final.State, final.HostElapsed, final.Counters)
	}
}
