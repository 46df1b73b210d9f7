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
	var kl float64
	for epoch := 0; epoch < tr.cfg.Epochs; epoch++ {
		tr.ev.Epoch = epoch
		st.Epochs++
		shuffle(tr.perm, tr.shuffleRng)
		for b := 0; b < tr.cfg.Minibatches; b++ {
			tr.ev.Minibatch = b
			var err error
			now, kl, err = tr.minibatch(ctx, st, tr.perm[b*tr.mb:(b+1)*tr.mb], now)
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

// The networks hold the activations of at most chunk samples of a
// minibatch at once, and the minibatch buffers a chunk's gathered copy: a
// larger minibatch is gathered and processed in chunks whose gradients
// add up (the losses are means over the whole minibatch), with the
// context checked between chunks. So a minibatch of millions of samples
// needs no more memory than a chunk, and stops within a chunk's work of a
// cancellation.
const (
	chunkFloats = 1 << 24 // activations and gradients of both networks: 64 MiB
	chunkFLOPs  = 1 << 30 // forward work of both networks, about 20 ms of a core
)

// chunkSize returns the chunk for minibatches of mb samples of networks
// holding floats values and doing flops of forward work per sample.
func chunkSize(mb, floats, flops int) int {
	return max(1, min(mb, chunkFloats/max(floats, 1), chunkFLOPs/max(flops, 1)))
}

// trainerNets describes the actor (layer widths sizes, the input first)
// and the critic (the same with one output) without building them: their
// parameters and the activation floats per sample they hold together,
// and the chunk of a minibatch of mb samples (chunkSize). New and Bytes
// both size by it.
func trainerNets(sizes []int, mb int) (params, floats, chunk int) {
	critic := append([]int(nil), sizes...)
	critic[len(critic)-1] = 1
	for _, net := range [][]int{sizes, critic} {
		for i := 1; i < len(net); i++ {
			params += net[i-1]*net[i] + net[i]
		}
		floats += nn.ActivationFloats(net[0], net[1:]...)
	}
	return params, floats, chunkSize(mb, floats, 2*params)
}

// minibatch makes one gradient step on the samples idx and returns the
// start of the next primitive and the minibatch's approximate KL. ctx is
// checked before each chunk: cancelled, it abandons the step with the
// networks untouched.
func (tr *Trainer) minibatch(ctx context.Context, st *IterStats, idx []int, now time.Time) (time.Time, float64, error) {
	m, ad := len(idx), tr.actDim
	// The advantages are normalized over the whole minibatch (CleanRL's
	// norm_adv): by its mean and deviation, taken through its indices
	// (advantageScale), a chunk at a time as each is gathered. For a
	// minibatch of one chunk this is NormalizeAdvantages on the gathered
	// copy, bit for bit: the same sums in the same order.
	var advMean, advInv float64
	if tr.cfg.NormAdv {
		advMean, advInv = advantageScale(tr.adv, idx)
	}
	vclip := 0.0
	if tr.cfg.ClipVLoss {
		vclip = tr.cfg.ClipCoef
	}
	tr.actor.ZeroGrad()
	tr.critic.ZeroGrad()
	if !tr.discrete {
		tr.head.ZeroGrad()
	}

	// Per chunk: forward both networks, the losses and their gradients
	// with respect to the network outputs, then backward through both.
	// The phases interleave when there are several chunks; each is
	// charged once, with its host time summed over the chunks.
	inv := 1 / float64(m)
	var (
		s        SurrogateStats
		vl, ent  float64
		backward time.Duration
		observed time.Duration // in ObserveChunk: no phase's
	)
	for lo := 0; lo < m; lo += tr.chunk {
		if lo > 0 && tr.chunks != nil {
			t := time.Now()
			tr.chunks.ObserveChunk(lo, m)
			observed += time.Since(t)
		}
		if err := ctx.Err(); err != nil {
			return now, s.ApproxKL, err
		}
		k := min(m, lo+tr.chunk) - lo
		adv := tr.mbAdv[:k]
		tr.gather(idx[lo : lo+k])
		if tr.cfg.NormAdv {
			for j, a := range adv {
				adv[j] = float32((float64(a) - advMean) * advInv)
			}
		}
		obs, out, dOut := tr.mbObs[:k*tr.obsDim], tr.mbOut[:k*ad], tr.mbDOut[:k*ad]
		logp, h, dLogp, dEnt := tr.mbLogp[:k], tr.mbEnt[:k], tr.mbDLogp[:k], part(tr.mbDEnt, k)
		tr.actor.Forward(out, obs)
		if tr.discrete {
			nn.CategoricalLogProb(logp, h, out, ad, tr.mbActIdx[:k])
		} else {
			tr.head.LogProb(logp, h, out, tr.mbActVec[:k*ad])
		}
		tr.critic.Forward(tr.mbV[:k], obs)
		s.add(clippedSurrogate(dLogp, logp, tr.mbOL[:k], adv, tr.cfg.ClipCoef, inv))
		vl += valueLoss(tr.mbDV[:k], tr.mbV[:k], tr.mbOldV[:k], tr.mbRet[:k], vclip, tr.cfg.VFCoef, inv)
		for _, e := range h {
			ent += float64(e)
		}
		if tr.discrete {
			nn.CategoricalBackward(dOut, out, ad, tr.mbActIdx[:k], dLogp, dEnt)
		} else {
			tr.head.Backward(dOut, out, tr.mbActVec[:k*ad], dLogp, dEnt)
		}
		t := time.Now()
		tr.actor.Backward(nil, dOut)
		tr.critic.Backward(nil, tr.mbDV[:k])
		backward += time.Since(t)
	}
	ent /= float64(m)
	end := time.Now()
	tr.emitSpan(st, PhaseLoss, m, now.Add(observed), end.Add(-backward))
	now = tr.emitSpan(st, PhaseBackward, m, end.Add(-backward), end)

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

// part returns x[:k], or nil for a nil x (an optional gradient).
func part(x []float32, k int) []float32 {
	if x == nil {
		return nil
	}
	return x[:k]
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
