package runtime

import (
	"fmt"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
)

// Mode selects how the learners are organized.
type Mode uint8

const (
	// ModeSingle is one learner with one replay manager: ApeX with a
	// central learner (000 §II-A, Fig. 7). Learners must be 1.
	ModeSingle Mode = iota
	// ModeSPO is Scalable Policy Optimization (001 §5.2): L learners, each
	// sampling and updating its own bank of a banked buffer with its own
	// replay manager, local SGD with weight averaging every AverageEvery
	// steps, target networks updated only after averaging.
	ModeSPO
	// ModeDataParallel is multi-learner data-parallel ApeX (001 §5.1.3):
	// one replay manager samples BatchSize, the central learner splits it
	// into L sub-batches for L local learners, averages their gradients and
	// takes one optimizer step, every step.
	ModeDataParallel
)

func (m Mode) String() string {
	switch m {
	case ModeSingle:
		return "single"
	case ModeSPO:
		return "spo"
	case ModeDataParallel:
		return "data-parallel"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Pacing selects how actors and learners are held to the update interval.
type Pacing uint8

const (
	// PaceRatio runs every unit asynchronously and keeps the ratio of
	// environment steps to gradient steps near UpdateInterval (002 §V-D's
	// "update interval"): gradient step g trains only once
	// need(g) = LearningStarts + (g+1) UpdateInterval transitions are
	// stored (its batch may have been sampled up to D-1 steps earlier), and
	// an actor starts a new local storage only while it is at most one
	// UpdateInterval plus (Actors-1+banks-1)*LocalStorage steps ahead of
	// that need.
	PaceRatio Pacing = iota
	// PaceLockstep orders every replay-buffer operation as a fixed
	// function of the configuration, so that a run is a deterministic
	// function of Config.Seed (host timing aside) while actors still
	// overlap the learner by one local storage: storage c is inserted only
	// after every gradient step whose data lies in storages < c is done,
	// and an actor fills storage c with the weights of exactly those steps
	// of storages < c-1. Learners must be 1.
	PaceLockstep
	// PaceFree couples nothing but the start of learning: actors run
	// TotalSteps steps and learners GradSteps steps as fast as each can.
	// For throughput measurements (the per-core curves of 002 §V-D, the
	// GPS of SPO).
	PaceFree
)

func (p Pacing) String() string {
	switch p {
	case PaceRatio:
		return "ratio"
	case PaceLockstep:
		return "lockstep"
	case PaceFree:
		return "free"
	}
	return fmt.Sprintf("Pacing(%d)", int(p))
}

// Limits on Config values: far above any run rlx makes, low enough that no
// product of them overflows.
const (
	MaxActors   = 1024
	MaxLearners = 256
	MaxSteps    = 1 << 40
)

// chunkBuffers is the number of local storages each actor cycles through:
// one being filled, the others queued or being inserted.
const chunkBuffers = 3

// DefaultAverageEvery is the H that rlx runs and benchmarks SPO with: 001
// leaves H a tuning choice, and one shared value keeps the live runs and the
// scaling benchmark measuring the same scheme.
const DefaultAverageEvery = 10

// Config describes a run. The zero value is not valid; see each field.
type Config struct {
	// Env is the environment id (core/env), EnvOptions its options.
	Env        string
	EnvOptions []env.Option

	Mode   Mode
	Pacing Pacing

	Actors   int // N >= 1 (0 only with PaceFree and Prefill > 0)
	Learners int // L >= 1; 1 with ModeSingle

	// TotalSteps is the number of environment steps over all actors.
	TotalSteps int
	// LearningStarts is the number of transitions stored before the first
	// gradient step (CleanRL learning_starts).
	LearningStarts int
	// UpdateInterval is the number of environment steps per gradient step
	// (CleanRL train_frequency; 002 Algorithm 1 "update interval"), >= 1.
	UpdateInterval int
	// GradSteps is the number of gradient steps (policy updates) of the run.
	// 0 derives it: (TotalSteps - LearningStarts) / UpdateInterval. Required
	// with PaceFree.
	GradSteps int
	// BatchSize is the batch one learner samples per step (the sub-batches
	// of ModeDataParallel are BatchSize/Learners).
	BatchSize int
	// LocalStorage is the number of transitions an actor collects before it
	// flushes them to the Data Storage (000 §II-A1), >= 1.
	LocalStorage int
	// Depth is D, the number of batches a replay manager samples ahead of
	// their priority updates (000 §V-A): 1 is the strict loop.
	Depth int
	// WeightInterval is the number of gradient steps between two
	// publications of the learner's weights to the actors (with
	// PaceLockstep weights are published at storage boundaries instead,
	// with ModeSPO after every averaging); 0 means 1.
	WeightInterval int
	// AverageEvery is H, the local steps between weight averagings of
	// ModeSPO (001 Algorithm 5); DefaultAverageEvery is the usual choice.
	AverageEvery int

	// Replay configures the buffer; ObsDim and ActDim are taken from the
	// agent. With ModeSPO it is split into Learners banks.
	Replay replay.Config
	// AnnealBeta moves the importance-sampling exponent linearly from
	// Replay.Beta to 1 over the gradient steps (Schaul et al. 2016).
	AnnealBeta bool

	// InsertQueue is the capacity, in local storages, of the Data Storage's
	// request queue; 0 means chunkBuffers*Actors.
	InsertQueue int
	// Prefill stores this many transitions of a uniformly random policy
	// before the units start (PaceFree only): a buffer to measure learners
	// on without actors.
	Prefill int
	// ReturnWindow is the number of episodes of the rolling mean return;
	// 0 means 100.
	ReturnWindow int

	// Seed seeds every random source of the run.
	Seed uint64
	// Observer, if not nil, receives every primitive (see Observer).
	Observer Observer
}

// Check returns the error New would return for c's fields that do not
// depend on the agent (every field but the replay buffer's, whose
// dimensions come from the agent), naming the first bad value and the
// accepted range, or nil. It builds nothing: a caller that assembles a
// Config from its own options (bench) checks them with it before any
// work starts, against the same bounds the run enforces.
func (c Config) Check() error { return c.validate() }

// validate checks the fields that do not depend on the agent and fills
// defaults. It returns an error naming the first bad value and the accepted
// range.
func (c *Config) validate() error {
	if c.WeightInterval == 0 {
		c.WeightInterval = 1
	}
	if c.ReturnWindow == 0 {
		c.ReturnWindow = 100
	}
	if c.Mode == ModeSingle && c.Learners == 0 {
		c.Learners = 1
	}
	switch {
	case c.Mode > ModeDataParallel:
		return fmt.Errorf("runtime: mode %d is unknown: use ModeSingle, ModeSPO or ModeDataParallel", int(c.Mode))
	case c.Pacing > PaceFree:
		return fmt.Errorf("runtime: pacing %d is unknown: use PaceRatio, PaceLockstep or PaceFree", int(c.Pacing))
	case c.Actors < 0 || c.Actors > MaxActors:
		return fmt.Errorf("runtime: %d actors is out of range: actors must be 1..%d", c.Actors, MaxActors)
	case c.Actors == 0 && (c.Pacing != PaceFree || c.Prefill < 1):
		return fmt.Errorf("runtime: 0 actors is only allowed with PaceFree and a Prefill: actors must be 1..%d", MaxActors)
	case c.Learners < 1 || c.Learners > MaxLearners:
		return fmt.Errorf("runtime: %d learners is out of range: learners must be 1..%d", c.Learners, MaxLearners)
	case c.Mode == ModeSingle && c.Learners != 1:
		return fmt.Errorf("runtime: %d learners with ModeSingle: it has exactly 1 (use ModeSPO or ModeDataParallel for more)", c.Learners)
	case c.Pacing == PaceLockstep && c.Learners != 1:
		return fmt.Errorf("runtime: %d learners with PaceLockstep: lockstep supports exactly 1", c.Learners)
	case c.TotalSteps < 0 || c.TotalSteps > MaxSteps:
		return fmt.Errorf("runtime: total steps %d is out of range: it must be 0..%d", c.TotalSteps, int64(MaxSteps))
	case c.Actors > 0 && c.TotalSteps < 1:
		return fmt.Errorf("runtime: total steps %d is out of range: it must be 1..%d", c.TotalSteps, int64(MaxSteps))
	case c.LearningStarts < 0 || c.LearningStarts > MaxSteps:
		return fmt.Errorf("runtime: learning starts %d is out of range: it must be 0..%d", c.LearningStarts, int64(MaxSteps))
	case c.UpdateInterval < 1 || c.UpdateInterval > MaxSteps:
		return fmt.Errorf("runtime: update interval %d is out of range: it must be 1..%d", c.UpdateInterval, int64(MaxSteps))
	case c.GradSteps < 0 || c.GradSteps > MaxSteps:
		return fmt.Errorf("runtime: gradient steps %d is out of range: it must be 0 (derived) or 1..%d", c.GradSteps, int64(MaxSteps))
	case c.Pacing == PaceFree && c.GradSteps == 0:
		return fmt.Errorf("runtime: gradient steps 0 with PaceFree: give GradSteps >= 1")
	case c.BatchSize < 1 || c.BatchSize > replay.MaxBatch:
		return fmt.Errorf("runtime: batch size %d is out of range: it must be 1..%d", c.BatchSize, replay.MaxBatch)
	case c.Mode == ModeDataParallel && c.BatchSize%c.Learners != 0:
		return fmt.Errorf("runtime: batch size %d does not split into %d equal sub-batches: it must be a multiple of the learners", c.BatchSize, c.Learners)
	case c.LocalStorage < 1 || c.LocalStorage > 1<<20:
		return fmt.Errorf("runtime: local storage %d is out of range: it must be 1..%d", c.LocalStorage, 1<<20)
	case c.Depth < 1 || c.Depth > replay.MaxDepth:
		return fmt.Errorf("runtime: depth D = %d is out of range: it must be 1..%d", c.Depth, replay.MaxDepth)
	case c.WeightInterval < 1 || c.WeightInterval > MaxSteps:
		return fmt.Errorf("runtime: weight interval %d is out of range: it must be 1..%d", c.WeightInterval, int64(MaxSteps))
	case c.Mode == ModeSPO && (c.AverageEvery < 1 || c.AverageEvery > MaxSteps):
		return fmt.Errorf("runtime: averaging interval H = %d is out of range: it must be 1..%d", c.AverageEvery, int64(MaxSteps))
	case c.InsertQueue < 0 || c.InsertQueue > 1<<20:
		return fmt.Errorf("runtime: insert queue %d is out of range: it must be 0 (default) or 1..%d", c.InsertQueue, 1<<20)
	case c.Prefill < 0 || c.Prefill > MaxSteps:
		return fmt.Errorf("runtime: prefill %d is out of range: it must be 0..%d", c.Prefill, int64(MaxSteps))
	case c.Prefill > 0 && c.Pacing != PaceFree:
		return fmt.Errorf("runtime: prefill %d with %s pacing: prefill is only allowed with PaceFree", c.Prefill, c.Pacing)
	case c.ReturnWindow < 1 || c.ReturnWindow > 1<<20:
		return fmt.Errorf("runtime: return window %d is out of range: it must be 1..%d", c.ReturnWindow, 1<<20)
	}
	if c.InsertQueue == 0 {
		c.InsertQueue = chunkBuffers * max(c.Actors, 1)
	}
	if c.GradSteps == 0 {
		c.GradSteps = derivedGradSteps(c.TotalSteps, c.LearningStarts, c.UpdateInterval)
	}
	return nil
}

func derivedGradSteps(total, starts, interval int) int {
	if total < starts+interval {
		return 0
	}
	return (total - starts) / interval
}

// schedule holds the fixed arithmetic of a run: chunks (local storages) and
// the data each gradient step needs.
type schedule struct {
	total, starts, interval, grads, chunk, depth, actors int
	banks                                                int // replay banks (SPO), 1 otherwise
	free                                                 bool
}

func newSchedule(c *Config) schedule {
	s := schedule{
		total: c.TotalSteps, starts: c.LearningStarts, interval: c.UpdateInterval,
		grads: c.GradSteps, chunk: c.LocalStorage, depth: c.Depth, actors: c.Actors,
		banks: 1, free: c.Pacing == PaceFree,
	}
	if c.Mode == ModeSPO {
		s.banks = c.Learners
	}
	return s
}

// chunks returns the number of local storages of the run: chunk c holds
// environment steps [c*chunk, min((c+1)*chunk, total)), filled by actor
// c mod actors.
func (s schedule) chunks() int {
	if s.actors == 0 {
		return 0
	}
	return (s.total + s.chunk - 1) / s.chunk
}

// chunkLen returns the number of transitions in chunk c.
func (s schedule) chunkLen(c int) int { return min(s.chunk, s.total-c*s.chunk) }

// stored returns the transitions stored once chunks 0..c-1 are inserted.
func (s schedule) stored(c int) int { return min(c*s.chunk, s.total) }

// need returns the transitions that must be stored before gradient step g
// samples: LearningStarts + (g+1) UpdateInterval, so that step g follows
// environment step LearningStarts + (g+1) UpdateInterval as in CleanRL's
// loop (train when global_step > learning_starts, every train_frequency
// steps). With PaceFree only LearningStarts (at least 1) is needed.
func (s schedule) need(g int) int {
	if s.free {
		return max(s.starts, 1)
	}
	return s.starts + (g+1)*s.interval
}

// sampleNeed returns the transitions that must be stored before the batch
// of gradient step g is sampled: need(g-D+1). Sampling runs up to D-1 steps
// ahead of training (000 §V-A), so a batch may lack the last (D-1)
// UpdateInterval transitions its step would have seen in the strict loop,
// besides drawing on priorities up to D-1 updates old.
func (s schedule) sampleNeed(g int) int { return s.need(max(g-s.depth+1, 0)) }

// samplesBefore returns the batches lockstep samples before inserting chunk
// c: every g with sampleNeed(g) <= stored(c), that is max(g-D+1, 0) < n(c):
// min(G, n(c)+D-1), or none while n(c) = 0.
func (s schedule) samplesBefore(c int) int {
	n := s.gradsBefore(c)
	if n == 0 {
		return 0
	}
	return min(s.grads, n+s.depth-1)
}

// gradsBefore returns n(c): the number of gradient steps whose data lies in
// chunks 0..c-1. In lockstep chunk c is inserted only after all of them.
func (s schedule) gradsBefore(c int) int {
	st := s.stored(c)
	if st < s.starts+s.interval {
		return 0
	}
	return min((st-s.starts)/s.interval, s.grads)
}

// actorVersion returns the weight version (gradient steps done) an actor
// fills chunk c with in lockstep: n(c-1), the steps on data of chunks
// 0..c-2, which the learner finishes while the actor fills chunk c-1.
func (s schedule) actorVersion(c int) int {
	if c < 1 {
		return 0
	}
	return s.gradsBefore(c - 1)
}

// boundary reports whether weight version v equals n(c) for some chunk c:
// the versions lockstep publishes.
func (s schedule) boundary(v int) bool {
	if v == 0 {
		return true
	}
	// the first chunk count whose data covers step v-1
	c := (s.starts + v*s.interval + s.chunk - 1) / s.chunk
	return s.gradsBefore(c) == v
}

// mayStart reports whether an actor may start chunk c with PaceRatio:
// while c*chunk < LearningStarts + (u+1) UpdateInterval + (N-1+L-1) chunk,
// u the gradient steps whose priorities every replay manager updated. The
// data of step u, which the learner waits for, can then be stored; N-1
// chunks let every actor work at once, and with L banks (SPO) L-1 more let
// every bank receive one, since a replay manager with an empty bank cannot
// sample. The depth D does not let actors run further ahead: sampling ahead
// draws on the data already stored. Once every step is done nothing holds
// the actors.
func (s schedule) mayStart(c, u int) bool {
	if u >= s.grads {
		return true
	}
	return c*s.chunk < s.starts+(u+1)*s.interval+(s.actors-1+s.banks-1)*s.chunk
}
