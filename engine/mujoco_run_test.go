//go:build mujoco

package engine

import (
	"testing"

	"github.com/rlxdev/rlx/core/ppo"
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
			t.Errorf("%s: a step measures %.2f µs, want the physics' time (> 5 µs)", cfg.Env, us)
		}
	}
	// What the clock is told an actor step costs is that measurement.
	cfg := Config{Env: "Hopper-v4", Algo: "td3", Steps: 600, Batch: 32, Capacity: 1000, Seed: 1}.Defaults()
	su, err := newOffPolicySetup(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := su.workload(cfg).EnvStepUS, measureEnvStepUS("Hopper-v4"); got != want {
		t.Errorf("off-policy Hopper-v4: the clock charges %.2f µs an actor step, the physics measures %.2f", got, want)
	}
	pc := Config{Env: "Humanoid-v4", Algo: "ppo", Seed: 1}.Defaults()
	pcfg, err := ppoConfig(pc)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ppo.New(pcfg)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ppoIteration(pc, tr).EnvStepUS, measureEnvStepUS("Humanoid-v4"); got != want {
		t.Errorf("PPO Humanoid-v4: the clock charges %.2f µs an actor step, the physics measures %.2f", got, want)
	}
}
