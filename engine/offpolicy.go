package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/runtime"
	"github.com/rlxdev/rlx/core/sumtree"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/sim"
)

// maxReplayBytes bounds the replay buffer a run may allocate: past it the
// machine would swap or the allocator fail, which cannot be recovered.
const maxReplayBytes = 8 << 30

// offPolicyDriver runs DQN, DDPG or TD3 on the actor-learner runtime
// (core/runtime, 000 §V-B) and charges what it executes to the simulated
// platform through offPolicySim.
type offPolicyDriver struct {
	cfg     Config
	rrun    *runtime.Run
	meaning bool
	rng     *rand.Rand // the sum-tree view's sample targets; monitor goroutine only

	mu     sync.Mutex // guards clock, view and detail
	clock  *sim.OffPolicy
	view   MappingView
	detail []DeviceView // cycle-level pipelines of the mapping, computed once per mapping

	// Monitor goroutine only.
	returns  returnWindow
	episodes int
	queues   map[string][2]int64 // previous push and pop counts
	queueAt  time.Time
}

// offPolicySetup is a configuration translated for the runtime: the agent,
// the runtime's configuration (without an observer) and the passes of the
// learner's networks that the cost models charge.
type offPolicySetup struct {
	spec  *env.Spec
	agent runtime.Agent
	rc    runtime.Config
	step  hw.LearnerStep
}

func newOffPolicySetup(cfg Config) (*offPolicySetup, error) {
	total := int(min(cfg.Steps, 1<<40))
	if total == 0 {
		total = 1 << 40 // until stopped
	}
	// CleanRL's recipe, DDPG's and TD3's learning starting at a tenth of
	// the budget (at most CleanRL's 25,000), then this run's sizes.
	ag, err := agents.OffPolicy(cfg.Algo, cfg.Env, total, -1, cfg.Seed)
	if err != nil {
		return nil, err
	}
	spec, agent, rc := ag.Spec, ag.Agent, ag.Runtime
	step := ag.LearnerStep()
	rc.Actors, rc.BatchSize, rc.Depth = cfg.Actors, cfg.Batch, cfg.Depth
	rc.Replay.Capacity, rc.Replay.Fanout = cfg.Capacity, cfg.Fanout
	rc.LearningStarts = min(rc.LearningStarts, max(cfg.Batch, cfg.Capacity/2))
	if cfg.Learners > 1 {
		rc.Mode, rc.Learners, rc.AverageEvery = runtime.ModeSPO, cfg.Learners, runtime.DefaultAverageEvery
	}
	if cfg.Actors > 1 || cfg.Learners > 1 || cfg.Depth > 1 {
		// Lockstep orders everything for one learner and strict sampling;
		// with more units, or batches sampled ahead, units run free at the
		// update interval's ratio.
		rc.Pacing = runtime.PaceRatio
	}
	rb := rc.Replay
	rb.ObsDim, rb.ActDim = spec.Obs.Dim(), spec.Act.Dim()
	if need := rb.Bytes(); need > maxReplayBytes {
		return nil, &FieldError{"capacity", fmt.Sprint(cfg.Capacity),
			fmt.Sprintf("a replay buffer of %d transitions of %s needs %.1f GiB, more than the %d GiB limit: lower the capacity",
				cfg.Capacity, cfg.Env, need/(1<<30), maxReplayBytes>>30)}
	}
	return &offPolicySetup{spec, agent, rc, step}, nil
}

func newOffPolicyDriver(cfg Config) (driver, error) {
	su, err := newFittingOffPolicySetup(cfg)
	if err != nil {
		return nil, err
	}
	spec, agent, rc := su.spec, su.agent, su.rc
	d := &offPolicyDriver{cfg: cfg, meaning: !spec.Workload, rng: rand.New(rand.NewPCG(cfg.Seed, 7))}
	rc.Observer = d
	if d.rrun, err = runtime.New(rc, agent); err != nil {
		return nil, err
	}
	p, err := LoadPlatform(cfg.Devices)
	if err != nil {
		return nil, err
	}
	if d.clock, err = newOffPolicyClock(p, su.workload(cfg), cfg.Mapping); err != nil {
		return nil, err
	}
	// The clock samples each batch when the data its step needs is
	// stored, as the runtime does.
	d.clock.Schedule(rc.LearningStarts, rc.UpdateInterval)
	d.setViews(cfg.Mapping)
	return d, nil
}

// newFittingOffPolicySetup returns the setup of cfg once the run's working
// set fits the memory limit (checkFits), estimated on the setup itself,
// before the runtime allocates the replay buffer: what a run and a
// prediction build.
func newFittingOffPolicySetup(cfg Config) (*offPolicySetup, error) {
	su, err := newOffPolicySetup(cfg)
	if err != nil {
		return nil, err
	}
	if err := checkFits(su.memory()); err != nil {
		return nil, err
	}
	return su, nil
}

// workload describes the run of cfg to the simulated platform: its sizes,
// its actors and the passes of the learner's networks.
func (su *offPolicySetup) workload(cfg Config) hw.Workload {
	w := hw.Workload{
		Name: cfg.Env + "/" + string(cfg.Algo), Batch: cfg.Batch, Capacity: max(2, cfg.Capacity), Fanout: cfg.Fanout,
		Actors: cfg.Actors, Depth: cfg.Depth, DataPointBytes: hw.TransitionBytes(su.spec.Obs.Dim(), su.spec.Act.Dim()),
		EnvStepUS: envStepUS(su.spec.StepCost, cfg.Env),
		// The batches sampled ahead wait in the Data Queue (000 Fig. 7).
		DataQueue: cfg.Depth,
		// The actors feed the learner at the run's update interval, so
		// the exploration charges them too: the live clock runs them.
		EnvStepsPerStep: su.rc.UpdateInterval,
	}
	su.step.Apply(&w)
	return w
}

// newOffPolicyClock explores workload w on platform p and returns the
// simulated clock on the mapping requested: what a run starts on and what
// Predict shows, so that the two cannot differ.
func newOffPolicyClock(p *hw.Platform, w hw.Workload, requested Mapping) (*sim.OffPolicy, error) {
	pl, err := sim.Place(p, w)
	if err != nil {
		return nil, err
	}
	clock, err := sim.NewOffPolicy(pl)
	if err != nil {
		return nil, err
	}
	if err := remapOffPolicy(clock, requested); err != nil {
		return nil, err
	}
	return clock, nil
}

// Observe charges the runtime's primitives to the simulated platform. It
// is called concurrently by every unit and takes the lock only where it
// charges.
//
// The actors' steps are charged when their transitions are inserted, not
// when they run: the runtime reports an insert before any sample that may
// draw from it (runtime.Observer), so a gradient step is charged after the
// data it could use, and with lockstep pacing the order of the charges,
// hence the simulated clock, is a function of the seed. An actor's core
// does its work on its own timeline either way (sim.OffPolicy.ActorSteps).
func (d *offPolicyDriver) Observe(e runtime.Event) {
	switch {
	case e.Kind == runtime.KindInsert:
		d.mu.Lock()
		d.clock.ActorSteps(e.Items)
		d.mu.Unlock()
	case e.Kind == runtime.KindPriorityUpdate && e.Unit.Index == 0:
		// The end of a gradient step of learner 0 (the central learner).
		d.mu.Lock()
		d.clock.GradientStep()
		d.mu.Unlock()
	}
}

// monitorEvery is how often the monitor goroutine checks the gate.
const monitorEvery = 20 * time.Millisecond

func (d *offPolicyDriver) run(ctx context.Context, g *gate) error {
	if err := d.rrun.Start(ctx); err != nil {
		return err
	}
	tick := time.NewTicker(monitorEvery)
	defer tick.Stop()
	budgetDone := false
	for {
		select {
		case <-d.rrun.Done():
			err := d.rrun.Wait()
			if budgetDone || errors.Is(err, runtime.ErrStopped) && ctx.Err() == nil {
				return nil
			}
			return err
		case <-tick.C:
			if err := g.check(ctx); err != nil {
				d.rrun.Stop()
				<-d.rrun.Done()
				return err
			}
			if !budgetDone && g.budgetSpent() {
				budgetDone = true
				d.rrun.Stop()
			}
		}
	}
}

func (d *offPolicyDriver) simGradSteps() (int64, float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.clock.Steps(), d.clock.LastStepEnd()
}

func (d *offPolicyDriver) pause()  { d.rrun.Pause() }
func (d *offPolicyDriver) resume() { d.rrun.Resume() }

func (d *offPolicyDriver) remap(m Mapping) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := remapOffPolicy(d.clock, m); err != nil {
		return err
	}
	d.setViews(m)
	return nil
}

// setViews builds the mapping view and the pipelines' cycle-level views of
// the clock's mapping, requested as given. The caller holds d.mu, or d is
// not running yet.
func (d *offPolicyDriver) setViews(requested Mapping) {
	d.view = placementView(d.clock.Placement(), requested)
	d.detail = pipelineViews(d.clock.Pipelines())
}

func (d *offPolicyDriver) snapshot(s *Snapshot) {
	rs := d.rrun.Snapshot()
	s.Counters = Counters{
		EnvSteps: rs.EnvSteps, GradSteps: rs.GradSteps, Episodes: int64(rs.Episodes),
		Samples: rs.GradSteps * int64(d.cfg.Batch),
	}
	s.Learning.Meaningful = d.meaning
	eps, n := d.rrun.EpisodesSince(d.episodes)
	d.episodes = n
	for _, e := range eps {
		d.returns.add(e.Return)
	}
	d.returns.fill(&s.Learning)
	s.Learning.Losses = []Loss{{"td_loss", rs.Loss}, {"q_mean", rs.QMean}}
	if d.cfg.Algo != DQN {
		s.Learning.Losses = append(s.Learning.Losses, Loss{"actor_loss", rs.Aux})
	}
	s.Replay = ReplayStats{MeanStaleness: rs.MeanStaleness, MaxStaleness: rs.MaxStaleness, Skipped: uint64(rs.SkippedPrio),
		MinPriority: math.Inf(1)}
	for _, b := range rs.Buffer {
		s.Replay.Len += b.Len
		s.Replay.MinPriority = math.Min(s.Replay.MinPriority, b.MinPrio)
		s.Replay.MaxPriority = math.Max(s.Replay.MaxPriority, b.MaxPrio)
	}
	s.Replay.Cap = d.cfg.Capacity
	if math.IsInf(s.Replay.MinPriority, 1) {
		s.Replay.MinPriority = 0
	}
	s.Queues = d.queueStats(rs.Queues)
	s.Tree = d.treeView()

	d.mu.Lock()
	s.SimElapsed = d.clock.Now()
	s.Mapping = d.view
	s.Devices = append(unitViews(d.clock.Traces()), d.detail...)
	d.mu.Unlock()
}

// queueStats converts the runtime's queue counters into rates per host
// second since the previous snapshot.
func (d *offPolicyDriver) queueStats(qs []runtime.QueueStats) []QueueStat {
	now := time.Now()
	dt := now.Sub(d.queueAt).Seconds()
	if d.queues == nil {
		d.queues = map[string][2]int64{}
		dt = 0
	}
	out := make([]QueueStat, 0, len(qs))
	for _, q := range qs {
		st := QueueStat{Name: q.Name, Len: q.Len, Cap: q.Cap}
		if prev, ok := d.queues[q.Name]; ok && dt > 0 {
			st.InPerSec = float64(q.Pushed-prev[0]) / dt
			st.OutPerSec = float64(q.Popped-prev[1]) / dt
		}
		d.queues[q.Name] = [2]int64{q.Pushed, q.Popped}
		out = append(out, st)
	}
	d.queueAt = now
	return out
}

// treeView reads bank 0's sum tree (readTreeView) with a walk for a fresh
// random target.
func (d *offPolicyDriver) treeView() TreeView {
	var v TreeView
	buf := d.rrun.Buffer(0)
	buf.ReadTree(func(t *sumtree.Tree) {
		v = readTreeView(t, buf.Len(), d.rng.Float64())
	})
	return v
}
