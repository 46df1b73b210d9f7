package runtime

import (
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/replay"
)

// Agent is an off-policy algorithm the runtime trains: it builds the
// actors' behavior policies and the learners. Packages core/dqn and
// core/ddpg provide agents; the runtime knows nothing of their networks.
type Agent interface {
	// ObsDim and ActDim give the shape of a stored transition: ActDim is 1
	// for a discrete action (its index).
	ObsDim() int
	ActDim() int
	// Discrete reports whether actions are indices of a discrete space.
	Discrete() bool
	// NewPolicy returns a behavior policy for one actor. Its initial
	// weights do not matter: the runtime loads the learner's before the
	// first step.
	NewPolicy() (Policy, error)
	// NewLearner returns a learner replica. Every call returns a replica
	// with the same initial weights (the local learners of SPO and of
	// data-parallel ApeX start from one model, 001 Algorithm 5).
	NewLearner() (Learner, error)
}

// Policy is an actor's copy of the behavior policy (000 §II-A1). It is used
// by one goroutine.
type Policy interface {
	// Act writes the action for observation obs into act (ActDim values:
	// the index for a discrete space; a value inside the box for a
	// continuous one) at global environment step t (for exploration
	// schedules), drawing any randomness from rng. It reports whether it
	// ran the policy network (false for a random exploratory action).
	Act(act, obs []float32, t int, rng *rand.Rand) (inferred bool)
	// Params returns the policy network's parameters (aliased): the runtime
	// copies published weights into it.
	Params() []float32
}

// TrainStats are the scalars one training step reports.
type TrainStats struct {
	Loss   float64 // the TD loss (the critic's for actor-critic methods)
	QMean  float64 // mean Q value of the batch's taken actions
	Aux    float64 // the actor loss of DDPG/TD3 when it was updated this step, else 0
	HasAux bool
}

// Learner trains on sampled batches. It is used by one goroutine at a time.
type Learner interface {
	// PolicyParams returns the parameters the actors run (aliased), in the
	// layout of Policy.Params.
	PolicyParams() []float32
	// Train performs gradient step number step (0-based) on batch b: the
	// forward pass, the loss weighted by b.Weights (importance sampling),
	// the backward pass and the optimizer step, and the target-network
	// updates that are due. It writes one TD error per row into td, for the
	// priority update, and reports each phase through tr (Mark after
	// forward, backward, optimizer and target updates).
	Train(tr *Tracer, b *replay.Batch, td []float32, step int) TrainStats
}

// LocalSGD is a learner that can run as one of L local learners of
// Scalable Policy Optimization (001 §5.2.1, Algorithms 5, 7, 8): it trains
// on its own bank and its weights are averaged with the others' every H
// steps. Between averagings its target networks must stay fixed (001
// §5.2.1: local SGD needs a stationary target), so SetLocal(true) defers
// target updates to AfterAverage.
type LocalSGD interface {
	Learner
	// SetLocal switches the deferred-target mode on or off.
	SetLocal(on bool)
	// AverageParams returns the parameter vectors to average (aliased): every
	// network the learner trains, not its targets.
	AverageParams() [][]float32
	// AfterAverage runs after the learner's parameters were replaced by the
	// average, at gradient step step: it applies the target updates that
	// fell due since the previous averaging.
	AfterAverage(tr *Tracer, step int)
}

// DataParallel is a learner that can run data-parallel ApeX (001 §5.1.3):
// L local learners compute gradients on sub-batches, the central learner
// averages them, takes the optimizer step and sends the weights back.
type DataParallel interface {
	Learner
	// Phases returns how many gradient phases step has: each phase is
	// computed on all local learners, averaged and applied before the next
	// (TD3's actor update needs the critic just updated).
	Phases(step int) int
	// Grad computes the gradients of phase on sub-batch b into the
	// learner's gradient vectors (replacing them), as the mean over b's
	// rows. Phase 0 writes b's TD errors into td.
	Grad(tr *Tracer, phase int, b *replay.Batch, td []float32, step int) TrainStats
	// GradParams returns the gradient vectors of phase (aliased), to average.
	GradParams(phase int) [][]float32
	// Apply takes the optimizer step of phase from the gradient vectors
	// (which hold the average), and after the last phase the target
	// updates that are due.
	Apply(tr *Tracer, phase int, step int)
	// CopyFrom makes the learner's weights, targets included, equal to
	// src's (a learner of the same agent): the weight transfer from the
	// central learner. It returns the number of values copied.
	CopyFrom(src DataParallel) int
}
