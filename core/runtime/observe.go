package runtime

import (
	"fmt"
	"time"
)

// Role is the kind of a processing unit (000 Table II).
type Role uint8

const (
	// RoleActor steps an environment copy with its own policy network and
	// fills a local storage (000 §II-A1).
	RoleActor Role = iota
	// RoleStorage is the Data Storage: it inserts flushed local storages
	// into the replay buffer (000 §II-A3, Table II).
	RoleStorage
	// RoleReplay is the Replay Management Module (RMM): prefix-sum sampling
	// and priority updates on the sum tree, D batches ahead (000 §V-A).
	RoleReplay
	// RoleLearner trains the networks: one learner, one local-SGD learner of
	// SPO (001 §5.2), or the central learner of data-parallel ApeX (001
	// §5.1.3).
	RoleLearner
	// RoleWorker is a local learner of data-parallel ApeX: it computes the
	// gradients of one sub-batch (001 §5.1.3).
	RoleWorker
	// RoleServer is the weight server of SPO: it averages the learners'
	// weights every H steps (001 §5.2.2, Fig. 5.8).
	RoleServer
	numRoles
)

var roleNames = [numRoles]string{"actor", "storage", "replay", "learner", "worker", "server"}

func (r Role) String() string {
	if r < numRoles {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// UnitID names one processing unit: its role and its index among the units
// of that role (actor 0..N-1, learner 0..L-1, ...).
type UnitID struct {
	Role  Role
	Index int
}

func (u UnitID) String() string { return fmt.Sprintf("%s %d", u.Role, u.Index) }

// Kind is the primitive a unit executed.
type Kind uint8

const (
	// KindEnvStep is one environment step (Items 1).
	KindEnvStep Kind = iota
	// KindInference is one policy-network forward pass of an actor (Items:
	// rows, 1). An epsilon-greedy or warm-up action runs none.
	KindInference
	// KindLocalStore appends one transition to the actor's local storage
	// (Items 1, Bytes the transition).
	KindLocalStore
	// KindFlush hands a full local storage to the Data Storage's request
	// queue (Items: transitions, Bytes: their size). It is reported just
	// before the hand-off, with Start == End.
	KindFlush
	// KindInsert writes flushed transitions into the replay buffer with
	// lazy writing (Items: transitions, Bytes: their size).
	KindInsert
	// KindSample is one batched prefix-sum sampling of the sum tree (Items:
	// batch size). In this runtime the gather of the rows happens inside the
	// same replay.Buffer.Sample call, so its host time includes the gather;
	// the KindGather event that follows it has Start == End.
	KindSample
	// KindGather copies the sampled rows out of the Data Storage (Items:
	// rows, Bytes: their size).
	KindGather
	// KindForward is the forward propagation of a training step, loss and
	// TD errors included (Items: batch rows).
	KindForward
	// KindBackward is the backward propagation of a training step (Items:
	// batch rows).
	KindBackward
	// KindOptimizer is the optimizer's weight update (Items: parameters).
	KindOptimizer
	// KindTargetUpdate copies or Polyak-averages target networks (Items:
	// parameters).
	KindTargetUpdate
	// KindPriorityUpdate sets the sampled transitions' priorities to
	// |TD| + eps (Items: batch size).
	KindPriorityUpdate
	// KindWeightPublish copies the learner's policy weights to the weight
	// store for the actors (Items: parameters).
	KindWeightPublish
	// KindWeightLoad copies published weights into an actor's policy
	// network (Items: parameters).
	KindWeightLoad
	// KindWeightAverage averages the weights of L local-SGD learners (SPO,
	// 001 §5.2.1; Items: parameters times L).
	KindWeightAverage
	// KindGradAverage averages the gradients of L local learners of
	// data-parallel ApeX (001 §5.1.3; Items: parameters times L).
	KindGradAverage
	// KindTransfer hands a sub-batch to a data-parallel local learner or
	// weights back to it (Items: rows or parameters, Bytes: payload). On
	// the host it is a pointer hand-off or a copy.
	KindTransfer
	numKinds
)

var kindNames = [numKinds]string{
	"env-step", "inference", "local-store", "flush", "insert", "sample", "gather",
	"forward", "backward", "optimizer", "target-update", "priority-update",
	"weight-publish", "weight-load", "weight-average", "grad-average", "transfer",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Event reports one primitive call: which unit ran it, what it was, how
// many items it processed and when, on the host clock. Start and End are
// host durations since the run started (a monotonic clock). Event holds no
// pointers, so passing it by value allocates nothing.
type Event struct {
	Unit  UnitID
	Kind  Kind
	Items int   // transitions, batch rows or parameters; see each Kind
	Bytes int64 // payload moved, where the Kind says so; 0 otherwise
	Start time.Duration
	End   time.Duration
}

// Observer receives every primitive the runtime executes. Observe is
// called synchronously from the unit's goroutine, concurrently from
// different units, once per primitive (three times per environment step),
// so it must be safe for concurrent use and fast: record the event and
// return. It must not retain a pointer to anything but the Event value,
// and must not call back into the Run.
//
// The events of one unit arrive in the order it executed them. Across
// units, the event of a primitive whose result another unit uses arrives
// before that unit's events that use it: a flush arrives before the insert
// of its transitions and before any gradient step that trains on them. (A
// replay manager both samples and updates priorities, so its own order
// covers that dependence.) A simulator that replays the events on a model
// clock can therefore rely on causality, not on host timings.
type Observer interface {
	Observe(e Event)
}

// ObserverFunc adapts a function to the Observer interface.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// Tracer times consecutive primitives of one unit and reports them to an
// Observer. A learner's training step calls Mark at the end of each phase
// (forward, backward, optimizer, ...); the span since the previous Mark (or
// Begin) becomes the event. With no observer every method returns at once
// without reading the clock. A Tracer belongs to one goroutine.
type Tracer struct {
	unit  UnitID
	obs   Observer
	epoch time.Time
	last  time.Duration
}

// NewTracer returns a tracer for unit that reports to obs (nil: report
// nothing) with times measured from epoch.
func NewTracer(unit UnitID, obs Observer, epoch time.Time) *Tracer {
	return &Tracer{unit: unit, obs: obs, epoch: epoch}
}

// Unit returns the unit the tracer reports for.
func (t *Tracer) Unit() UnitID { return t.unit }

// Enabled reports whether an observer is attached.
func (t *Tracer) Enabled() bool { return t != nil && t.obs != nil }

// Begin starts the span of the next primitive now.
func (t *Tracer) Begin() {
	if t == nil || t.obs == nil {
		return
	}
	t.last = time.Since(t.epoch)
}

// Mark reports the primitive that ran since the last Begin or Mark, and
// starts the next span.
func (t *Tracer) Mark(k Kind, items int) { t.MarkBytes(k, items, 0) }

// MarkBytes is Mark with the payload size.
func (t *Tracer) MarkBytes(k Kind, items int, bytes int64) {
	if t == nil || t.obs == nil {
		return
	}
	now := time.Since(t.epoch)
	t.obs.Observe(Event{Unit: t.unit, Kind: k, Items: items, Bytes: bytes, Start: t.last, End: now})
	t.last = now
}

// Instant reports a primitive whose host time is included in the
// previous one (Start == End), such as the gather inside Buffer.Sample.
func (t *Tracer) Instant(k Kind, items int, bytes int64) {
	if t == nil || t.obs == nil {
		return
	}
	t.obs.Observe(Event{Unit: t.unit, Kind: k, Items: items, Bytes: bytes, Start: t.last, End: t.last})
}
