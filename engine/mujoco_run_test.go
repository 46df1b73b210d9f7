//go:build mujoco

package engine

import (
	"testing"
)

// TestMuJoCoRunsCharged: a short PPO run on Hopper-v4 and a TD3 run on
// Humanoid-v4 finish with meaningful returns, and their actors are
// charged the physics' measured host time (a MuJoCo step costs tens of
// microseconds here: far more than a classic-control step's 0.05-0.5).
func TestMuJoCoRunsCharged(t *testing.T) {
	for _, cfg := range []Config{
		{Env: "Hopper-v4", Algo: "ppo", Steps: 4096, Seed: 1},
		{Env: "Humanoid-v4", Algo: "td3", Steps: 600, Batch: 32, Capacity: 1000, Seed: 1},
	} {
		end := runToEnd(t, cfg)
		if end.State != Finished || end.Counters.EnvSteps < cfg.Steps || end.Counters.Episodes == 0 || !end.Learning.Meaningful {
			t.Errorf("%s %s: state %v, counters %+v, learning %+v", cfg.Env, cfg.Algo, end.State, end.Counters, end.Learning)
		}
		if us := measureEnvStepUS(cfg.Env); !(us > 5) {
			t.Errorf("%s: an actor step is charged %.2f µs, want the physics' measured time (> 5 µs)", cfg.Env, us)
		}
	}
}
