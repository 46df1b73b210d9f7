package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
)

// Split is an allocation of CPU cores between actors and learners (002
// §V-D).
type Split struct {
	ActorCores   int     `json:"actor_cores"`   // x_a
	LearnerCores int     `json:"learner_cores"` // x_l
	EnvSteps     float64 `json:"env_steps"`     // f_a(x_a), environment steps per second
	GradSteps    float64 `json:"grad_steps"`    // f_l(x_l), gradient steps per second
	// Throughput is the environment steps per second the pair sustains at
	// the update interval: min(f_a(x_a), interval * f_l(x_l)).
	Throughput float64 `json:"throughput"`
	// Imbalance is |f_a(x_a) - interval f_l(x_l)| / max of the two: 0 when
	// Eq. 5 holds exactly.
	Imbalance float64 `json:"imbalance"`
}

// CoreSplit solves 002 Eq. 5,
//
//	f_a(x_a) = interval * f_l(x_l),   x_a + x_l <= M,
//
// from measured throughput curves: fa[x-1] is the data-collection
// throughput (environment steps/s) of actors on x cores and fl[x-1] the
// data-consumption throughput (gradient steps/s) of learners on x cores,
// for x = 1..len. Cores are whole, so the equality rarely holds exactly:
// CoreSplit searches every pair with x_a, x_l >= 1 and x_a + x_l <= M
// (O(M^2), the exhaustive search of 002 §VI-G) and returns the one that
// sustains the most environment steps per second at the update interval,
// min(f_a, interval f_l); among equal ones the least imbalanced, then the
// one with fewer cores. It also returns every candidate, best first.
//
// It returns an error if M < 2, interval is not positive, a curve is
// shorter than M-1 or holds a negative or non-finite value.
func CoreSplit(fa, fl []float64, interval float64, m int) (Split, []Split, error) {
	switch {
	case m < 2:
		return Split{}, nil, fmt.Errorf("runtime: %d cores cannot be split: M must be >= 2", m)
	case !(interval > 0) || math.IsInf(interval, 0):
		return Split{}, nil, fmt.Errorf("runtime: update interval %v is out of range: it must be finite and > 0", interval)
	case len(fa) < m-1 || len(fl) < m-1:
		return Split{}, nil, fmt.Errorf("runtime: curves of %d and %d points for M = %d: each needs f(1)..f(M-1)", len(fa), len(fl), m)
	}
	for i, v := range fa[:m-1] {
		if !(v >= 0) || math.IsInf(v, 0) {
			return Split{}, nil, fmt.Errorf("runtime: f_a(%d) = %v: throughputs must be finite and >= 0", i+1, v)
		}
	}
	for i, v := range fl[:m-1] {
		if !(v >= 0) || math.IsInf(v, 0) {
			return Split{}, nil, fmt.Errorf("runtime: f_l(%d) = %v: throughputs must be finite and >= 0", i+1, v)
		}
	}
	var all []Split
	for xa := 1; xa < m; xa++ {
		for xl := 1; xa+xl <= m; xl++ {
			a, l := fa[xa-1], interval*fl[xl-1]
			s := Split{ActorCores: xa, LearnerCores: xl, EnvSteps: fa[xa-1], GradSteps: fl[xl-1], Throughput: math.Min(a, l)}
			if hi := math.Max(a, l); hi > 0 {
				s.Imbalance = math.Abs(a-l) / hi
			}
			all = append(all, s)
		}
	}
	better := func(x, y Split) bool {
		switch {
		case x.Throughput != y.Throughput:
			return x.Throughput > y.Throughput
		case x.Imbalance != y.Imbalance:
			return x.Imbalance < y.Imbalance
		}
		return x.ActorCores+x.LearnerCores < y.ActorCores+y.LearnerCores
	}
	// insertion sort: M is small
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && better(all[j], all[j-1]); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	return all[0], all, nil
}

// MeasureActors measures f_a(x): x goroutines, each an actor with its own
// environment copy and policy (as the actor units run them, every action
// from the policy network: the data-collection cost after exploration), for
// at least dur. It returns environment steps per second on the host clock.
// The caller sets GOMAXPROCS; x goroutines on fewer cores share them.
func MeasureActors(ctx context.Context, envID string, agent Agent, x int, dur time.Duration, seed uint64) (float64, error) {
	if x < 1 || x > MaxActors {
		return 0, fmt.Errorf("runtime: %d actors is out of range: it must be 1..%d", x, MaxActors)
	}
	envs := make([]env.Env, x)
	policies := make([]Policy, x)
	for i := range x {
		e, err := env.Make(envID, rand.New(rand.NewPCG(seed, streamEnv+uint64(i))))
		if err != nil {
			return 0, fmt.Errorf("runtime: %w", err)
		}
		p, err := agent.NewPolicy()
		if err != nil {
			return 0, fmt.Errorf("runtime: %w", err)
		}
		envs[i], policies[i] = e, p
	}
	return measureRate(ctx, x, dur, func(i int, _ time.Time, more func() bool) (int64, error) {
		e, p := envs[i], policies[i]
		rng := rand.New(rand.NewPCG(seed, streamActor+uint64(i)))
		spec := e.Spec()
		obs := make([]float32, spec.Obs.Dim())
		act := make([]float32, agent.ActDim())
		e.Reset(obs)
		n := int64(0)
		for more() {
			for range 64 {
				// t far past any exploration schedule: greedy inference
				p.Act(act, obs, math.MaxInt32, rng)
				_, term, trunc, err := e.Step(obs, toEnvAction(act, spec))
				if err != nil {
					return n, err
				}
				if term || trunc {
					e.Reset(obs)
				}
				n++
			}
		}
		return n, nil
	})
}

// MeasureLearners measures f_l(x): x goroutines, each a learner replica
// that samples batch transitions from its own bank of a banked buffer
// prefilled with capacity random-policy transitions, trains and updates
// the priorities (the data consumption of 002 §V-D, learners that do not
// wait for each other), for at least dur. It returns gradient steps per
// second summed over the learners, on the host clock.
func MeasureLearners(ctx context.Context, envID string, agent Agent, rc replay.Config, x, batch int, dur time.Duration, seed uint64) (float64, error) {
	if x < 1 || x > MaxLearners {
		return 0, fmt.Errorf("runtime: %d learners is out of range: it must be 1..%d", x, MaxLearners)
	}
	cfg := Config{Env: envID, Pacing: PaceFree, Mode: ModeSPO, Actors: 0, Learners: x,
		GradSteps: math.MaxInt32, UpdateInterval: 1, BatchSize: batch, LocalStorage: 1000, Depth: 1, AverageEvery: math.MaxInt32,
		Replay: rc, Prefill: rc.Capacity, Seed: seed}
	if x == 1 {
		cfg.Mode = ModeSingle
	}
	r, err := New(cfg, agent)
	if err != nil {
		return 0, err
	}
	if err := r.prefill(ctx); err != nil {
		return 0, err
	}
	return measureRate(ctx, x, dur, func(l int, start time.Time, more func() bool) (int64, error) {
		lr := r.learners[l].learner
		if loc, ok := lr.(LocalSGD); ok {
			loc.SetLocal(false) // targets update as a lone learner's do
		}
		rng := rand.New(rand.NewPCG(seed, streamReplay+uint64(l)))
		var b replay.Batch
		td := make([]float32, batch)
		tr := NewTracer(UnitID{RoleLearner, l}, nil, start)
		n := 0
		for more() {
			if err := r.buf.sample(l, &b, batch, rng); err != nil {
				return int64(n), err
			}
			lr.Train(tr, &b, td, n)
			if err := r.buf.update(l, &b, td); err != nil {
				return int64(n), err
			}
			n++
		}
		return int64(n), nil
	})
}

// measureRate runs work(i, start, more) on x goroutines, i = 0..x-1, each
// looping while more() reports that ctx is live and dur has not passed
// since start, and returns the operations they report, summed, per second
// of host time. The first error any of them returns, or ctx's, is the
// error.
func measureRate(ctx context.Context, x int, dur time.Duration, work func(i int, start time.Time, more func() bool) (int64, error)) (float64, error) {
	var ops atomic.Int64
	errs := make([]error, x)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(dur)
	more := func() bool { return ctx.Err() == nil && time.Now().Before(deadline) }
	for i := range x {
		wg.Go(func() {
			n, err := work(i, start, more)
			ops.Add(n)
			errs[i] = err
		})
	}
	wg.Wait()
	el := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return float64(ops.Load()) / el.Seconds(), nil
}
