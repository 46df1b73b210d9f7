package ppo

import (
	"fmt"
	"time"
)

// Phase is a kind of primitive that a PPO iteration executes: the rows of
// 004 Table I (environment run, DNN inference, storing trajectories, GAE,
// loss calculation, backpropagation) plus the optimizer step.
type Phase uint8

const (
	// PhaseEnv is one step of the N environment copies, with the wrappers
	// that run beside them (action clipping, observation and reward
	// normalization, episode bookkeeping). Items = N.
	PhaseEnv Phase = iota
	// PhaseInference is a forward pass of the policy and value networks on
	// Items observations with action sampling, or of the value network
	// alone (Event.ValueOnly) for the bootstrap values of truncated
	// episodes and of the observation after the rollout.
	PhaseInference
	// PhaseStore writes one step of N transitions into the rollout
	// (observations, rewards, flags, next values). Items = N.
	PhaseStore
	// PhaseGAE computes the advantages and returns of the rollout with the
	// run's numerics (core/gae). Items = N*T elements.
	PhaseGAE
	// PhaseLoss gathers a minibatch, runs both networks forward on it and
	// computes the losses and their gradients with respect to the network
	// outputs. Items = the minibatch size M.
	PhaseLoss
	// PhaseBackward back-propagates the output gradients through the actor
	// and the critic. Items = M.
	PhaseBackward
	// PhaseOptimizer clips the global gradient norm and steps Adam.
	// Items = the number of trainable parameters.
	PhaseOptimizer
	// NumPhases is the number of phases.
	NumPhases
)

var phaseNames = [NumPhases]string{"env", "inference", "store", "gae", "loss", "backward", "optimizer"}

// String returns the phase's short name: env, inference, store, gae, loss,
// backward, optimizer.
func (p Phase) String() string {
	if p < NumPhases {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Event is one primitive a Trainer executed, on the host clock. Start and
// End bracket the primitive's own work: Start is when the observer
// returned from the previous event (or the iteration began), so the
// observer's own time never counts in a primitive's duration.
type Event struct {
	Phase Phase
	// Items is the number of elements the primitive processed: environment
	// steps, observations, transitions, GAE elements, samples or
	// parameters (see the Phase constants).
	Items int
	// ValueOnly marks an inference of the value network alone.
	ValueOnly bool
	// Iteration is the 1-based iteration; Step the rollout step t (0..T-1)
	// of rollout phases, -1 otherwise (and for the bootstrap inference
	// after the last step); Epoch and Minibatch locate update phases (-1
	// in the rollout).
	Iteration, Step, Epoch, Minibatch int
	// Start and End are host times, with monotonic readings.
	Start, End time.Time
}

// Duration is End - Start.
func (e *Event) Duration() time.Duration { return e.End.Sub(e.Start) }

// Observer receives every primitive a Trainer executes, on the Trainer's
// goroutine, right after the primitive ends: what the engine charges to a
// simulated device. It should return quickly: the iteration's wall time
// (and so IPS) includes it, the phase times do not.
type Observer interface {
	Observe(e Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// Episode is an episode that ended during the rollout.
type Episode struct {
	// Env is the copy it ran in; Iteration the 1-based iteration.
	Env, Iteration int
	// EnvSteps is the run's environment steps over all copies after the
	// vector step that ended it (CleanRL's global_step).
	EnvSteps int64
	// Return is the undiscounted sum of the environment's raw rewards
	// (before any normalization) and Length its steps.
	Return float64
	Length int
	// Terminated and Truncated report how it ended.
	Terminated, Truncated bool
}

// EpisodeObserver is implemented by Observers that also want every
// finished episode. SetObserver checks for it once.
type EpisodeObserver interface {
	ObserveEpisode(ep Episode)
}

// ChunkObserver is implemented by Observers that also want to hear from
// inside a minibatch too large for the networks to hold at once, between
// its chunks: nothing has ended that could be charged, but a viewer can
// show that the update is still going, and stop or pause it there.
// SetObserver checks for it once.
type ChunkObserver interface {
	// ObserveChunk reports that done of the minibatch's total samples
	// have been through the networks.
	ObserveChunk(done, total int)
}
