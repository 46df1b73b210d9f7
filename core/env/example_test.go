package env_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/env"
)

func ExampleMake() {
	e, err := env.Make("CartPole-v1", rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	s := e.Spec()
	fmt.Println(s.ID, "obs", s.Obs.Dim(), "actions", s.Act.N, "limit", s.MaxEpisodeSteps)
	obs := make([]float32, s.Obs.Dim())
	e.Reset(obs)
	var ret float64
	for {
		r, terminated, truncated, err := e.Step(obs, env.Discrete(1)) // always push right
		if err != nil {
			panic(err)
		}
		ret += r
		if terminated || truncated {
			fmt.Printf("terminated %v truncated %v after %g steps, pole at %.2f rad\n", terminated, truncated, ret, obs[2])
			break
		}
	}
	// Output:
	// CartPole-v1 obs 4 actions 2 limit 500
	// terminated true truncated false after 9 steps, pole at -0.22 rad
}

func ExampleMakeVec() {
	v, err := env.MakeVec("CartPole-v1", 4, 7)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	actions := make([]int, v.N())
	for range 1000 {
		for i := range actions {
			actions[i] = rng.IntN(2) // a random policy
		}
		if err := v.StepDiscrete(actions); err != nil {
			panic(err)
		}
		for i := range actions {
			if v.Truncated()[i] {
				// Bootstrap from v.FinalObs()[i*4 : (i+1)*4]; v.Obs() already
				// holds the next episode's first observation.
				_ = v.FinalObs()[i*4 : (i+1)*4]
			}
		}
	}
	fmt.Printf("%d episodes, mean return of the last %d: %.1f\n", v.Episodes(), v.Recent().Len(), v.Recent().Mean())
	// Output:
	// 166 episodes, mean return of the last 100: 26.0
}

func ExampleActionSpace_Check() {
	e, _ := env.Make("Pendulum-v1", rand.New(rand.NewPCG(1, 1)))
	fmt.Println(e.Spec().Act.Check(e.Spec().ID, env.Continuous([]float32{3})))
	// Output:
	// env: Pendulum-v1: action[0] = 3 out of range [-2, 2]
}
