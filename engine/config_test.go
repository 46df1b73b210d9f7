package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		cfg   Config
		field string // "" for valid
		want  string
	}{
		{Config{}, "", ""},
		{Config{Env: "Pendulum-v1", Algo: "td3"}, "", ""},
		{Config{Env: "Hopper-workload", Algo: "DDPG", Batch: 16384, Capacity: 1 << 20, Mapping: MustMapping("auto")}, "", ""},
		{Config{Env: "CartPole-v1", Algo: "ppo", Envs: 8, Horizon: 64, Minibatches: 8}, "", ""},
		{Config{Env: "Walker"}, "env", `env "Walker" is not allowed: use one of`},
		{Config{Algo: "sac"}, "algo", `algo "sac" is not allowed: use one of dqn, ddpg, td3, ppo`},
		{Config{Env: "Pendulum-v1", Algo: "dqn"}, "algo", "Pendulum-v1 has continuous actions"},
		{Config{Env: "CartPole-v1", Algo: "td3"}, "algo", "CartPole-v1 has discrete actions"},
		{Config{Fanout: 1}, "fanout", "fanout 1 is not allowed: sum-tree fanout K must be 2..1024"},
		{Config{Batch: -4}, "batch", "batch -4 is not allowed"},
		{Config{Batch: 512, Capacity: 100}, "batch", "batch 512 is not allowed: must be at most the capacity, 100"},
		{Config{Depth: 5000}, "depth", "depth 5000"},
		{Config{Algo: "ppo", Envs: 4, Horizon: 10, Minibatches: 3}, "minibatches", "must divide the 40 samples"},
		{Config{Algo: "ppo", Envs: 1024, Horizon: 65536}, "horizon", "envs x horizon = 1024 x 65536 = 67108864 samples per iteration, more than the 16777216"},
		{Config{Algo: "ppo", Envs: 1024, Horizon: 16384, Minibatches: 1}, "", ""},
		{Config{Learners: 16, Capacity: 8, Batch: 4}, "learners", "learners 16 is not allowed: must be at most the capacity, 8"},
		{Config{Steps: -1}, "steps", "steps -1"},
		{Config{Duration: -1}, "duration", "duration -1ns"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if tt.field == "" {
			if err != nil {
				t.Errorf("Validate(%+v) = %v, want nil", tt.cfg, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want a %s error containing %q", tt.cfg, err, tt.field, tt.want)
		}
	}
}

func TestDefaults(t *testing.T) {
	c := Config{Algo: "PPO", Batch: 64}.Defaults()
	if !c.Algo.OnPolicy() || c.Batch != 64 || c.Env != "CartPole-v1" || !c.Mapping.Auto() || c.Envs != 4 || c.Fanout != 16 {
		t.Errorf("Defaults = %+v", c)
	}
}
