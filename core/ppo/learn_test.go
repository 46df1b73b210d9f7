package ppo

import (
	"context"
	"flag"
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/nn/kernel"
)

var (
	learnSeeds = flag.Int("ppo.seeds", 3, "the learning tests run seeds 1..n and judge their median")
	learnSlow  = flag.Bool("ppo.slow", false, "run the learning tests on the portable GEMM kernels too (about 100 s per environment)")
	replay     = flag.Bool("ppo.replay", false, "run TestReplayExperiments: 004's experiments 1-5 on CartPole and Acrobot (about 90 s)")
)

// threshold watches the rolling mean of the last 100 raw episode returns
// and records the environment step at which it first reached a level.
type threshold struct {
	level  float64
	window *env.Window
	at     int64 // 0 until reached
}

func (th *threshold) Observe(Event) {}

func (th *threshold) ObserveEpisode(ep Episode) {
	th.window.Add(ep.Return)
	if th.at == 0 && th.window.Full() && th.window.Mean() >= th.level {
		th.at = ep.EnvSteps
	}
}

type learnResult struct {
	seed      uint64
	reachedAt int64 // 0: never
	final     float64
	steps     int64
	wall      time.Duration
}

// skipSlow skips a learning run where it would take too long.
func skipSlow(t *testing.T) {
	if testing.Short() {
		t.Skip("learning run: skipped with -short")
	}
	if raceEnabled {
		t.Skip("learning run: too slow under the race detector")
	}
	if kernel.Impl() != "avx2-fma" && !*learnSlow {
		t.Skipf("learning run: the %s GEMM kernels take about 100 s per environment; -ppo.slow runs it", kernel.Impl())
	}
}

// runSeeds runs CleanRL's defaults on id, with the GAE numerics opt, for
// seeds 1..n, recording when the rolling-100 mean return first reached
// level.
func runSeeds(t *testing.T, id string, opt gae.Options, level float64, n int) []learnResult {
	var res []learnResult
	for seed := uint64(1); seed <= uint64(n); seed++ {
		th := &threshold{level: level, window: env.NewWindow(100)}
		res = append(res, runSeed(t, id, opt, seed, th, th))
	}
	return res
}

// runSeed runs CleanRL's defaults on id with the GAE numerics opt and seed,
// observed by obs, which records in th when the return reached its level.
func runSeed(t *testing.T, id string, opt gae.Options, seed uint64, th *threshold, obs Observer) learnResult {
	cfg, err := Defaults(id)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Seed, cfg.GAE = seed, opt
	tr, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr.SetObserver(obs)
	start := time.Now()
	if err := tr.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return learnResult{seed, th.at, tr.Recent().Mean(), tr.EnvSteps(), time.Since(start)}
}

// medianReached logs the runs and returns the median step at which they
// reached the level (+Inf for a run that never did).
func medianReached(t *testing.T, res []learnResult) float64 {
	reached := make([]float64, len(res))
	for i, r := range res {
		reached[i] = math.Inf(1)
		at := "never reached"
		if r.reachedAt > 0 {
			reached[i] = float64(r.reachedAt)
			at = fmt.Sprint("reached at ", r.reachedAt)
		}
		t.Logf("  seed %d: %s, final rolling mean %.1f, %d steps in %v: %.0f steps/s",
			r.seed, at, r.final, r.steps, r.wall.Round(time.Millisecond), float64(r.steps)/r.wall.Seconds())
	}
	slices.Sort(reached)
	med := reached[len(reached)/2]
	if len(reached)%2 == 0 {
		med = (reached[len(reached)/2-1] + med) / 2
	}
	return med
}

// learn runs CleanRL's defaults on id for seeds 1..n and requires the
// median step at which the rolling-100 mean return first reaches level to
// be at most within (a seed that never reaches it counts as never).
func learn(t *testing.T, id string, level float64, within int64) {
	skipSlow(t)
	t.Logf("%s, CleanRL defaults, GOMAXPROCS=%d: step at which the rolling-100 mean return first reached %v", id, runtime.GOMAXPROCS(0), level)
	res := runSeeds(t, id, gae.Options{}, level, *learnSeeds)
	med := medianReached(t, res)
	t.Logf("  median over %d seeds: %v (required: at most %d)", len(res), med, within)
	if !(med <= float64(within)) {
		t.Errorf("%s: median step to a rolling-100 mean of %v is %v, want at most %d", id, level, med, within)
	}
}

// Issue 4: CartPole-v1 with ppo.py's defaults reaches a rolling-100 mean
// of 475 within 350k steps (median of 3 seeds).
func TestLearnCartPole(t *testing.T) { learn(t, "CartPole-v1", 475, 350_000) }

// Issue 4: Acrobot-v1 reaches a rolling-100 mean of -100 within 500k steps
// (median of 3 seeds).
func TestLearnAcrobot(t *testing.T) { learn(t, "Acrobot-v1", -100, 500_000) }

// TestReplayExperiments replays 004's experiments 1-5 (8 bits) on
// CartPole-v1 and Acrobot-v1 and logs when each seed reached the target
// (docs/ppo.md tabulates the output). Experiments 1 and 3 must meet the
// learning targets; 2, 4 and 5 standardize constant reward streams to 0
// and are only logged.
func TestReplayExperiments(t *testing.T) {
	if !*replay {
		t.Skip("about 90 s: run with -ppo.replay")
	}
	skipSlow(t)
	for _, c := range []struct {
		id     string
		level  float64
		within int64
	}{{"CartPole-v1", 475, 350_000}, {"Acrobot-v1", -100, 500_000}} {
		for n := 1; n <= 5; n++ {
			opt, err := Experiment(n, 8)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s, experiment %d (%v):", c.id, n, opt)
			med := medianReached(t, runSeeds(t, c.id, opt, c.level, *learnSeeds))
			t.Logf("  median %v", med)
			if (n == 1 || n == 3) && !(med <= float64(c.within)) {
				t.Errorf("%s, experiment %d: median step to %v is %v, want at most %d", c.id, n, c.level, med, c.within)
			}
		}
	}
}
