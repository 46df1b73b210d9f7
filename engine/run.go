package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Run is one live training run. Start it with Start; read its latest
// Snapshot at any time; receive its Events; pause, resume, stop it or
// change its mapping. A Run is safe for concurrent use.
type Run struct {
	cfg    Config
	cancel context.CancelFunc
	latest atomic.Pointer[Snapshot]
	events chan Event
	done   chan struct{}

	mu      sync.Mutex
	paused  bool
	resume  chan struct{} // closed by Resume
	mapping *Mapping      // a mapping change not yet applied, nil if none
}

// driver runs one algorithm for a Run.
type driver interface {
	// run trains until the budget is spent or ctx is cancelled, calling
	// g at every primitive boundary it can pause or remap at.
	run(ctx context.Context, g *gate) error
	// snapshot fills the algorithm's part of s. It is called on the
	// driver's own goroutine, through the gate.
	snapshot(s *Snapshot)
	// remap switches the mapping from the next step on.
	remap(mapping Mapping) error
}

// simCounter is implemented by drivers that charge gradient steps to the
// simulated platform later than they count them (see rateWindow.update).
type simCounter interface {
	simGradSteps() (steps int64, lastEnd float64)
}

// pauser is implemented by drivers whose work runs on goroutines other than
// the one calling gate.check: pausing must hold them all.
type pauser interface {
	pause()
	resume()
}

// eventBuffer bounds the events a run holds for a slow reader. A run sends
// a handful of events plus one per user action, so it never fills.
const eventBuffer = 1024

// Start validates cfg, builds the run (environments, networks, replay
// buffer, the simulated platform and its mapping) and starts it. Errors in
// cfg, in the device specs or in the mapping, and a run that would not fit
// the memory limit (CheckMemory's rule, checked on the setup the driver
// builds), are returned here, before anything runs. Cancelling ctx stops the run, as Stop does.
func Start(ctx context.Context, cfg Config) (*Run, error) {
	cfg, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	d, err := newDriver(cfg)
	if err != nil {
		return nil, err
	}
	return launch(ctx, cfg, d), nil
}

// prepare returns cfg with its defaults filled in, or why it is invalid:
// what a run, a prediction and a memory estimate start from.
func prepare(cfg Config) (Config, error) {
	cfg = cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// launch runs driver d of the valid configuration cfg on a new goroutine.
func launch(ctx context.Context, cfg Config, d driver) *Run {
	ctx, cancel := context.WithCancel(ctx)
	r := &Run{cfg: cfg, cancel: cancel, events: make(chan Event, eventBuffer), done: make(chan struct{})}
	g := newGate(r, d, cfg)
	g.publish(Starting) // a snapshot exists before Start returns
	go r.loop(ctx, d, g)
	return r
}

// newDriver builds the driver of cfg.Algo. The constructors check the
// memory the run needs (checkFits) on what they build, before the large
// buffers are allocated.
func newDriver(cfg Config) (driver, error) {
	if cfg.Algo.OnPolicy() {
		return newPPODriver(cfg)
	}
	return newOffPolicyDriver(cfg)
}

func (r *Run) loop(ctx context.Context, d driver, g *gate) {
	defer close(r.done)
	defer r.cancel()
	g.start()
	r.send(EventStarted, g.publish(Running), nil, "mapping "+g.mappingName())
	err := d.run(ctx, g)
	var state State
	var kind EventKind
	switch {
	case err == nil:
		state, kind = Finished, EventFinished
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errStopped):
		state, kind, err = Stopped, EventStopped, nil
	default:
		state, kind = Failed, EventFailed
	}
	g.err = err
	r.send(kind, g.publish(state), err, "") // never lost: send drops the oldest instead
	close(r.events)
}

// errStopped is returned by drivers that stopped at the gate.
var errStopped = errors.New("engine: stopped")

// send queues an event without blocking the run; when the reader has let
// eventBuffer events pile up, it makes room by dropping the oldest.
func (r *Run) send(kind EventKind, s *Snapshot, err error, text string) {
	ev := Event{Kind: kind, Snapshot: s, Err: err, Text: text}
	for {
		select {
		case r.events <- ev:
			return
		default:
		}
		select {
		case <-r.events:
		default:
		}
	}
}

// Config returns the configuration of the run, defaults filled in.
func (r *Run) Config() Config { return r.cfg }

// Latest returns the most recent snapshot. It never blocks and never
// returns nil.
func (r *Run) Latest() *Snapshot { return r.latest.Load() }

// Events returns the run's events, in order; the channel is closed after
// the last one (finished, stopped or failed).
func (r *Run) Events() <-chan Event { return r.events }

// Done is closed when the run has ended and its last snapshot is published.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait waits for the run to end and returns its last snapshot and, if it
// failed, the error.
func (r *Run) Wait() (*Snapshot, error) {
	<-r.done
	s := r.Latest()
	if s.State == Failed {
		return s, errors.New(s.Err)
	}
	return s, nil
}

// Pause pauses the run at its next primitive boundary. The training
// goroutines wait; host time stops counting; nothing is lost.
func (r *Run) Pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.paused {
		r.paused = true
		r.resume = make(chan struct{})
	}
}

// Resume resumes a paused run.
func (r *Run) Resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused {
		r.paused = false
		close(r.resume)
	}
}

// Stop stops the run; its last snapshot has state Stopped. Stop returns at
// once; Done tells when the run has ended.
func (r *Run) Stop() { r.cancel() }

// SetMapping changes the device mapping from the next gradient step (PPO:
// the next iteration) on. A mapping that is infeasible for this workload is
// not applied: the next MappingChanged event says why, the run keeps its
// mapping and goes on (it does not fail).
func (r *Run) SetMapping(m Mapping) {
	r.mu.Lock()
	r.mapping = &m
	r.mu.Unlock()
}

// gate is the driver's access to the run's controls and publishing: the
// driver calls check at every primitive boundary, which pauses, applies a
// mapping change and publishes a snapshot when one is due. It is used by one
// goroutine, except for the fields noted.
type gate struct {
	r   *Run
	d   driver
	cfg Config
	err error

	started   time.Time
	pausedFor time.Duration
	lastPub   time.Time
	seq       uint64

	rates rateWindow
	hist  History
}

// snapshotEvery is the interval between snapshots: the explorer draws at
// 10-20 Hz, so 10 Hz of data keeps it fed without costing the run.
const snapshotEvery = 100 * time.Millisecond

func newGate(r *Run, d driver, cfg Config) *gate {
	return &gate{r: r, d: d, cfg: cfg}
}

func (g *gate) start() { g.started = time.Now() }

func (g *gate) mappingName() string {
	s := g.r.Latest()
	if s == nil {
		return ""
	}
	return s.Mapping.Chosen
}

// hostElapsed is the run's host time, pauses excluded.
func (g *gate) hostElapsed(now time.Time) time.Duration {
	if g.started.IsZero() {
		return 0
	}
	return now.Sub(g.started) - g.pausedFor
}

// errBudget is the cause of a cancellation by the host-time budget.
var errBudget = errors.New("engine: the host-time budget is spent")

// budgetSpent reports whether the run has used its host-time budget
// (Config.Duration; never when it is 0).
func (g *gate) budgetSpent() bool {
	return g.cfg.Duration > 0 && g.hostElapsed(time.Now()) >= g.cfg.Duration
}

// check is called by the driver at its step boundaries (a gradient step, a
// few environment steps): it pauses, applies a mapping change and publishes
// a snapshot when one is due. It costs a clock reading and a lock, so a
// driver whose boundaries come every microsecond calls it less often. It
// returns ctx's error, or errStopped if the run was stopped while paused.
func (g *gate) check(ctx context.Context) error {
	r := g.r
	r.mu.Lock()
	paused, resume, remap := r.paused, r.resume, r.mapping
	r.mapping = nil
	r.mu.Unlock()
	if remap != nil {
		if err := g.d.remap(*remap); err != nil {
			r.send(EventMappingChanged, g.publish(Running), nil, remap.String()+" not applied: "+err.Error())
		} else {
			r.send(EventMappingChanged, g.publish(Running), nil, g.mappingName())
		}
	}
	if paused {
		at := time.Now()
		p, hold := g.d.(pauser)
		if hold {
			p.pause()
		}
		r.send(EventPaused, g.publish(Paused), nil, "")
		select {
		case <-resume:
		case <-ctx.Done():
			if hold {
				p.resume() // let the units see the cancellation and end
			}
			return errStopped
		}
		g.pausedFor += time.Since(at)
		// The snapshot is taken before the units resume: it is the state
		// the pause held, which a viewer (and a test) can compare with
		// the paused one.
		resumed := g.publish(Running)
		if hold {
			p.resume()
		}
		r.send(EventResumed, resumed, nil, "")
	}
	if now := time.Now(); now.Sub(g.lastPub) >= snapshotEvery {
		g.publish(Running)
	}
	return ctx.Err()
}

// publish builds and publishes a snapshot in state st and returns it.
func (g *gate) publish(st State) *Snapshot {
	now := time.Now()
	g.lastPub = now
	g.seq++
	s := &Snapshot{Seq: g.seq, State: st, Config: g.cfg, HostElapsed: g.hostElapsed(now)}
	if g.err != nil {
		s.Err = g.err.Error()
	}
	g.d.snapshot(s)
	s.Busiest = busiest(s.Devices)
	s.SimGradSteps, s.SimGradEnd = s.Counters.GradSteps, s.SimElapsed
	if c, ok := g.d.(simCounter); ok {
		s.SimGradSteps, s.SimGradEnd = c.simGradSteps()
	}
	g.rates.update(s)
	s.Host, s.Sim, s.SimRecent = g.rates.host, g.rates.sim, g.rates.simRecent
	g.hist.add(s, g.rates.hostSpans, g.rates.simSpans)
	s.History = g.hist.clone()
	g.r.latest.Store(s)
	return s
}
