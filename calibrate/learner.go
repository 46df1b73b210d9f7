package calibrate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/hw"
)

// LearnerShape is the gradient step of an off-policy learner as a live run
// trains it: algorithm, environment (which sets the networks, CleanRL's)
// and batch.
type LearnerShape struct {
	Algo  agents.Algorithm `json:"algo"`
	Env   string           `json:"env"`
	Batch int              `json:"batch"`
}

// String is "dqn CartPole-v1 @ 128".
func (s LearnerShape) String() string { return fmt.Sprintf("%s %s @ %d", s.Algo, s.Env, s.Batch) }

// learner builds the agent's learner and the workload the cost models
// charge for its step.
func (s LearnerShape) learner() (agents.OffPolicyAgent, hw.Workload, error) {
	if s.Batch < 1 || s.Batch > 4096 {
		return agents.OffPolicyAgent{}, hw.Workload{}, fmt.Errorf("%s: batch %d is out of range: must be 1..4096", s, s.Batch)
	}
	ag, err := agents.OffPolicy(s.Algo, s.Env, 1<<20, -1, 1)
	if err != nil {
		return agents.OffPolicyAgent{}, hw.Workload{}, err
	}
	w := hw.Workload{Name: "calibrate " + s.String(), Batch: s.Batch, Capacity: 2, Fanout: 2, Actors: 1,
		DataPointBytes: hw.TransitionBytes(ag.Spec.Obs.Dim(), ag.Spec.Act.Dim())}
	ag.LearnerStep().Apply(&w)
	return *ag, w, nil
}

// Predictor returns the CPU model's time of the learner step, its
// workload built once; a shape that is not a learner fails every call.
func (s LearnerShape) Predictor() Predictor {
	_, w, err := s.learner()
	return stepPredictor(w, s.Batch, err)
}

// MeasureLearnerStep times the learner's Train on one batch of random
// transitions (weights 1, nothing terminal), as the runtime's learner calls
// it: forward, loss, backward, optimizer and target updates, and the TD
// errors for the priority update.
func MeasureLearnerStep(ctx context.Context, s LearnerShape, repeats int, minTime time.Duration) (Timing, error) {
	ag, _, err := s.learner()
	if err != nil {
		return Timing{}, err
	}
	l, err := ag.Agent.NewLearner()
	if err != nil {
		return Timing{}, err
	}
	b, od, ad := s.Batch, ag.Agent.ObsDim(), ag.Agent.ActDim()
	rng := rand.New(rand.NewPCG(3, uint64(b)))
	normal := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = 0.1 * float32(rng.NormFloat64())
		}
		return x
	}
	actions := make([]float32, b*ad)
	if !ag.Agent.Discrete() {
		actions = normal(b * ad)
	}
	batch := &replay.Batch{Idx: make([]int, b), Obs: normal(b * od), Actions: actions, Rewards: normal(b),
		NextObs: normal(b * od), Terminated: make([]bool, b), Truncated: make([]bool, b),
		Weights: make([]float32, b), Priorities: make([]float64, b)}
	for i := range batch.Weights {
		batch.Weights[i] = 1
	}
	td := make([]float32, b)
	step := 0
	return timeRepeats(ctx, func() {
		l.Train(nil, batch, td, step)
		step++
	}, repeats, minTime)
}
