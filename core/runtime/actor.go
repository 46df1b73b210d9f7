package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
)

// chunk is one actor's local storage (000 §II-A1): up to LocalStorage
// transitions, struct of arrays, with Transition views into them built
// once. Chunks cycle between an actor and the Data Storage, so no step
// allocates.
type chunk struct {
	actor, index, n int
	obs, act, next  []float32
	ts              []replay.Transition
}

func newChunk(size, obsDim, actDim int) *chunk {
	c := &chunk{
		obs:  make([]float32, size*obsDim),
		act:  make([]float32, size*actDim),
		next: make([]float32, size*obsDim),
		ts:   make([]replay.Transition, size),
	}
	for k := range c.ts {
		c.ts[k] = replay.Transition{
			Obs:     c.obs[k*obsDim : (k+1)*obsDim : (k+1)*obsDim],
			Action:  c.act[k*actDim : (k+1)*actDim : (k+1)*actDim],
			NextObs: c.next[k*obsDim : (k+1)*obsDim : (k+1)*obsDim],
		}
	}
	return c
}

// rowBytes is the size of one stored transition: two observations, an
// action, a reward and two flags.
func rowBytes(obsDim, actDim int) int64 { return int64(4*(2*obsDim+actDim+1) + 2) }

// actorUnit is one actor: its own environment copy, policy network and
// local storage (000 §II-A1, Table II: input queue DNN weights, kernel
// environment step and DNN inference, output queue samples).
type actorUnit struct {
	unit
	r       *Run
	index   int
	env     env.Env
	spec    *env.Spec
	policy  Policy
	rng     *rand.Rand
	free    *Queue[*chunk] // empty local storages returned by the Data Storage
	obs     []float32
	version int64 // weights loaded, -1 before the first load
	row     int64
	epRet   float64
	epLen   int
}

func newActor(r *Run, i int) (*actorUnit, error) {
	e, err := env.Make(r.cfg.Env, rand.New(rand.NewPCG(r.cfg.Seed, streamEnv+uint64(i))), r.cfg.EnvOptions...)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	spec := e.Spec()
	if spec.Obs.Dim() != r.agent.ObsDim() {
		return nil, fmt.Errorf("runtime: %s has %d observation values but the agent takes %d", spec.ID, spec.Obs.Dim(), r.agent.ObsDim())
	}
	if spec.Act.Discrete() != r.agent.Discrete() || (!spec.Act.Discrete() && len(spec.Act.Low) != r.agent.ActDim()) {
		return nil, fmt.Errorf("runtime: %s's action space does not match the agent (discrete %v, %d values)", spec.ID, r.agent.Discrete(), r.agent.ActDim())
	}
	p, err := r.agent.NewPolicy()
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	if len(p.Params()) != len(r.policyParams()) {
		return nil, fmt.Errorf("runtime: the policy has %d parameters but the learner publishes %d", len(p.Params()), len(r.policyParams()))
	}
	a := &actorUnit{
		r: r, index: i, env: e, spec: spec, policy: p,
		rng:     rand.New(rand.NewPCG(r.cfg.Seed, streamActor+uint64(i))),
		free:    NewQueue[*chunk]("actor free storages", chunkBuffers),
		obs:     make([]float32, spec.Obs.Dim()),
		version: -1,
		row:     rowBytes(r.agent.ObsDim(), r.agent.ActDim()),
	}
	a.init(UnitID{RoleActor, i})
	for range chunkBuffers {
		a.free.TryPush(newChunk(r.cfg.LocalStorage, r.agent.ObsDim(), r.agent.ActDim()))
	}
	return a, nil
}

// load copies weight version v (or the latest, v < 0) into the policy.
func (a *actorUnit) load(v int64) error {
	a.tr.Begin()
	if v < 0 {
		a.version = a.r.weights.loadLatest(a.policy.Params())
	} else {
		if !a.r.weights.load(a.policy.Params(), v) {
			return a.r.weights.errMissing(v)
		}
		a.version = v
	}
	a.tr.Mark(KindWeightLoad, len(a.policy.Params()))
	return nil
}

// run fills chunks a, a+N, a+2N, ... until TotalSteps, flushing each to the
// Data Storage's request queue.
func (a *actorUnit) run(ctx context.Context) error {
	r, s := a.r, a.r.sched
	lockstep := r.cfg.Pacing == PaceLockstep
	a.env.Reset(a.obs)
	for c := a.index; c < s.chunks(); c += max(r.cfg.Actors, 1) {
		if err := r.gate(ctx, &a.unit); err != nil {
			return err
		}
		switch r.cfg.Pacing {
		case PaceLockstep:
			// The weights of exactly the steps on storages < c-1 (see
			// PaceLockstep): deterministic, and ready while storage c-1 is
			// being trained on.
			v := int64(s.actorVersion(c))
			if err := r.waitFor(ctx, &a.unit, func() bool { return r.weights.latest.Load() >= v }); err != nil {
				return err
			}
			if err := r.gate(ctx, &a.unit); err != nil {
				return err
			}
			if v != a.version {
				if err := a.load(v); err != nil {
					return err
				}
			}
		case PaceRatio:
			if err := r.waitFor(ctx, &a.unit, func() bool { return s.mayStart(c, r.minUpdated()) }); err != nil {
				return err
			}
		}
		ch, err := popWait(ctx, &a.unit, a.free)
		if err != nil {
			return err
		}
		if err := a.fill(ctx, ch, c, lockstep); err != nil {
			return err
		}
		// Reported before the hand-off: once the chunk is in the queue,
		// other units may use its data, and observers must have seen the
		// flush first (see Observer). The wait for queue space, if any, is
		// backpressure, not part of the flush.
		a.tr.Begin()
		a.tr.Instant(KindFlush, ch.n, int64(ch.n)*a.row)
		if err := pushWait(ctx, &a.unit, r.insertQ, ch); err != nil {
			return err
		}
	}
	return nil
}

// fill steps the environment chunkLen(c) times into ch. A pause holds it
// between two steps.
func (a *actorUnit) fill(ctx context.Context, ch *chunk, c int, lockstep bool) error {
	r := a.r
	ch.actor, ch.index, ch.n = a.index, c, r.sched.chunkLen(c)
	base := c * r.cfg.LocalStorage
	for k := range ch.n {
		if err := r.gate(ctx, &a.unit); err != nil {
			return err
		}
		// Asynchronous actors run the newest weights, as CleanRL's loop
		// does; lockstep ones keep the version chosen for the chunk.
		if !lockstep && r.weights.latest.Load() > a.version {
			if err := a.load(-1); err != nil {
				return err
			}
		}
		row := &ch.ts[k]
		copy(row.Obs, a.obs)
		a.tr.Begin()
		if a.policy.Act(row.Action, a.obs, base+k, a.rng) {
			a.tr.Mark(KindInference, 1)
		} else {
			a.tr.Begin()
		}
		rew, term, trunc, err := a.env.Step(a.obs, toEnvAction(row.Action, a.spec))
		if err != nil {
			return err
		}
		a.tr.Mark(KindEnvStep, 1)
		copy(row.NextObs, a.obs)
		row.Reward, row.Terminated, row.Truncated = float32(rew), term, trunc
		a.tr.MarkBytes(KindLocalStore, 1, a.row)
		a.epRet += rew
		a.epLen++
		if term || trunc {
			r.recordEpisode(Episode{Actor: a.index, Step: base + k + 1, Return: a.epRet, Length: a.epLen})
			a.epRet, a.epLen = 0, 0
			a.env.Reset(a.obs)
		}
	}
	a.count.Add(int64(ch.n))
	return nil
}
