package engine

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/rlxdev/rlx/hw"
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

// ppoAccel runs PPOAccel's design-space exploration (003 §4, Eq. 9) for
// the trainer's networks on the platform's FPGA.
func ppoAccel(p *hw.Platform, tr *ppo.Trainer, n, t, mb int) (dse.PPOResult, error) {
	pc := tr.Config()
	var layers []hw.Layer
	for _, net := range []hw.Net{
		hwNet(pass{"actor", tr.Actor().Shape(), 1, 1, 1}),
		hwNet(pass{"critic", tr.Critic().Shape(), 1, 1, 1}),
	} {
		layers = append(layers, net.Layers...)
	}
	spec := tr.Spec()
	return dse.ExplorePPOAccel(p.FPGA, p.Link, dse.PPOConfig{
		Layers: layers, N: n, T: t, M: mb, K: pc.Epochs, CUs: 1,
		ObsWords: spec.Obs.Dim(), ActWords: spec.Act.Dim(),
	})
}

// sizeHEPPO sizes HEPPO's GAE pipeline (004 §IV) for T x N on the FPGA,
// with float32 values.
func sizeHEPPO(f *hw.FPGASpec, t, n int) (dse.HEPPOResult, error) {
	return dse.SizeHEPPO(f, t, n, 32)
}
