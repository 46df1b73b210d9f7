package ppo

import (
	"time"

	"github.com/rlxdev/rlx/core/gae"
)

// IterStats describes one PPO iteration: what CleanRL logs per iteration,
// the episodes that ended, and the host time of each phase (004 Table I).
type IterStats struct {
	// Iteration is 1-based; EnvSteps counts every environment step of the
	// run up to the end of this iteration (CleanRL's global_step).
	Iteration int
	EnvSteps  int64
	// Samples is N*T, the transitions this iteration collected.
	Samples int
	// LR is the learning rate the iteration's updates used.
	LR float64

	// Means over the minibatch updates that ran: the clipped surrogate
	// loss, the value loss (before VFCoef), the policy entropy, the
	// approximate KL divergences, the clip fraction, and the global
	// gradient norm before clipping.
	PolicyLoss, ValueLoss, Entropy  float64
	ApproxKL, OldApproxKL, ClipFrac float64
	GradNorm                        float64
	// ExplainedVariance of the rollout's values for its returns.
	ExplainedVariance float64
	// Epochs is the number of epochs begun, Updates the minibatch updates
	// made; EarlyStopped reports a target-KL stop.
	Epochs, Updates int
	EarlyStopped    bool

	// Episodes is the number of episodes that ended in this iteration;
	// RecentReturn the mean raw return of the last 100 episodes of the
	// run (NaN before the first).
	Episodes     int
	RecentReturn float64

	// GAEScales are the scales the GAE numerics standardized rewards and
	// values with; GAEClipped counts inputs clamped by the quantizer.
	GAEScales  gae.Scales
	GAEClipped int

	// Wall is the iteration's host wall time; Phases splits it by phase.
	// What is in Wall and no phase (bookkeeping, observer calls) is
	// Other().
	Wall   time.Duration
	Phases [NumPhases]time.Duration
}

// IPS is the throughput of 003 §5.3.1: the samples of the iteration (N*T)
// over the time of the whole iteration, per second of host wall time.
func (s *IterStats) IPS() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Samples) / s.Wall.Seconds()
}

// Other is the part of Wall outside every phase.
func (s *IterStats) Other() time.Duration {
	o := s.Wall
	for _, d := range s.Phases {
		o -= d
	}
	return o
}
