package env

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// MaxTimedSteps is the most steps HostStepTime takes: ten million steps
// of the dearest workload environment last about a minute.
const MaxTimedSteps = 10_000_000

// HostStepTime returns the mean host time of one Step of environment id,
// built by Make with rng, over steps steps: what a classic-control step
// costs on this machine, for which no paper gives a figure. The action is
// always 0 (the zero vector for a continuous space, inside every box rlx
// registers); an episode that ends is reset and the next one begins.
//
// Only the steps are timed: the clock runs from a Reset to the end of its
// episode (or the last step) and stops around Make and every Reset. One
// clock read per episode rather than per step, because a read costs about
// as much as a CartPole step (some 40 ns each) and would double the figure.
// A workload environment's figure is its host work alone: without BusyWait
// it does not spend its simulated StepCost.
//
// It returns Make's error for an unknown id, an error naming the range for
// steps outside 1..MaxTimedSteps, and any error of Step (which action 0
// never causes). It allocates the environment and one observation; the
// result is rounded to the nanosecond.
func HostStepTime(id string, steps int, rng *rand.Rand) (time.Duration, error) {
	if steps < 1 || steps > MaxTimedSteps {
		return 0, fmt.Errorf("env: %d timed steps is out of range: steps must be 1..%d", steps, MaxTimedSteps)
	}
	e, err := Make(id, rng)
	if err != nil {
		return 0, err
	}
	spec := e.Spec()
	obs := make([]float32, spec.Obs.Dim())
	a := Discrete(0)
	if !spec.Act.Discrete() {
		a = Continuous(make([]float32, spec.Act.Dim()))
	}
	e.Reset(obs)
	var spent time.Duration
	start := time.Now()
	for k := range steps {
		_, term, trunc, err := e.Step(obs, a)
		if err != nil {
			return 0, fmt.Errorf("env: %s: timed step %d: %w", id, k, err)
		}
		if (term || trunc) && k < steps-1 {
			spent += time.Since(start)
			e.Reset(obs)
			start = time.Now()
		}
	}
	spent += time.Since(start)
	return (spent + time.Duration(steps/2)) / time.Duration(steps), nil
}
