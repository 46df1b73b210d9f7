package dqn

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

// Loss selects the TD loss.
type Loss uint8

const (
	// MSE is the mean squared TD error, CleanRL dqn.py's F.mse_loss.
	MSE Loss = iota
	// Huber is the Huber loss with delta 1 (F.smooth_l1_loss), the loss of
	// Mnih et al. (2015).
	Huber
)

func (l Loss) String() string {
	switch l {
	case MSE:
		return "mse"
	case Huber:
		return "huber"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// Config holds DQN's hyperparameters. CleanRL returns CleanRL dqn.py's.
type Config struct {
	// Hidden are the hidden layer sizes of the Q network (ReLU), {120, 84}
	// in dqn.py.
	Hidden []int
	// LearningRate of Adam (PyTorch defaults otherwise), 2.5e-4.
	LearningRate float64
	// Gamma is the discount, 0.99.
	Gamma float64
	// Tau is the target update rate: 1 is a hard copy (dqn.py's default).
	Tau float64
	// TargetEvery is the number of gradient steps between target updates:
	// dqn.py's target_network_frequency (500 environment steps) divided by
	// its train_frequency (10), 50.
	TargetEvery int
	// Double selects the double-DQN target (van Hasselt et al. 2016): the
	// online network picks the next action, the target network values it.
	Double bool
	// Loss is MSE (dqn.py) or Huber.
	Loss Loss
	// MaxGradNorm clips the global gradient norm when > 0; dqn.py does not.
	MaxGradNorm float64
	// Epsilon-greedy exploration: epsilon goes linearly from StartE to EndE
	// over ExplorationSteps environment steps (dqn.py: 1 to 0.05 over
	// exploration_fraction 0.5 of total_timesteps), then stays at EndE.
	StartE, EndE     float64
	ExplorationSteps int
}

// CleanRL returns the hyperparameters of CleanRL's dqn.py for a run of
// totalSteps environment steps, and the runtime configuration that matches
// its loop on CartPole-v1 with prioritized replay added: buffer_size 10000,
// batch_size 128, learning_starts 10000, train_frequency 10, one actor and
// one learner in lockstep, local storages of 10 transitions (one per
// gradient step), D = 1. Prioritized replay uses Schaul et al.'s
// proportional variant as OpenAI Baselines implements it: alpha 0.6, beta
// 0.4 annealed to 1, eps 1e-6, stratified sampling (one draw per 1/B of the
// priority mass).
func CleanRL(totalSteps int) (Config, runtime.Config) {
	c := Config{
		Hidden:           []int{120, 84},
		LearningRate:     2.5e-4,
		Gamma:            0.99,
		Tau:              1,
		TargetEvery:      500 / 10,
		Loss:             MSE,
		StartE:           1,
		EndE:             0.05,
		ExplorationSteps: totalSteps / 2,
	}
	rc := runtime.Config{
		Env:            "CartPole-v1",
		Mode:           runtime.ModeSingle,
		Pacing:         runtime.PaceLockstep,
		Actors:         1,
		Learners:       1,
		TotalSteps:     totalSteps,
		LearningStarts: 10000,
		UpdateInterval: 10,
		BatchSize:      128,
		LocalStorage:   10,
		Depth:          1,
		Replay: replay.Config{
			Capacity:   10000,
			Alpha:      0.6,
			Beta:       0.4,
			Eps:        1e-6,
			Stratified: true,
		},
		AnnealBeta: true,
	}
	return c, rc
}

func (c *Config) validate() error {
	if err := nn.CheckHidden(c.Hidden, "{120, 84}"); err != nil {
		return fmt.Errorf("dqn: %w", err)
	}
	switch {
	case !(c.LearningRate > 0 && c.LearningRate < 1):
		return fmt.Errorf("dqn: learning rate %v is out of range: it must be in (0, 1)", c.LearningRate)
	case !(c.Gamma >= 0 && c.Gamma <= 1):
		return fmt.Errorf("dqn: gamma %v is out of range: it must be in [0, 1]", c.Gamma)
	case !(c.Tau > 0 && c.Tau <= 1):
		return fmt.Errorf("dqn: tau %v is out of range: it must be in (0, 1]", c.Tau)
	case c.TargetEvery < 1:
		return fmt.Errorf("dqn: target update interval %d is out of range: it must be >= 1 gradient step", c.TargetEvery)
	case c.Loss > Huber:
		return fmt.Errorf("dqn: loss %d is unknown: use MSE or Huber", int(c.Loss))
	case !(c.MaxGradNorm >= 0) || math.IsInf(c.MaxGradNorm, 0):
		return fmt.Errorf("dqn: max gradient norm %v is out of range: it must be finite and >= 0 (0: no clipping)", c.MaxGradNorm)
	case !(c.StartE >= 0 && c.StartE <= 1):
		return fmt.Errorf("dqn: start epsilon %v is out of range: it must be in [0, 1]", c.StartE)
	case !(c.EndE >= 0 && c.EndE <= 1):
		return fmt.Errorf("dqn: end epsilon %v is out of range: it must be in [0, 1]", c.EndE)
	case c.ExplorationSteps < 0:
		return fmt.Errorf("dqn: exploration steps %d is out of range: it must be >= 0", c.ExplorationSteps)
	}
	return nil
}

// Epsilon returns the exploration rate at global environment step t:
// max(StartE + (EndE - StartE) t / ExplorationSteps, EndE), dqn.py's
// linear_schedule (EndE at once if ExplorationSteps is 0).
func (c *Config) Epsilon(t int) float64 {
	if c.ExplorationSteps <= 0 {
		return c.EndE
	}
	slope := (c.EndE - c.StartE) / float64(c.ExplorationSteps)
	return math.Max(slope*float64(t)+c.StartE, c.EndE)
}
