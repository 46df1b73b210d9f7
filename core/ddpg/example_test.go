package ddpg_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/ddpg"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/runtime"
)

// Train TD3 with prioritized replay on Pendulum-v1 with CleanRL's
// hyperparameters, on a very short schedule, on the actor-learner runtime.
func Example() {
	cfg, rc := ddpg.CleanRL(ddpg.TD3, "Pendulum-v1", 500, 400) // 500 steps, learning_starts 400
	rc.Seed = 1

	e, _ := env.Make(rc.Env, rand.New(rand.NewPCG(1, 0)))
	agent, err := ddpg.New(e.Spec(), cfg, rc.Seed)
	if err != nil {
		panic(err)
	}
	run, err := runtime.New(rc, agent)
	if err != nil {
		panic(err)
	}
	if err := run.Run(context.Background()); err != nil {
		panic(err)
	}
	s := run.Snapshot()
	fmt.Println("environment steps:", s.EnvSteps)
	fmt.Println("gradient steps:", s.GradSteps) // one per step after learning starts
	fmt.Println("episodes:", s.Episodes)        // Pendulum truncates at 200 steps
	// Output:
	// environment steps: 500
	// gradient steps: 100
	// episodes: 2
}
