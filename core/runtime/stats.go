package runtime

import (
	"math"
	"slices"
	"time"

	"github.com/rlxdev/rlx/core/replay"
)

// UnitStats is a snapshot of one processing unit. Items counts the unit's
// main work: environment steps (actor), transitions inserted (storage),
// priority updates applied (replay), gradient steps (learner), gradient
// jobs (worker), averagings (server). Throughput is Items per second of
// active time (paused time excluded); Busy is the fraction of that time the
// unit was not blocked on a queue, a condition or the pause. With fewer
// cores than units a runnable unit waiting for a core counts as busy.
type UnitStats struct {
	Unit       UnitID        `json:"-"`
	Name       string        `json:"name"`
	State      string        `json:"state"`
	Items      int64         `json:"items"`
	Throughput float64       `json:"throughput"`
	Busy       float64       `json:"busy"`
	Wait       time.Duration `json:"wait_ns"`
}

// Snapshot is the state of a run at one moment, on the host clock. Every
// field is read from atomic counters, one by one: a consistent picture to
// within the primitives running while it is taken.
type Snapshot struct {
	Elapsed time.Duration `json:"elapsed_ns"` // active time: wall time since Start minus paused time
	Paused  bool          `json:"paused"`
	Done    bool          `json:"done"`

	EnvSteps  int64   `json:"env_steps"`
	GradSteps int64   `json:"grad_steps"` // policy updates of learner 0 (central learner)
	SPS       float64 `json:"sps"`        // environment steps per second
	GPS       float64 `json:"gps"`        // gradient steps per second of learner 0 (000 §II-C)

	Episodes   int     `json:"episodes"`
	MeanReturn float64 `json:"mean_return"` // over the last ReturnWindow episodes, NaN before the first
	LastReturn float64 `json:"last_return"` // NaN before the first episode

	Loss  float64 `json:"loss"`   // TD loss of learner 0's last step
	QMean float64 `json:"q_mean"` // mean Q of its batch
	Aux   float64 `json:"aux"`    // last actor loss (DDPG/TD3)

	MeanStaleness float64 `json:"mean_staleness"` // priority updates between a batch's sampling and its update (000 §V-A)
	MaxStaleness  int64   `json:"max_staleness"`
	SkippedPrio   int64   `json:"skipped_priorities"` // updates dropped because the slot was rewritten

	WeightVersion int64 `json:"weight_version"` // gradient steps of the newest published weights
	WeightLoads   int64 `json:"weight_loads"`

	Buffer []replay.Stats `json:"buffer"` // one per bank
	Queues []QueueStats   `json:"queues"`
	Units  []UnitStats    `json:"units"`
}

// Snapshot returns the run's counters now. It may be called from any
// goroutine, before, during and after the run; it allocates the slices it
// returns.
func (r *Run) Snapshot() Snapshot {
	var s Snapshot
	el := r.activeTime()
	s.Elapsed = el
	s.Paused = r.paused.Load()
	if r.started.Load() {
		select {
		case <-r.done:
			s.Done = true
		default:
		}
	}
	for _, a := range r.actors {
		s.EnvSteps += a.count.Load()
	}
	s.EnvSteps += int64(r.cfg.Prefill)
	s.GradSteps = r.learners[0].count.Load()
	if sec := el.Seconds(); sec > 0 {
		s.SPS = float64(s.EnvSteps-int64(r.cfg.Prefill)) / sec
		s.GPS = float64(s.GradSteps) / sec
	}
	r.epMu.Lock()
	s.Episodes = len(r.episodes)
	s.MeanReturn, s.LastReturn = math.NaN(), math.NaN()
	if s.Episodes > 0 {
		s.MeanReturn = r.window.Mean()
		s.LastReturn = r.episodes[s.Episodes-1].Return
	}
	r.epMu.Unlock()
	s.Loss = math.Float64frombits(r.loss.Load())
	s.QMean = math.Float64frombits(r.qmean.Load())
	s.Aux = math.Float64frombits(r.aux.Load())
	if n := r.staleN.Load(); n > 0 {
		s.MeanStaleness = float64(r.staleSum.Load()) / float64(n)
	}
	s.MaxStaleness = r.staleMax.Load()
	s.SkippedPrio = r.skipped.Load()
	s.WeightVersion = r.weights.latest.Load()
	s.WeightLoads = r.weights.loads.Load()
	for l := range r.buf.banks() {
		s.Buffer = append(s.Buffer, r.buf.bank(l).Stats())
	}
	s.Queues = append(s.Queues, r.insertQ.Stats())
	for _, m := range r.rmms {
		s.Queues = append(s.Queues, m.data.Stats(), m.prio.Stats())
	}
	if r.server != nil {
		s.Queues = append(s.Queues, r.server.arrive.Stats())
	}
	for _, w := range r.workers {
		q := w.jobs.Stats()
		q.Name = w.id.String() + " jobs"
		s.Queues = append(s.Queues, q)
	}
	if len(r.workers) > 0 {
		s.Queues = append(s.Queues, r.learners[0].results.Stats())
	}
	for _, u := range r.units {
		s.Units = append(s.Units, u.stats(el))
	}
	return s
}

func (u *unit) stats(el time.Duration) UnitStats {
	st := UnitStats{Unit: u.id, Name: u.id.String(), Items: u.count.Load(), Wait: time.Duration(u.wait.Load())}
	state := u.state.Load()
	if int(state) < len(stateNames) {
		st.State = stateNames[state]
	}
	if sec := el.Seconds(); sec > 0 {
		st.Throughput = float64(st.Items) / sec
		st.Busy = math.Max(0, math.Min(1, 1-st.Wait.Seconds()/sec))
	}
	return st
}

// activeTime returns the wall time since Start, up to the end of the run,
// minus the time spent paused.
func (r *Run) activeTime() time.Duration {
	if !r.started.Load() {
		return 0
	}
	var el time.Duration
	if end := r.endTime.Load(); end > 0 {
		el = time.Duration(end)
	} else {
		el = time.Since(r.epoch)
	}
	el -= time.Duration(r.pausedTotal.Load())
	r.pauseMu.Lock()
	if r.paused.Load() {
		el -= time.Since(r.pausedSince)
	}
	r.pauseMu.Unlock()
	return max(el, 0)
}

// Episodes returns a copy of every finished episode, ordered by the global
// environment step at which it ended (then by actor): with PaceLockstep the
// list is a deterministic function of the configuration.
func (r *Run) Episodes() []Episode {
	r.epMu.Lock()
	out := slices.Clone(r.episodes)
	r.epMu.Unlock()
	slices.SortStableFunc(out, func(a, b Episode) int {
		if a.Step != b.Step {
			return a.Step - b.Step
		}
		return a.Actor - b.Actor
	})
	return out
}

// Learner returns learner l (the central learner with ModeDataParallel):
// after Wait, its networks hold the trained weights. It panics if l is out
// of range.
func (r *Run) Learner(l int) Learner {
	if u := r.learners[l]; u.master != nil {
		return u.master
	}
	return r.learners[l].learner
}

// Buffer returns the replay buffer bank l samples from (the whole buffer
// unless ModeSPO), for read-only inspection (Stats, Priorities). It panics
// if l is out of range.
func (r *Run) Buffer(l int) *replay.Buffer { return r.buf.bank(l) }

// RollingMean returns the mean return of the last window episodes of a
// list ordered as Episodes returns it, and NaN if it is empty.
func RollingMean(eps []Episode, window int) float64 {
	if len(eps) == 0 || window < 1 {
		return math.NaN()
	}
	lo := max(0, len(eps)-window)
	var s float64
	for _, e := range eps[lo:] {
		s += e.Return
	}
	return s / float64(len(eps)-lo)
}

// FirstReach returns the global step at which the rolling mean over window
// episodes first reached at least threshold (counting only full windows),
// and false if it never did.
func FirstReach(eps []Episode, window int, threshold float64) (int, bool) {
	if window < 1 || len(eps) < window {
		return 0, false
	}
	var s float64
	for i, e := range eps {
		s += e.Return
		if i >= window {
			s -= eps[i-window].Return
		}
		if i >= window-1 && s/float64(window) >= threshold {
			return e.Step, true
		}
	}
	return 0, false
}

// EpisodesSince returns the episodes recorded after the first n, in the
// order they were recorded, and the number recorded so far: a viewer
// polling for new episodes copies only those. The order is not Episodes':
// with several actors it follows the host's timing.
func (r *Run) EpisodesSince(n int) ([]Episode, int) {
	r.epMu.Lock()
	defer r.epMu.Unlock()
	total := len(r.episodes)
	if n < 0 || n >= total {
		return nil, total
	}
	return slices.Clone(r.episodes[n:]), total
}
