package ppo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rlxdev/rlx/core/nn"
)

// update runs the K epochs of minibatch updates (004 Algorithm 1 lines 7
// and 8; 003 §2.1: N*T/M rounds per epoch), as CleanRL does: a new random
// permutation of the batch per epoch, the loss
//
//	pg_loss - EntCoef*entropy + VFCoef*v_loss
//
// on each minibatch, one backward pass, global-norm clipping and an Adam
// step; with TargetKL, the epochs stop after one whose last minibatch's
// approximate KL exceeds it.
func (tr *Trainer) update(ctx context.Context, st *IterStats, now time.Time) error {
	done := ctx.Done()
	var kl float64
	for epoch := 0; epoch < tr.cfg.Epochs; epoch++ {
		tr.ev.Epoch = epoch
		st.Epochs++
		shuffle(tr.perm, tr.shuffleRng)
		for b := 0; b < tr.cfg.Minibatches; b++ {
			if done != nil {
				select {
				case <-done:
					tr.finishStats(st)
					return ctx.Err()
				default:
				}
			}
			tr.ev.Minibatch = b
			var err error
			now, kl, err = tr.minibatch(st, tr.perm[b*tr.mb:(b+1)*tr.mb], now)
			if err != nil {
				tr.finishStats(st)
				return err
			}
		}
		if tr.cfg.TargetKL > 0 && kl > tr.cfg.TargetKL {
			st.EarlyStopped = true
			break
		}
	}
	tr.finishStats(st)
	return nil
}

// finishStats turns the sums over minibatches into means.
func (tr *Trainer) finishStats(st *IterStats) {
	if st.Updates == 0 {
		return
	}
	inv := 1 / float64(st.Updates)
	st.PolicyLoss *= inv
	st.ValueLoss *= inv
	st.Entropy *= inv
	st.ApproxKL *= inv
	st.OldApproxKL *= inv
	st.ClipFrac *= inv
	st.GradNorm *= inv
}

// shuffle permutes p uniformly (Fisher-Yates), as np.random.shuffle.
func shuffle(p []int, rng *rand.Rand) {
	for i := len(p) - 1; i > 0; i-- {
		j := rng.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
}

// minibatch makes one gradient step on the samples idx and returns the
// start of the next primitive and the minibatch's approximate KL.
func (tr *Trainer) minibatch(st *IterStats, idx []int, now time.Time) (time.Time, float64, error) {
	m := len(idx)
	tr.gather(idx)

	// Loss: forward both networks, the losses and their gradients with
	// respect to the network outputs.
	tr.actor.ZeroGrad()
	tr.critic.ZeroGrad()
	tr.actor.Forward(tr.mbOut, tr.mbObs)
	if tr.discrete {
		nn.CategoricalLogProb(tr.mbLogp, tr.mbEnt, tr.mbOut, tr.actDim, tr.mbActIdx)
	} else {
		tr.head.ZeroGrad()
		tr.head.LogProb(tr.mbLogp, tr.mbEnt, tr.mbOut, tr.mbActVec)
	}
	tr.critic.Forward(tr.mbV, tr.mbObs)
	if tr.cfg.NormAdv {
		NormalizeAdvantages(tr.mbAdv, tr.mbAdv)
	}
	s := ClippedSurrogate(tr.mbDLogp, tr.mbLogp, tr.mbOL, tr.mbAdv, tr.cfg.ClipCoef)
	vclip := 0.0
	if tr.cfg.ClipVLoss {
		vclip = tr.cfg.ClipCoef
	}
	vl := ValueLoss(tr.mbDV, tr.mbV, tr.mbOldV, tr.mbRet, vclip, tr.cfg.VFCoef)
	var ent float64
	for _, h := range tr.mbEnt {
		ent += float64(h)
	}
	ent /= float64(m)
	if tr.discrete {
		nn.CategoricalBackward(tr.mbDOut, tr.mbOut, tr.actDim, tr.mbActIdx, tr.mbDLogp, tr.mbDEnt)
	} else {
		tr.head.Backward(tr.mbDOut, tr.mbOut, tr.mbActVec, tr.mbDLogp, tr.mbDEnt)
	}
	now = tr.emit(st, PhaseLoss, m, now)

	// Backward through both networks.
	tr.actor.Backward(nil, tr.mbDOut)
	tr.critic.Backward(nil, tr.mbDV)
	now = tr.emit(st, PhaseBackward, m, now)

	// Optimizer: joint clipping, as clip_grad_norm_(agent.parameters()),
	// then Adam. A non-finite norm would poison every parameter: refuse.
	norm := nn.ClipGradNorm(tr.gradClip, tr.modules...)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return now, s.ApproxKL, fmt.Errorf("ppo: iteration %d, epoch %d, minibatch %d: gradient norm is %v: the loss diverged (policy loss %v, value loss %v); no step taken",
			tr.iter, tr.ev.Epoch, tr.ev.Minibatch, norm, s.Loss, vl)
	}
	tr.opt.Step()
	now = tr.emit(st, PhaseOptimizer, tr.nParams, now)

	st.Updates++
	st.PolicyLoss += s.Loss
	st.ValueLoss += vl
	st.Entropy += ent
	st.ApproxKL += s.ApproxKL
	st.OldApproxKL += s.OldApproxKL
	st.ClipFrac += s.ClipFrac
	st.GradNorm += norm
	return now, s.ApproxKL, nil
}

// gather copies the samples idx of the rollout into the minibatch buffers.
func (tr *Trainer) gather(idx []int) {
	od, ad := tr.obsDim, tr.actDim
	for j, k := range idx {
		copy(tr.mbObs[j*od:(j+1)*od], tr.obs[k*od:(k+1)*od])
		tr.mbOL[j] = tr.logp[k]
		tr.mbAdv[j] = tr.adv[k]
		tr.mbRet[j] = tr.ret[k]
		tr.mbOldV[j] = tr.oldValues[k]
	}
	if tr.discrete {
		for j, k := range idx {
			tr.mbActIdx[j] = tr.actIdx[k]
		}
	} else {
		for j, k := range idx {
			copy(tr.mbActVec[j*ad:(j+1)*ad], tr.actVec[k*ad:(k+1)*ad])
		}
	}
}
