package ppo

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/nn"
)

// totalLoss evaluates the minibatch loss of PPO, L = L_clip - c_ent H +
// c_V L_V, at the current parameters, from the public pieces.
func totalLoss(tr *Trainer, idx []int) float64 {
	m := len(idx)
	tr.gather(idx)
	out, logp, ent, v := make([]float32, m*tr.actDim), make([]float32, m), make([]float32, m), make([]float32, m)
	tr.actor.Forward(out, tr.mbObs)
	if tr.discrete {
		nn.CategoricalLogProb(logp, ent, out, tr.actDim, tr.mbActIdx)
	} else {
		tr.head.LogProb(logp, ent, out, tr.mbActVec)
	}
	tr.critic.Forward(v, tr.mbObs)
	adv := append([]float32(nil), tr.mbAdv...)
	NormalizeAdvantages(adv, adv)
	pg := ClippedSurrogate(nil, logp, tr.mbOL, adv, tr.cfg.ClipCoef).Loss
	vl := ValueLoss(nil, v, tr.mbOldV, tr.mbRet, tr.cfg.ClipCoef, 1)
	var h float64
	for _, e := range ent {
		h += float64(e)
	}
	return pg - tr.cfg.EntCoef*h/float64(m) + tr.cfg.VFCoef*vl
}

// The gradient a minibatch step computes is the gradient of the whole PPO
// loss with respect to every parameter (actor, critic, log-std): checked
// by central differences on the parameters with the largest gradients.
// The networks are float32, hence the step and the 2% tolerance.
func TestMinibatchGradient(t *testing.T) {
	for _, id := range []string{"CartPole-v1", "Pendulum-v1"} {
		cfg := smallConfig(t, id)
		cfg.LR, cfg.MaxGradNorm = 0, 0 // the step changes nothing; gradients stay unclipped
		cfg.EntCoef = 0.05             // a visible entropy term, also for the Gaussian
		tr, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Iterate(context.Background()); err != nil {
			t.Fatal(err)
		}
		// A fresh rollout, then one minibatch step on it.
		var st IterStats
		now, err := tr.collect(context.Background(), &st, time.Now())
		if err == nil {
			_, err = tr.advantages(&st, now)
		}
		if err != nil {
			t.Fatal(err)
		}
		idx := tr.perm[:tr.mb]
		if _, _, err := tr.minibatch(&st, idx, time.Now()); err != nil {
			t.Fatal(err)
		}
		type param struct {
			p    []float32
			k    int
			grad float64
		}
		var ps []param
		for _, mod := range tr.modules {
			for k, g := range mod.Grads() {
				ps = append(ps, param{mod.Params(), k, float64(g)})
			}
		}
		slices.SortFunc(ps, func(a, b param) int { return -cmpAbs(a.grad, b.grad) })
		for _, p := range ps[:24] {
			save := p.p[p.k]
			h := float32(1e-3)
			p.p[p.k] = save + h
			lp := totalLoss(tr, idx)
			p.p[p.k] = save - h
			lm := totalLoss(tr, idx)
			p.p[p.k] = save
			fd := (lp - lm) / (float64(save+h) - float64(save-h))
			if math.Abs(fd-p.grad) > 0.02*math.Abs(p.grad)+1e-5 {
				t.Errorf("%s: parameter gradient %v, central difference %v", id, p.grad, fd)
			}
		}
	}
}

func cmpAbs(a, b float64) int {
	switch a, b := math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
