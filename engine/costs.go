package engine

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rlxdev/rlx/core/env"
)

// stepCosts caches measureEnvStepUS per environment: a restart of the
// explorer should not pay for the measurement again.
var stepCosts sync.Map

// measureEnvStepUS times steps of environment id on the host, in
// microseconds: what a classic-control step costs, for which no paper
// gives a figure. Episodes that end are reset, outside the timing.
func measureEnvStepUS(id string) float64 {
	if v, ok := stepCosts.Load(id); ok {
		return v.(float64)
	}
	e, err := env.Make(id, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return 1
	}
	spec := e.Spec()
	obs := make([]float32, spec.Obs.Dim())
	var a env.Action
	if spec.Act.Discrete() {
		a = env.Discrete(0)
	} else {
		a = env.Continuous(make([]float32, spec.Act.Dim()))
	}
	e.Reset(obs)
	const steps = 2000
	var spent time.Duration
	for range steps {
		start := time.Now()
		_, term, trunc, err := e.Step(obs, a)
		spent += time.Since(start)
		if err != nil || term || trunc {
			e.Reset(obs)
		}
	}
	us := max(spent.Seconds()*1e6/steps, 0.01)
	stepCosts.Store(id, us)
	return us
}
