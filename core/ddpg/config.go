package ddpg

import (
	"fmt"

	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

// Algorithm selects DDPG or TD3.
type Algorithm uint8

const (
	// DDPG is deep deterministic policy gradient (Lillicrap et al. 2016) as
	// CleanRL's ddpg_continuous_action.py: one critic, no target smoothing,
	// delayed actor updates.
	DDPG Algorithm = iota
	// TD3 is twin delayed DDPG (Fujimoto et al. 2018) as CleanRL's
	// td3_continuous_action.py: two critics and the smaller of their
	// targets, target policy smoothing, delayed actor updates.
	TD3
)

func (a Algorithm) String() string {
	switch a {
	case DDPG:
		return "ddpg"
	case TD3:
		return "td3"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// Config holds the hyperparameters. CleanRL returns CleanRL's.
type Config struct {
	Algorithm Algorithm
	// Hidden are the hidden sizes of the actor and the critics (ReLU),
	// {256, 256}.
	Hidden []int
	// LearningRate of both Adam optimizers, 3e-4.
	LearningRate float64
	// Gamma is the discount, 0.99; Tau the Polyak rate of the targets,
	// 0.005.
	Gamma, Tau float64
	// PolicyNoise and NoiseClip are TD3's target policy smoothing: noise
	// N(0, PolicyNoise) clipped to ±NoiseClip, in units of the action scale
	// (0.2 and 0.5). DDPG ignores them.
	PolicyNoise, NoiseClip float64
	// ExplorationNoise is the standard deviation of the actors' Gaussian
	// noise, in units of the action scale, 0.1.
	ExplorationNoise float64
	// PolicyFrequency is the number of critic steps per actor step (and
	// per target update), 2.
	PolicyFrequency int
	// RandomSteps is the number of environment steps with uniformly random
	// actions before the actor is used (CleanRL: learning_starts).
	RandomSteps int
}

// CleanRL returns CleanRL's hyperparameters for alg and a runtime
// configuration of its loop: buffer_size 10^6 (capped at totalSteps),
// batch_size 256, one gradient step per environment step after
// learning_starts, one actor and one learner in lockstep, local storages of
// 10 transitions, D = 1, and prioritized replay (alpha 0.6, beta 0.4
// annealed to 1, eps 1e-6, stratified). learningStarts is CleanRL's
// learning_starts (25000 there).
func CleanRL(alg Algorithm, envID string, totalSteps, learningStarts int) (Config, runtime.Config) {
	c := Config{
		Algorithm:        alg,
		Hidden:           []int{256, 256},
		LearningRate:     3e-4,
		Gamma:            0.99,
		Tau:              0.005,
		PolicyNoise:      0.2,
		NoiseClip:        0.5,
		ExplorationNoise: 0.1,
		PolicyFrequency:  2,
		RandomSteps:      learningStarts,
	}
	rc := runtime.Config{
		Env:            envID,
		Mode:           runtime.ModeSingle,
		Pacing:         runtime.PaceLockstep,
		Actors:         1,
		Learners:       1,
		TotalSteps:     totalSteps,
		LearningStarts: learningStarts,
		UpdateInterval: 1,
		BatchSize:      256,
		LocalStorage:   10,
		Depth:          1,
		Replay: replay.Config{
			Capacity:   max(1, min(1_000_000, totalSteps)),
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
	if err := nn.CheckHidden(c.Hidden, "{256, 256}"); err != nil {
		return fmt.Errorf("ddpg: %w", err)
	}
	switch {
	case c.Algorithm > TD3:
		return fmt.Errorf("ddpg: algorithm %d is unknown: use DDPG or TD3", int(c.Algorithm))
	case !(c.LearningRate > 0 && c.LearningRate < 1):
		return fmt.Errorf("ddpg: learning rate %v is out of range: it must be in (0, 1)", c.LearningRate)
	case !(c.Gamma >= 0 && c.Gamma <= 1):
		return fmt.Errorf("ddpg: gamma %v is out of range: it must be in [0, 1]", c.Gamma)
	case !(c.Tau > 0 && c.Tau <= 1):
		return fmt.Errorf("ddpg: tau %v is out of range: it must be in (0, 1]", c.Tau)
	case !(c.PolicyNoise >= 0 && c.PolicyNoise <= 10):
		return fmt.Errorf("ddpg: policy noise %v is out of range: it must be in [0, 10]", c.PolicyNoise)
	case !(c.NoiseClip >= 0 && c.NoiseClip <= 10):
		return fmt.Errorf("ddpg: noise clip %v is out of range: it must be in [0, 10]", c.NoiseClip)
	case !(c.ExplorationNoise >= 0 && c.ExplorationNoise <= 10):
		return fmt.Errorf("ddpg: exploration noise %v is out of range: it must be in [0, 10]", c.ExplorationNoise)
	case c.PolicyFrequency < 1:
		return fmt.Errorf("ddpg: policy frequency %d is out of range: it must be >= 1", c.PolicyFrequency)
	case c.RandomSteps < 0:
		return fmt.Errorf("ddpg: random steps %d is out of range: it must be >= 0", c.RandomSteps)
	}
	return nil
}
