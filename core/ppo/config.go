package ppo

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/nn"
)

// Config is one PPO run: the environment, the rollout shape, the update
// schedule, the loss coefficients, the networks and the GAE numerics. The
// field names follow the arguments of CleanRL's ppo.py and
// ppo_continuous_action.py; Defaults returns their default values. Every
// field is explicit: a zero Config is not valid (Validate says why).
type Config struct {
	// Env is the environment id (env.IDs()).
	Env string
	// EnvOptions are passed to env.MakeVec: env.MaxEpisodeSteps,
	// env.StepCost, env.BusyWait.
	EnvOptions []env.Option
	// Seed seeds everything: environment copy i draws from PCG(Seed, i),
	// the network initialization, the action sampling and the minibatch
	// shuffling from their own PCG streams of Seed.
	Seed uint64

	// NumEnvs is N, the environments stepped in lock step (num_envs).
	NumEnvs int
	// NumSteps is T, the steps per environment and rollout (num_steps).
	NumSteps int
	// TotalSteps is the environment steps of the whole run
	// (total_timesteps); the run has TotalSteps / (N*T) iterations.
	TotalSteps int
	// Minibatches splits the N*T samples of an iteration into minibatches
	// of N*T/Minibatches (num_minibatches); it must divide N*T.
	Minibatches int
	// Epochs is K, the passes over the rollout per iteration
	// (update_epochs).
	Epochs int

	// LR is Adam's learning rate (learning_rate).
	LR float64
	// AnnealLR decays the learning rate linearly from LR at the first
	// iteration to LR/iterations at the last (anneal_lr).
	AnnealLR bool
	// AdamEps is Adam's epsilon; CleanRL uses 1e-5.
	AdamEps float64
	// Gamma is the discount and Lambda the GAE parameter (gae_lambda).
	Gamma, Lambda float64
	// NormAdv standardizes the advantages of each minibatch (norm_adv).
	NormAdv bool
	// ClipCoef is epsilon of the clipped surrogate objective (clip_coef),
	// also the value clipping range when ClipVLoss is set.
	ClipCoef float64
	// ClipVLoss clips the value loss around the rollout's values
	// (clip_vloss).
	ClipVLoss bool
	// EntCoef weighs the entropy bonus (ent_coef), VFCoef the value loss
	// (vf_coef).
	EntCoef, VFCoef float64
	// MaxGradNorm clips the global gradient norm of all networks
	// (max_grad_norm); 0 disables clipping.
	MaxGradNorm float64
	// TargetKL stops an iteration's epochs early when the approximate KL
	// divergence of the epoch's last minibatch exceeds it (target_kl);
	// 0 disables the check.
	TargetKL float64
	// BootstrapTruncated bootstraps the value of an episode cut by the
	// time limit from V(final observation), as the GAE of core/gae allows.
	// CleanRL treats truncation as termination (false).
	BootstrapTruncated bool

	// Hidden are the hidden layer widths of the actor and of the critic
	// (separate networks, as in CleanRL); Activation their activation.
	Hidden     []int
	Activation nn.Activation

	// NormObs standardizes observations with a running mean and variance
	// per environment copy and clips them to ±ObsClip (Gymnasium's
	// NormalizeObservation and CleanRL's TransformObservation clip).
	NormObs bool
	ObsClip float64
	// NormReward divides rewards by the running standard deviation of a
	// discounted return per copy and clips them to ±RewardClip
	// (Gymnasium's NormalizeReward with Gamma, then the clip).
	NormReward bool
	RewardClip float64

	// GAE selects the numerics of 004 §II (the zero value is float32 GAE,
	// experiment 1); see Experiment.
	GAE gae.Options
}

// Defaults returns CleanRL's default hyperparameters for envID: those of
// ppo.py for a discrete action space (4 envs, 128 steps, 4 minibatches, 4
// epochs, LR 2.5e-4, 500k steps, entropy 0.01) and those of
// ppo_continuous_action.py for a continuous one (1 env, 2048 steps, 32
// minibatches, 10 epochs, LR 3e-4, 1M steps, no entropy bonus, observation
// and reward normalization). Both: gamma 0.99, lambda 0.95, clip 0.2,
// clipped value loss, value coefficient 0.5, gradient norm 0.5, Adam eps
// 1e-5, LR annealing, advantage normalization, no target KL, 64-64 tanh
// networks, and no truncation bootstrapping (CleanRL treats a time limit as
// a termination; set BootstrapTruncated for tasks that only end by time,
// such as Pendulum-v1). It returns an error for an unknown environment.
func Defaults(envID string) (Config, error) {
	spec, err := specOf(envID)
	if err != nil {
		return Config{}, err
	}
	c := Config{
		Env:         envID,
		Seed:        1,
		AnnealLR:    true,
		AdamEps:     1e-5,
		Gamma:       0.99,
		Lambda:      0.95,
		NormAdv:     true,
		ClipCoef:    0.2,
		ClipVLoss:   true,
		VFCoef:      0.5,
		MaxGradNorm: 0.5,
		Hidden:      []int{64, 64},
		Activation:  nn.Tanh,
		ObsClip:     10,
		RewardClip:  10,
	}
	if spec.Act.Discrete() {
		c.NumEnvs, c.NumSteps, c.TotalSteps = 4, 128, 500_000
		c.Minibatches, c.Epochs = 4, 4
		c.LR, c.EntCoef = 2.5e-4, 0.01
	} else {
		c.NumEnvs, c.NumSteps, c.TotalSteps = 1, 2048, 1_000_000
		c.Minibatches, c.Epochs = 32, 10
		c.LR, c.EntCoef = 3e-4, 0
		c.NormObs, c.NormReward = true, true
	}
	return c, nil
}

// specOf returns id's spec (env.SpecOf: built once per id).
func specOf(id string) (*env.Spec, error) {
	s, err := env.SpecOf(id)
	if err != nil {
		return nil, fmt.Errorf("ppo: %w", err)
	}
	return s, nil
}

// BatchSize is N*T, the samples of one iteration.
func (c *Config) BatchSize() int { return c.NumEnvs * c.NumSteps }

// MinibatchSize is N*T/Minibatches.
func (c *Config) MinibatchSize() int { return c.BatchSize() / c.Minibatches }

// Iterations is TotalSteps/(N*T), rounded down as CleanRL does.
func (c *Config) Iterations() int { return c.TotalSteps / c.BatchSize() }

// Limits on sizes, so that a typo cannot ask for terabytes.
const (
	MaxEnvs       = 1 << 16
	MaxSteps      = 1 << 20
	MaxBatch      = 1 << 24
	MaxHidden     = 1 << 14
	MaxTotalSteps = 1 << 40
)

// Validate returns an error naming the first field out of range and the
// accepted range. It does not build the environment (New does).
func (c *Config) Validate() error {
	switch {
	case c.NumEnvs < 1 || c.NumEnvs > MaxEnvs:
		return rangeErr("NumEnvs", float64(c.NumEnvs), fmt.Sprintf("1..%d", MaxEnvs))
	case c.NumSteps < 1 || c.NumSteps > MaxSteps:
		return rangeErr("NumSteps", float64(c.NumSteps), fmt.Sprintf("1..%d", MaxSteps))
	case c.NumEnvs*c.NumSteps > MaxBatch:
		return fmt.Errorf("ppo: batch NumEnvs*NumSteps = %d*%d is too large: it must be at most %d", c.NumEnvs, c.NumSteps, MaxBatch)
	case c.Minibatches < 1 || c.Minibatches > c.BatchSize():
		return rangeErr("Minibatches", float64(c.Minibatches), fmt.Sprintf("1..%d (the batch N*T)", c.BatchSize()))
	case c.BatchSize()%c.Minibatches != 0:
		return fmt.Errorf("ppo: Minibatches = %d does not divide the batch N*T = %d: it must be a divisor of it", c.Minibatches, c.BatchSize())
	case c.Epochs < 1 || c.Epochs > 1000:
		return rangeErr("Epochs", float64(c.Epochs), "1..1000")
	case c.TotalSteps < c.BatchSize() || c.TotalSteps > MaxTotalSteps:
		return fmt.Errorf("ppo: TotalSteps = %d is out of range: it must be in [N*T, 2^40] = [%d, %d]", c.TotalSteps, c.BatchSize(), int64(MaxTotalSteps))
	case !finiteIn(c.LR, 0, 1):
		return rangeErr("LR", c.LR, "[0, 1]")
	case !finiteIn(c.AdamEps, 0, 1):
		return rangeErr("AdamEps", c.AdamEps, "[0, 1]")
	case !finiteIn(c.Gamma, 0, 1):
		return rangeErr("Gamma", c.Gamma, "[0, 1]")
	case !finiteIn(c.Lambda, 0, 1):
		return rangeErr("Lambda", c.Lambda, "[0, 1]")
	case !finiteIn(c.ClipCoef, 0, 10) || c.ClipCoef == 0:
		return rangeErr("ClipCoef", c.ClipCoef, "(0, 10]")
	case !finiteIn(c.EntCoef, 0, 100):
		return rangeErr("EntCoef", c.EntCoef, "[0, 100]")
	case !finiteIn(c.VFCoef, 0, 100):
		return rangeErr("VFCoef", c.VFCoef, "[0, 100]")
	case !finiteIn(c.MaxGradNorm, 0, math.MaxFloat32):
		return rangeErr("MaxGradNorm", c.MaxGradNorm, "[0, 3.4e38] (0 disables clipping)")
	case !finiteIn(c.TargetKL, 0, math.MaxFloat32):
		return rangeErr("TargetKL", c.TargetKL, "[0, 3.4e38] (0 disables the early stop)")
	case c.NormObs && (!finiteIn(c.ObsClip, 0, math.MaxFloat32) || c.ObsClip == 0):
		return rangeErr("ObsClip", c.ObsClip, "(0, 3.4e38]")
	case c.NormReward && (!finiteIn(c.RewardClip, 0, math.MaxFloat32) || c.RewardClip == 0):
		return rangeErr("RewardClip", c.RewardClip, "(0, 3.4e38]")
	case c.Activation != nn.Tanh && c.Activation != nn.ReLU:
		return fmt.Errorf("ppo: Activation = %v is not allowed: use nn.Tanh or nn.ReLU", c.Activation)
	}
	if len(c.Hidden) > 8 {
		return fmt.Errorf("ppo: %d hidden layers is too many: use 0..8", len(c.Hidden))
	}
	for i, h := range c.Hidden {
		if h < 1 || h > MaxHidden {
			return fmt.Errorf("ppo: Hidden[%d] = %d is out of range: widths must be 1..%d", i, h, MaxHidden)
		}
	}
	if err := c.GAE.Validate(); err != nil {
		return fmt.Errorf("ppo: GAE options: %w", err)
	}
	return nil
}

func finiteIn(x, lo, hi float64) bool { return x >= lo && x <= hi }

func rangeErr(name string, v float64, accepted string) error {
	return fmt.Errorf("ppo: %s = %v is out of range: it must be in %s", name, v, accepted)
}

// Experiment returns the GAE numerics of experiment n = 1..5 of 004 §V-C
// (Table III) with bits-bit codes where the experiment quantizes (004 uses
// 8; §V-B found 8 and above train as well as float32):
//
//	1  baseline: float32, no standardization
//	2  dynamic standardization of rewards (kept standardized)
//	3  rewards and values block-standardized, quantized, both restored
//	4  as 3, rewards kept standardized
//	5  dynamic rewards (kept standardized) and block values (restored),
//	   both quantized: HEPPO
//
// It returns an error for n outside 1..5 or bits outside 1..16.
func Experiment(n, bits int) (gae.Options, error) {
	o, err := gae.Experiment(n)
	if err != nil {
		return gae.Options{}, fmt.Errorf("ppo: %w", err)
	}
	if bits < 1 || bits > gae.MaxBits {
		return gae.Options{}, fmt.Errorf("ppo: %d bits is out of range: quantized experiments take 1..%d bits", bits, gae.MaxBits)
	}
	if o.Rewards.Bits > 0 {
		o.Rewards.Bits = bits
	}
	if o.Values.Bits > 0 {
		o.Values.Bits = bits
	}
	return o, nil
}
