package ddpg

import (
	"context"
	"flag"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/runtime"
)

func runPendulum(t *testing.T, alg Algorithm, total, starts int, seed uint64, modify func(*Config, *runtime.Config)) *runtime.Run {
	t.Helper()
	return runCleanRL(t, alg, "Pendulum-v1", total, starts, seed, modify)
}

// runCleanRL runs alg with CleanRL's settings on environment id for total
// steps, learning from starts on, after modify (nil: none) has changed them.
func runCleanRL(t *testing.T, alg Algorithm, id string, total, starts int, seed uint64, modify func(*Config, *runtime.Config)) *runtime.Run {
	t.Helper()
	c, rc := CleanRL(alg, id, total, starts)
	rc.Seed = seed
	if modify != nil {
		modify(&c, &rc)
	}
	e, _ := env.Make(rc.Env, rand.New(rand.NewPCG(seed, 0)))
	a, err := New(e.Spec(), c, seed)
	if err != nil {
		t.Fatal(err)
	}
	r, err := runtime.New(rc, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLockstepDeterministic: a single-actor lockstep TD3 run is a function
// of its seed (the target-smoothing noise included).
func TestLockstepDeterministic(t *testing.T) {
	small := func(c *Config, rc *runtime.Config) {
		c.Hidden = []int{32, 32}
		rc.BatchSize, rc.Depth, rc.LocalStorage = 32, 2, 25
	}
	total := 1200
	if raceEnabled {
		total = 500
	}
	for _, alg := range []Algorithm{DDPG, TD3} {
		r1 := runPendulum(t, alg, total, 300, 4, small)
		r2 := runPendulum(t, alg, total, 300, 4, small)
		a1, a2 := r1.Learner(0).(*Learner).Actor().Params(), r2.Learner(0).(*Learner).Actor().Params()
		if !slices.Equal(a1, a2) || !slices.Equal(r1.Episodes(), r2.Episodes()) {
			t.Fatalf("%v: two runs with one seed differ", alg)
		}
		if s := r1.Snapshot(); s.GradSteps != int64(total-300) {
			t.Fatalf("%v: %d gradient steps, want %d", alg, s.GradSteps, total-300)
		}
	}
}

var (
	long      = flag.Bool("ddpg.long", false, "run TestPendulumLearns, a learning run of about 3 minutes per seed")
	longSeeds = flag.Int("ddpg.seeds", 3, "TestPendulumLearns and TestLearnHopperTD3 run seeds 1..n")
)

// TestPendulumLearns is the TD3 + PER figure of docs/offpolicy.md: on
// Pendulum-v1 the rolling mean return over 10 episodes reaches -250 within
// 30k steps. About 3 minutes per seed on one core, so it runs only with
// -ddpg.long (CI runs seed 1):
//
//	go test -run TestPendulumLearns -v -timeout 60m ./core/ddpg -ddpg.long
func TestPendulumLearns(t *testing.T) {
	if !*long || raceEnabled {
		t.Skip("a long learning run: -ddpg.long runs it")
	}
	for seed := uint64(1); seed <= uint64(*longSeeds); seed++ {
		r := runPendulum(t, TD3, 30000, 5000, seed, nil)
		eps := r.Episodes()
		step, ok := runtime.FirstReach(eps, 10, -250)
		t.Logf("seed %d: first rolling-10 mean >= -250 at step %d (%v), final %.1f, %s", seed, step, ok, runtime.RollingMean(eps, 10), r.Snapshot().Elapsed)
		if !ok {
			t.Errorf("seed %d: the rolling-10 mean never reached -250 in 30k steps", seed)
		}
	}
}
