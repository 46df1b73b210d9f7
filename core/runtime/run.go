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

// ErrStopped is what Wait returns after Stop.
var ErrStopped = errors.New("runtime: the run was stopped")

// Random streams: every source of randomness in a run is a PCG seeded with
// (Config.Seed, stream + index), so that each is independent of how many
// units of the other kinds there are.
const (
	streamActor   = 1 << 20
	streamEnv     = 2 << 20
	streamReplay  = 3 << 20
	streamPrefill = 4 << 20
)

// Run is one training run: the processing units of 000 Fig. 7 and Table II
// (N actors, the Data Storage, one replay manager per learner or bank, the
// learners, and for SPO the weight server) joined by bounded FIFO queues,
// one goroutine per unit. Build it with New, start it with Start (or Run),
// watch it with Snapshot, pause it with Pause and Resume, and end it by
// cancelling the context or with Stop; Wait returns when every goroutine
// has exited.
type Run struct {
	cfg   Config
	sched schedule
	agent Agent
	buf   bufferSet

	weights *weightStore
	insertQ *Queue[*chunk]

	actors   []*actorUnit
	storage  *storageUnit
	rmms     []*replayUnit
	learners []*learnerUnit
	workers  []*workerUnit
	server   *serverUnit
	units    []*unit // every unit, for wake-ups and statistics

	// inserted counts transitions stored (prefill included); added counts
	// local storages inserted, in order under lockstep.
	inserted, added atomic.Int64

	epMu     sync.Mutex
	episodes []Episode
	window   *env.Window

	staleSum, staleMax, staleN atomic.Int64
	skipped                    atomic.Int64
	loss, qmean, aux           atomic.Uint64 // float64 bits of the last learner-0 step

	epoch   time.Time
	started atomic.Bool
	cancel  context.CancelCauseFunc
	ctx     context.Context
	wg      sync.WaitGroup
	done    chan struct{}
	errMu   sync.Mutex
	err     error
	endTime atomic.Int64 // nanoseconds since epoch when the last unit exited

	pauseMu     sync.Mutex
	paused      atomic.Bool
	resume      chan struct{}
	pausedSince time.Time
	pausedTotal atomic.Int64
}

// Episode is one finished episode of one actor.
type Episode struct {
	Actor  int     `json:"actor"`
	Step   int     `json:"step"` // global environment step at which it ended (exclusive)
	Return float64 `json:"return"`
	Length int     `json:"length"`
}

// New builds a run of agent as cfg describes: the environments (one copy
// per actor), the replay buffer (banked with ModeSPO), the networks and the
// queues. It starts nothing. It returns an error naming the first invalid
// configuration value, or if the agent does not support the mode.
func New(cfg Config, agent Agent) (*Run, error) {
	if agent == nil {
		return nil, errors.New("runtime: New needs an agent")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Run{cfg: cfg, sched: newSchedule(&cfg), agent: agent, done: make(chan struct{})}
	r.window = env.NewWindow(cfg.ReturnWindow)

	// The buffer.
	rc := cfg.Replay
	rc.ObsDim, rc.ActDim = agent.ObsDim(), agent.ActDim()
	var err error
	if cfg.Mode == ModeSPO {
		r.buf.banked, err = replay.NewBanked(rc, cfg.Learners)
	} else {
		r.buf.single, err = replay.New(rc)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}

	// The learners and the policy weights they publish.
	if err := r.buildLearners(); err != nil {
		return nil, err
	}
	r.weights = newWeightStore(len(r.policyParams()), r.pokeAll)

	// Actors and the Data Storage.
	r.insertQ = NewQueue[*chunk]("storage requests", cfg.InsertQueue)
	r.storage = &storageUnit{r: r}
	r.storage.init(UnitID{RoleStorage, 0})
	for i := range cfg.Actors {
		a, err := newActor(r, i)
		if err != nil {
			return nil, err
		}
		r.actors = append(r.actors, a)
	}
	r.collectUnits()
	return r, nil
}

// buildLearners creates the replay managers, learners, workers and server of
// the configured mode.
func (r *Run) buildLearners() error {
	cfg := &r.cfg
	nRMM := 1
	if cfg.Mode == ModeSPO {
		nRMM = cfg.Learners
	}
	for l := range nRMM {
		r.rmms = append(r.rmms, newReplayUnit(r, l))
	}
	switch cfg.Mode {
	case ModeSingle:
		lr, err := r.agent.NewLearner()
		if err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
		r.learners = []*learnerUnit{newLearnerUnit(r, 0, lr, r.rmms[0])}
	case ModeSPO:
		for l := range cfg.Learners {
			lr, err := r.agent.NewLearner()
			if err != nil {
				return fmt.Errorf("runtime: %w", err)
			}
			loc, ok := lr.(LocalSGD)
			if !ok {
				return fmt.Errorf("runtime: the agent's learner (%T) does not support local SGD (ModeSPO)", lr)
			}
			loc.SetLocal(true)
			u := newLearnerUnit(r, l, lr, r.rmms[l])
			u.local = loc
			u.release = make(chan struct{}, 1)
			r.learners = append(r.learners, u)
		}
		r.server = newServerUnit(r)
	case ModeDataParallel:
		lr, err := r.agent.NewLearner()
		if err != nil {
			return fmt.Errorf("runtime: %w", err)
		}
		master, ok := lr.(DataParallel)
		if !ok {
			return fmt.Errorf("runtime: the agent's learner (%T) does not support data-parallel training", lr)
		}
		u := newLearnerUnit(r, 0, lr, r.rmms[0])
		u.master = master
		u.results = NewQueue[TrainStats]("dp results", cfg.Learners)
		r.learners = []*learnerUnit{u}
		sub := cfg.BatchSize / cfg.Learners
		for w := range cfg.Learners {
			wl, err := r.agent.NewLearner()
			if err != nil {
				return fmt.Errorf("runtime: %w", err)
			}
			r.workers = append(r.workers, newWorkerUnit(r, w, wl.(DataParallel), master, sub, u.results))
		}
	}
	return nil
}

// policyParams returns the parameters actors run, from learner 0 (or the
// data-parallel master).
func (r *Run) policyParams() []float32 {
	l := r.learners[0]
	if l.master != nil {
		return l.master.PolicyParams()
	}
	return l.learner.PolicyParams()
}

func (r *Run) collectUnits() {
	for _, a := range r.actors {
		r.units = append(r.units, &a.unit)
	}
	r.units = append(r.units, &r.storage.unit)
	for _, m := range r.rmms {
		r.units = append(r.units, &m.unit)
	}
	for _, l := range r.learners {
		r.units = append(r.units, &l.unit)
	}
	for _, w := range r.workers {
		r.units = append(r.units, &w.unit)
	}
	if r.server != nil {
		r.units = append(r.units, &r.server.unit)
	}
}

// Config returns the run's configuration with defaults filled in.
func (r *Run) Config() Config { return r.cfg }

// GradSteps returns the number of gradient steps (policy updates) the run
// makes.
func (r *Run) GradSteps() int { return r.cfg.GradSteps }

// Start launches every unit's goroutine and returns at once. The run ends
// when all units finished their work, when ctx is done, when Stop is
// called, or when a unit fails; Wait reports which. Start returns an error
// if the run was started before, or if ctx is done during the prefill.
func (r *Run) Start(ctx context.Context) error {
	if !r.started.CompareAndSwap(false, true) {
		return errors.New("runtime: the run was already started")
	}
	r.ctx, r.cancel = context.WithCancelCause(ctx)
	r.epoch = time.Now()
	for _, u := range r.units {
		u.tr = NewTracer(u.id, r.cfg.Observer, r.epoch)
	}
	if err := r.prefill(r.ctx); err != nil {
		r.cancel(err)
		close(r.done)
		r.setErr(err)
		return err
	}
	// Version 0: the weights every learner starts from.
	r.weights.publish(0, r.policyParams())

	launch := func(u *unit, body func(context.Context) error) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			u.state.Store(stateRunning)
			err := body(r.ctx)
			u.state.Store(stateDone)
			if err != nil && r.ctx.Err() == nil {
				r.setErr(fmt.Errorf("%v: %w", u.id, err))
				r.cancel(err)
			}
		}()
	}
	for _, a := range r.actors {
		launch(&a.unit, a.run)
	}
	launch(&r.storage.unit, r.storage.run)
	for _, m := range r.rmms {
		launch(&m.unit, m.run)
	}
	for _, l := range r.learners {
		launch(&l.unit, l.run)
	}
	for _, w := range r.workers {
		launch(&w.unit, w.run)
	}
	if r.server != nil {
		launch(&r.server.unit, r.server.run)
	}
	go func() {
		r.wg.Wait()
		r.endTime.Store(int64(time.Since(r.epoch)))
		r.cancel(nil) // release the context's resources
		close(r.done)
	}()
	return nil
}

func (r *Run) setErr(err error) {
	r.errMu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.errMu.Unlock()
}

// Wait blocks until every unit's goroutine has exited and returns nil if the
// run completed, the first unit's error if one failed, ErrStopped after
// Stop, or the context's error if it was cancelled. Nothing is left running
// when Wait returns. It returns an error at once if the run was not started.
func (r *Run) Wait() error {
	if !r.started.Load() {
		return errors.New("runtime: Wait before Start")
	}
	<-r.done
	r.errMu.Lock()
	err := r.err
	r.errMu.Unlock()
	if err != nil {
		return err
	}
	if cause := context.Cause(r.ctx); cause != nil && !r.completed() {
		return cause
	}
	return nil
}

// completed reports whether every unit finished its work.
func (r *Run) completed() bool {
	for _, l := range r.learners {
		if l.count.Load() < int64(r.cfg.GradSteps) {
			return false
		}
	}
	return r.added.Load() == int64(r.sched.chunks())
}

// Run starts the run and waits for it.
func (r *Run) Run(ctx context.Context) error {
	if err := r.Start(ctx); err != nil {
		return err
	}
	return r.Wait()
}

// Done returns a channel closed when every unit has exited.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stop ends the run: every unit finishes the primitive it is executing
// (nothing is left half-written in the buffer) and exits; transitions in
// local storages and queues are dropped. Stop waits for the goroutines and
// is safe to call more than once, and before Start (it then does nothing).
func (r *Run) Stop() {
	if !r.started.Load() {
		return
	}
	r.cancel(ErrStopped)
	<-r.done
}

// Pause holds every unit before its next primitive; the primitives
// running finish first. Paused time does not count in the throughputs.
func (r *Run) Pause() {
	r.pauseMu.Lock()
	defer r.pauseMu.Unlock()
	if r.paused.Load() {
		return
	}
	r.resume = make(chan struct{})
	r.pausedSince = time.Now()
	r.paused.Store(true)
}

// Resume lets a paused run go on.
func (r *Run) Resume() {
	r.pauseMu.Lock()
	defer r.pauseMu.Unlock()
	if !r.paused.Load() {
		return
	}
	r.pausedTotal.Add(int64(time.Since(r.pausedSince)))
	r.paused.Store(false)
	close(r.resume)
}

// Paused reports whether the run is paused.
func (r *Run) Paused() bool { return r.paused.Load() }

// gate holds unit u while the run is paused.
func (r *Run) gate(ctx context.Context, u *unit) error {
	if !r.paused.Load() {
		return nil
	}
	r.pauseMu.Lock()
	ch, p := r.resume, r.paused.Load()
	r.pauseMu.Unlock()
	if !p {
		return nil
	}
	u.state.Store(statePaused)
	t0 := time.Now()
	defer func() {
		u.wait.Add(int64(time.Since(t0)))
		u.state.Store(stateRunning)
	}()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitFor blocks unit u until cond holds, re-checking it whenever a unit
// pokes it, or until ctx is done.
func (r *Run) waitFor(ctx context.Context, u *unit, cond func() bool) error {
	if cond() {
		return nil
	}
	u.state.Store(stateWaiting)
	t0 := time.Now()
	defer func() {
		u.wait.Add(int64(time.Since(t0)))
		u.state.Store(stateRunning)
	}()
	for !cond() {
		select {
		case <-u.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// pokeAll wakes every unit that may be waiting for a counter to change. A
// wake-up is a token in a channel of capacity 1, so none is lost and none
// allocates.
func (r *Run) pokeAll() {
	for _, u := range r.units {
		u.poke()
	}
}

// minUpdated returns the gradient steps whose priorities every replay
// manager has updated.
func (r *Run) minUpdated() int {
	u := math.MaxInt
	for _, m := range r.rmms {
		u = min(u, int(m.updatedA.Load()))
	}
	return u
}

// recordEpisode appends a finished episode to the log.
func (r *Run) recordEpisode(e Episode) {
	r.epMu.Lock()
	r.episodes = append(r.episodes, e)
	r.window.Add(e.Return)
	r.epMu.Unlock()
}

// prefill stores Config.Prefill transitions of a uniformly random policy.
func (r *Run) prefill(ctx context.Context) error {
	n := r.cfg.Prefill
	if n == 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(r.cfg.Seed, streamPrefill))
	e, err := env.Make(r.cfg.Env, rand.New(rand.NewPCG(r.cfg.Seed, streamPrefill+1)), r.cfg.EnvOptions...)
	if err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	ch := newChunk(r.cfg.LocalStorage, r.agent.ObsDim(), r.agent.ActDim())
	obs := make([]float32, r.agent.ObsDim())
	e.Reset(obs)
	spec := e.Spec()
	for done := 0; done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(r.cfg.LocalStorage, n-done)
		for s := range k {
			row := &ch.ts[s]
			copy(row.Obs, obs)
			randomAction(row.Action, spec, rng)
			rew, term, trunc, err := e.Step(obs, toEnvAction(row.Action, spec))
			if err != nil {
				return fmt.Errorf("runtime: prefill: %w", err)
			}
			copy(row.NextObs, obs)
			row.Reward, row.Terminated, row.Truncated = float32(rew), term, trunc
			if term || trunc {
				e.Reset(obs)
			}
		}
		if err := r.buf.add(ch.ts[:k]); err != nil {
			return fmt.Errorf("runtime: prefill: %w", err)
		}
		done += k
		r.inserted.Add(int64(k))
	}
	return nil
}

// randomAction writes a uniformly random action of the space into a.
func randomAction(a []float32, spec *env.Spec, rng *rand.Rand) {
	if spec.Act.Discrete() {
		a[0] = float32(rng.IntN(spec.Act.N))
		return
	}
	for i := range a {
		lo, hi := float64(spec.Act.Low[i]), float64(spec.Act.High[i])
		a[i] = float32(lo + (hi-lo)*rng.Float64())
	}
}

// toEnvAction wraps a stored action for env.Step.
func toEnvAction(a []float32, spec *env.Spec) env.Action {
	if spec.Act.Discrete() {
		return env.Discrete(int(a[0]))
	}
	return env.Continuous(a)
}

// bufferSet is the replay buffer of a run: one Buffer, or a Banked one
// for SPO whose bank l belongs to learner l.
type bufferSet struct {
	single *replay.Buffer
	banked *replay.Banked
}

func (b bufferSet) add(ts []replay.Transition) error {
	if b.banked != nil {
		return b.banked.Add(ts...)
	}
	return b.single.Add(ts...)
}

func (b bufferSet) sample(l int, dst *replay.Batch, n int, rng *rand.Rand) error {
	if b.banked != nil {
		return b.banked.Sample(l, dst, n, rng)
	}
	return b.single.Sample(dst, n, rng)
}

func (b bufferSet) update(l int, batch *replay.Batch, td []float32) error {
	if b.banked != nil {
		return b.banked.Update(l, batch, td)
	}
	return b.single.Update(batch, td)
}

// bank returns the Buffer learner l samples from.
func (b bufferSet) bank(l int) *replay.Buffer {
	if b.banked != nil {
		return b.banked.Bank(l)
	}
	return b.single
}

func (b bufferSet) banks() int {
	if b.banked != nil {
		return b.banked.Banks()
	}
	return 1
}

// Unit states, for display.
const (
	stateIdle uint32 = iota
	stateRunning
	stateWaiting
	statePaused
	stateDone
)

var stateNames = [...]string{"idle", "running", "waiting", "paused", "done"}

// unit is what every processing unit shares: its identity, its wake-up
// channel and its counters.
type unit struct {
	id    UnitID
	wake  chan struct{}
	tr    *Tracer
	count atomic.Int64 // the unit's main items (see UnitStats.Items)
	wait  atomic.Int64 // nanoseconds blocked on queues, conditions or a pause
	state atomic.Uint32
}

func (u *unit) init(id UnitID) {
	u.id = id
	u.wake = make(chan struct{}, 1)
	u.tr = NewTracer(id, nil, time.Time{})
}

func (u *unit) poke() {
	select {
	case u.wake <- struct{}{}:
	default:
	}
}

// popWait pops from q on behalf of u, counting a blocked pop as u's wait.
// Once ctx is done it returns ctx.Err() even if q holds items: a stopped
// run must not go on through work queued ahead of it (D pre-sampled
// batches can be D learner steps of a second each).
func popWait[T any](ctx context.Context, u *unit, q *Queue[T]) (T, error) {
	if err := ctx.Err(); err != nil {
		var zero T
		return zero, err
	}
	if v, ok := q.TryPop(); ok {
		return v, nil
	}
	u.state.Store(stateWaiting)
	t0 := time.Now()
	v, err := q.Pop(ctx)
	u.wait.Add(int64(time.Since(t0)))
	u.state.Store(stateRunning)
	return v, err
}

// pushWait pushes to q on behalf of u, counting a blocked push as u's wait.
func pushWait[T any](ctx context.Context, u *unit, q *Queue[T], v T) error {
	if q.TryPush(v) {
		return nil
	}
	u.state.Store(stateWaiting)
	t0 := time.Now()
	err := q.Push(ctx, v)
	u.wait.Add(int64(time.Since(t0)))
	u.state.Store(stateRunning)
	return err
}
