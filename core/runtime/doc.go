// Package runtime runs off-policy deep reinforcement learning on the
// actor-learner system of seeds 000 and 002: processing units joined by
// bounded FIFO queues, one goroutine each, executing every primitive for
// real on the host and reporting each one to an Observer, so that an engine
// can charge it to a simulated device.
//
// # Units and queues (000 §II-A, §V-B, Table II, Fig. 7)
//
//	actor 0..N-1 ──flush──▶ [storage requests] ──▶ Data Storage ──insert──▶ replay buffer
//	  ▲  (env step, inference,                                              │  (sum tree)
//	  │   local storage)                                                    ▼
//	  │                                       Replay Manager (RMM) ◀── sample / update
//	  │                                         │  [data, cap D]   ▲ [priorities, cap D]
//	  │                                         ▼                  │
//	  └──── weights (every WeightInterval) ──── Learner ───────────┘
//
// An actor steps its own environment copy with its own policy network and
// fills a local storage of LocalStorage transitions, which it flushes to
// the Data Storage's request queue when full (000 §II-A1). The Data Storage
// inserts it into the replay buffer (core/replay, lazy writing). The
// replay manager samples batches by prefix sum and applies the learner's
// priority updates; the learner trains and publishes its weights to the
// actors. ModeSPO gives every learner its own bank and replay manager and
// adds a weight server that averages the learners every H steps (001
// §5.2); ModeDataParallel adds L local learners that compute sub-batch
// gradients for a central learner (001 §5.1.3).
//
// # Relaxed dependency (000 §V-A, §VII-B)
//
// A replay manager holds D batch tokens: it samples batch g only while
// fewer than D batches await their priority update, so with D = 1 every
// batch is drawn from priorities updated by the previous step (the strict
// loop of 000 §II-A2), and with D > 1 sampling runs up to D-1 batches ahead
// of training, on the data stored so far. Each batch's staleness (priority
// updates between its sampling and its own) is measured.
//
// # Pacing and determinism
//
// Gradient step g trains only once need(g) = LearningStarts + (g+1)
// UpdateInterval transitions are stored (CleanRL's train_frequency, 002's
// update interval); its batch is sampled once need(g-D+1) are. PaceRatio
// keeps actors within one interval (and a local storage per other actor)
// of the learner's need; PaceLockstep also fixes the order of every buffer
// operation, so a run is a deterministic function of its Config (the seed
// included) while actor and learner still overlap; PaceFree couples
// nothing, for throughput measurements.
//
// # Observation
//
// Every primitive (environment step, inference, local store, flush,
// insert, sample, gather, forward, backward, optimizer, target update,
// priority update, weight publish/load/average, gradient average,
// transfer) is reported as an Event with its unit, kind, item count and
// host start and end. With no Observer the runtime reads no clock for
// them. Snapshot reports every queue's occupancy and every unit's
// throughput and busy fraction; Pause, Resume, Stop and context
// cancellation control a run, and Wait returns only when every goroutine
// has exited, with nothing half-written in the buffer.
//
// # Cost
//
// Per environment step an actor does the step, one forward pass of batch 1
// (unless it explores at random) and one row copy; per gradient step the
// replay manager does one sample and one update of B (O(B K log_K N)), the
// learner one training step. Queues hand over pointers; nothing allocates
// per step. The runtime adds two wake-ups per local storage and two per
// gradient step.
//
// # Importing
//
// runtime imports core/replay, core/sumtree, core/env and core/nn; never
// engine, hw, tui or cmd. Learners (core/dqn, core/ddpg) implement its Agent
// interfaces.
package runtime
