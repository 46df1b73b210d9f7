package dqn_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/dqn"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/runtime"
)

// Train DQN with prioritized replay on CartPole-v1 with CleanRL dqn.py's
// hyperparameters, on a short schedule, on the actor-learner runtime.
func Example() {
	cfg, rc := dqn.CleanRL(3000) // dqn.py's defaults, 3000 environment steps
	rc.LearningStarts = 1000     // instead of 10000, to train in this short run
	rc.Seed = 1

	e, _ := env.Make(rc.Env, rand.New(rand.NewPCG(1, 0)))
	agent, err := dqn.New(e.Spec(), cfg, rc.Seed)
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
	fmt.Println("gradient steps:", s.GradSteps) // (3000 - 1000) / train_frequency 10
	fmt.Println("stored:", s.Buffer[0].Len)
	fmt.Println("max staleness:", s.MaxStaleness) // D = 1: the strict loop
	// Output:
	// environment steps: 3000
	// gradient steps: 200
	// stored: 3000
	// max staleness: 0
}
