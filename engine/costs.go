package engine

import (
	"math/rand/v2"
	"sync"

	"github.com/rlxdev/rlx/core/env"
)

// stepCosts caches measureEnvStepUS per environment: a restart of the
// explorer should not pay for the measurement again.
var stepCosts sync.Map

// measureEnvStepUS times 2000 steps of environment id on the host
// (env.HostStepTime: episodes that end are reset outside the timing) and
// returns the mean step in microseconds, at least 0.01: what a
// classic-control step costs, for which no paper gives a figure. An id
// env.HostStepTime rejects costs 1 µs.
func measureEnvStepUS(id string) float64 {
	if v, ok := stepCosts.Load(id); ok {
		return v.(float64)
	}
	d, err := env.HostStepTime(id, 2000, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		return 1
	}
	us := max(d.Seconds()*1e6, 0.01)
	stepCosts.Store(id, us)
	return us
}
