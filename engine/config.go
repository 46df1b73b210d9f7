package engine

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/rlxdev/rlx/core/ppo"
)

// Config describes one run: the workload, the algorithm, its sizes and the
// device mapping. The zero value of a field means its default (Defaults).
// Configs are loaded from YAML (ParseConfig), set from flags, or edited in
// the explorer; Validate checks them.
type Config struct {
	Name string `yaml:"name,omitempty" json:"name,omitempty"` // preset name, for display

	Env  string    `yaml:"env" json:"env"` // an environment id of core/env, e.g. "CartPole-v1"
	Algo Algorithm `yaml:"algo" json:"algo"`
	Seed uint64    `yaml:"seed" json:"seed"`

	// Off-policy learners: the learner's batch, the replay buffer's capacity
	// and fanout, the actors, the learners (SPO, 001 ch. 5) and the number
	// of batches sampled ahead of the learner, D (000 §V-A).
	Batch    int `yaml:"batch,omitempty" json:"batch,omitempty"`
	Capacity int `yaml:"capacity,omitempty" json:"capacity,omitempty"`
	Fanout   int `yaml:"fanout,omitempty" json:"fanout,omitempty"`
	Actors   int `yaml:"actors,omitempty" json:"actors,omitempty"`
	Learners int `yaml:"learners,omitempty" json:"learners,omitempty"`
	Depth    int `yaml:"depth,omitempty" json:"depth,omitempty"`

	// PPO: N environments, T steps each per iteration, K epochs of M
	// minibatches (003 §2.1).
	Envs        int `yaml:"envs,omitempty" json:"envs,omitempty"`
	Horizon     int `yaml:"horizon,omitempty" json:"horizon,omitempty"`
	Epochs      int `yaml:"epochs,omitempty" json:"epochs,omitempty"`
	Minibatches int `yaml:"minibatches,omitempty" json:"minibatches,omitempty"`
	// GAE selects the numerics of PPO's advantage estimation, experiment
	// 1..5 of 004 §V-C (core/gae Experiment; 0 means 1, float32), with 8-bit
	// quantization where the experiment quantizes.
	GAE int `yaml:"gae,omitempty" json:"gae,omitempty"`

	// Mapping is auto (ask the design-space exploration) or a mapping
	// set by hand, "G-F-G" (C = CPU, G = GPU, F = FPGA). Devices names a
	// device-spec YAML file, an embedded one or one of the user's
	// (UserDevicesDir, e.g. "host" from rlx calibrate); empty means the embedded
	// platform of 000 Table IV.
	Mapping Mapping `yaml:"mapping,omitempty" json:"mapping"`
	Devices string  `yaml:"devices,omitempty" json:"devices,omitempty"`

	// Budget: the run finishes after Steps environment steps or Duration of
	// host time, whichever comes first; zero means no limit.
	Steps    int64         `yaml:"steps,omitempty" json:"steps,omitempty"`
	Duration time.Duration `yaml:"duration,omitempty" json:"duration,omitempty"`
}

// FieldError reports a field whose value is not accepted.
type FieldError struct {
	Field  string // YAML name
	Value  string
	Reason string // what is accepted
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("%s %s is not allowed: %s", e.Field, e.Value, e.Reason)
}

// Defaults returns c with every zero field set to its default. Off-policy
// defaults follow CleanRL's dqn.py (batch 128, buffer 10000) with one actor
// and D = 1; PPO defaults follow CleanRL's ppo.py for discrete actions (4
// environments, 128 steps, 4 epochs of 4 minibatches) and
// ppo_continuous_action.py for continuous ones (1 x 2048, 10 epochs of 32).
func (c Config) Defaults() Config {
	set := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.Env == "" {
		c.Env = "CartPole-v1"
	}
	if c.Algo == "" {
		c.Algo = DQN
	}
	if c.Mapping == (Mapping{}) {
		c.Mapping = AutoMapping
	}
	// The default platform by its name: configurations that run the same
	// compare equal however the platform was given (the explorer's header
	// and previews), and run.json says which platform ran.
	if c.Devices == "" {
		c.Devices = DefaultDevices
	}
	c.Algo = Algorithm(strings.ToLower(string(c.Algo)))
	if c.Algo.OnPolicy() {
		// CleanRL's ppo.py or ppo_continuous_action.py, by action space.
		if pc, err := ppo.Defaults(c.Env); err == nil {
			set(&c.Envs, pc.NumEnvs)
			set(&c.Horizon, pc.NumSteps)
			set(&c.Epochs, pc.Epochs)
			set(&c.Minibatches, pc.Minibatches)
		}
	}
	set(&c.Batch, 128)
	set(&c.Capacity, 10_000)
	set(&c.Fanout, 16)
	set(&c.Actors, 1)
	set(&c.Learners, 1)
	set(&c.Depth, 1)
	set(&c.Envs, 4)
	set(&c.Horizon, 128)
	set(&c.Epochs, 4)
	set(&c.Minibatches, 4)
	set(&c.GAE, 1)
	return c
}

// With returns c with every non-zero field of patch in place of its own:
// how a walkthrough step changes the configuration of the step before.
// (A field cannot be changed back to zero this way; zero is its default.)
func (c Config) With(patch Config) Config {
	dst := reflect.ValueOf(&c).Elem()
	src := reflect.ValueOf(patch)
	for i := range src.NumField() {
		if f := src.Field(i); !f.IsZero() {
			dst.Field(i).Set(f)
		}
	}
	return c
}

// Validate checks c (after Defaults) and returns the first problem as a
// *FieldError naming the field, its value and what is accepted.
func (c Config) Validate() error {
	c = c.Defaults()
	spec, err := envSpec(c.Env)
	if err != nil {
		return err
	}
	if _, err := ParseAlgorithm(string(c.Algo)); err != nil {
		return err
	}
	if err := algorithmFits(c.Algo, c.Env, spec.Act.Discrete()); err != nil {
		return err
	}
	if err := c.validateRanges(); err != nil {
		return err
	}
	if c.Algo.OnPolicy() {
		// Each of N and T is in range, but their product sizes the rollout
		// core/ppo keeps: say so in the user's terms, at the field that
		// makes it too large.
		if n := c.Envs * c.Horizon; n > ppo.MaxBatch {
			return &FieldError{"horizon", fmt.Sprint(c.Horizon),
				fmt.Sprintf("envs x horizon = %d x %d = %d samples per iteration, more than the %d a PPO iteration holds: lower envs or horizon",
					c.Envs, c.Horizon, n, ppo.MaxBatch)}
		}
		if n := c.Envs * c.Horizon; n%c.Minibatches != 0 || c.Minibatches > n {
			return &FieldError{"minibatches", fmt.Sprint(c.Minibatches),
				fmt.Sprintf("must divide the %d samples of an iteration (envs x horizon)", n)}
		}
	} else {
		if c.Batch > c.Capacity {
			return &FieldError{"batch", fmt.Sprint(c.Batch), fmt.Sprintf("must be at most the capacity, %d", c.Capacity)}
		}
		// SPO gives each learner a bank of the buffer (001 ch. 5), and a
		// bank holds at least one transition.
		if c.Learners > c.Capacity {
			return &FieldError{"learners", fmt.Sprint(c.Learners),
				fmt.Sprintf("must be at most the capacity, %d: each learner samples its own bank of the replay buffer", c.Capacity)}
		}
	}
	if c.Duration < 0 {
		return &FieldError{"duration", c.Duration.String(), "must be >= 0 (0 for no limit)"}
	}
	return nil
}
