package replay

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/sumtree"
)

// MaxBatch is the largest batch Sample draws in one call.
const MaxBatch = 1 << 24

// ErrEmpty is returned by Sample when the buffer holds no transition that
// can be sampled.
var ErrEmpty = errors.New("replay: nothing to sample: the buffer holds no transition yet")

// Batch is a sample of transitions, struct of arrays: row k of Obs is
// Obs[k*ObsDim:(k+1)*ObsDim]. A Batch is reused across Sample calls, which
// grow its slices only when a larger batch is asked for.
type Batch struct {
	Idx        []int     // the slots sampled
	Obs        []float32 // n x ObsDim
	Actions    []float32 // n x ActDim
	Rewards    []float32
	NextObs    []float32 // n x ObsDim
	Terminated []bool
	Truncated  []bool
	// Weights are the importance-sampling weights
	// w_i = (N * Pr(i))^-beta / max_j (N * Pr(j))^-beta, the maximum taken
	// over every stored transition, not just this batch.
	Weights    []float32
	Priorities []float64 // the priorities of the sampled transitions when sampled

	// SampledAt is the number of priority-update batches the buffer had
	// applied when this batch was sampled. Staleness, set by Update, is how
	// many more it had applied when this batch's own update arrived: 0 in
	// the strict sample-train-update loop, up to D-1 with D batches sampled
	// ahead (000 §V-A).
	SampledAt uint64
	Staleness int
	// Skipped is how many of this batch's priority updates Update dropped
	// because their slot had been rewritten since sampling.
	Skipped int

	gen []uint32 // the generation of each sampled slot
	// from is the buffer Sample drew the rows from: the slots in Idx and
	// the generations in gen index its storage and no other buffer's.
	from *Buffer
	// view marks a batch made by View. It shares another batch's rows but
	// not its bookkeeping, so Update refuses it, and Sample must give it
	// rows of its own rather than write into the memory it shares.
	view bool
	// lent is the pre-sampler whose Next handed this batch out and has not
	// had it back through Update.
	lent *PreSampler
	// The tree total and the smallest stored priority raised to alpha when
	// the batch was sampled, for the banked buffer's weight correction.
	total, pminLeaf float64
	u               []float64 // the prefix-sum targets
	raw             []float64 // scratch for Update
	leaf            []float64
	idx             []int
}

// Len returns the number of transitions in the batch.
func (b *Batch) Len() int { return len(b.Idx) }

// View makes dst a view of rows [lo, hi) of b: its slices share b's memory,
// each row as wide as in b. It is for reading, as data-parallel learners
// read their share of a batch; priority updates go through the whole batch,
// which alone carries the bookkeeping Update needs: Update returns an error
// for a view. Sampling into dst later gives it memory of its own, leaving
// b's rows alone. It panics if the rows are out of range.
func (b *Batch) View(dst *Batch, lo, hi int) {
	n := len(b.Idx)
	if lo < 0 || hi < lo || hi > n {
		panic(fmt.Sprintf("replay: Batch.View rows [%d, %d) out of range [0, %d)", lo, hi, n))
	}
	od, ad := 0, 0
	if n > 0 {
		od, ad = len(b.Obs)/n, len(b.Actions)/n
	}
	dst.Idx = b.Idx[lo:hi]
	dst.Obs = b.Obs[lo*od : hi*od]
	dst.Actions = b.Actions[lo*ad : hi*ad]
	dst.Rewards = b.Rewards[lo:hi]
	dst.NextObs = b.NextObs[lo*od : hi*od]
	dst.Terminated = b.Terminated[lo:hi]
	dst.Truncated = b.Truncated[lo:hi]
	dst.Weights = b.Weights[lo:hi]
	dst.Priorities = nil
	if b.Priorities != nil {
		dst.Priorities = b.Priorities[lo:hi]
	}
	// A view carries no sampling record of its own: whatever dst held
	// before must not let Update take it for a sampled batch.
	dst.view, dst.gen, dst.from = true, nil, nil
}

// resize makes every slice hold n rows, reusing capacity, except the
// memory a view shares with the batch it views.
func (b *Batch) resize(n, obsDim, actDim int) {
	if b.view {
		// Growing in place would write the new rows over the viewed
		// batch's, which its owner is still reading.
		b.Idx, b.Obs, b.Actions, b.Rewards, b.NextObs = nil, nil, nil, nil, nil
		b.Terminated, b.Truncated, b.Weights, b.Priorities = nil, nil, nil, nil
		b.view = false
	}
	b.Idx = grow(b.Idx, n)
	b.Obs = grow(b.Obs, n*obsDim)
	b.Actions = grow(b.Actions, n*actDim)
	b.Rewards = grow(b.Rewards, n)
	b.NextObs = grow(b.NextObs, n*obsDim)
	b.Terminated = grow(b.Terminated, n)
	b.Truncated = grow(b.Truncated, n)
	b.Weights = grow(b.Weights, n)
	b.Priorities = grow(b.Priorities, n)
	b.gen = grow(b.gen, n)
	b.u = grow(b.u, n)
	b.Staleness, b.Skipped = 0, 0
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Sample draws n transitions into dst, transition i with probability
// Pr(i) = p_i^alpha / sum_k p_k^alpha (000 §II-A3, 002 §IV-A2), using rng for
// the prefix-sum targets, and fills their importance weights for the current
// beta. Transitions being written are never drawn (their priority is 0).
//
// It returns ErrEmpty, leaving dst empty, if the buffer holds nothing to
// sample, and an error if n is outside [1, MaxBatch] or dst or rng is nil. Once dst has held a batch
// of n, Sample does not allocate. Concurrent samplers share the tree lock.
func (b *Buffer) Sample(dst *Batch, n int, rng *rand.Rand) error {
	switch {
	case n < 1 || n > MaxBatch:
		return fmt.Errorf("replay: batch size %d is out of range: it must be 1..%d", n, MaxBatch)
	case dst == nil || rng == nil:
		return errors.New("replay: Sample needs a destination batch and a random source")
	}
	dst.resize(n, b.cfg.ObsDim, b.cfg.ActDim)
	dst.SampledAt = b.updates.Load()
	dst.from = b

	b.rlock()
	total := b.tree.Total()
	if total == 0 {
		b.runlock()
		dst.resize(0, b.cfg.ObsDim, b.cfg.ActDim) // no stale rows to update
		return ErrEmpty
	}
	pmin := b.ext.minimum()
	dst.total, dst.pminLeaf = total, b.leafValue(pmin)
	if b.cfg.Stratified {
		seg := total / float64(n)
		for k := range dst.u {
			dst.u[k] = (float64(k) + rng.Float64()) * seg
		}
	} else {
		for k := range dst.u {
			dst.u[k] = rng.Float64() * total
		}
	}
	b.tree.FindBatch(dst.u, dst.Idx)
	b.gather(dst)
	b.runlock()

	b.weights(dst, pmin)
	return nil
}

// gather copies the sampled slots into dst. The caller holds the tree lock,
// so no writer can be changing them.
func (b *Buffer) gather(dst *Batch) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	for k, s := range dst.Idx {
		copy(dst.Obs[k*od:(k+1)*od], b.obs[s*od:(s+1)*od])
		copy(dst.Actions[k*ad:(k+1)*ad], b.act[s*ad:(s+1)*ad])
		copy(dst.NextObs[k*od:(k+1)*od], b.next[s*od:(s+1)*od])
		dst.Rewards[k] = b.rew[s]
		dst.Terminated[k] = b.term[s]
		dst.Truncated[k] = b.trunc[s]
		dst.Priorities[k] = b.prio[s]
		dst.gen[k] = b.gen[s]
	}
}

// weights fills dst.Weights. With Pr(i) = p_i^a / S, the weight
//
//	(N Pr(i))^-b / max_j (N Pr(j))^-b = (p_min / p_i)^(a b)
//
// needs neither N nor S: the maximum weight belongs to the smallest priority
// stored, which the buffer tracks exactly.
func (b *Buffer) weights(dst *Batch, pmin float64) {
	e := b.cfg.Alpha * b.Beta()
	for k, p := range dst.Priorities {
		switch {
		case e == 0:
			dst.Weights[k] = 1
		case e == 1:
			dst.Weights[k] = float32(pmin / p)
		default:
			dst.Weights[k] = float32(power(pmin/p, e))
		}
	}
}

// ReadTree calls f with the buffer's sum tree (leaves p_i^alpha) under the
// tree lock shared with samplers, so that f sees a consistent tree: for
// views such as the explorer's sum-tree pane. f must only read the tree
// (Total, Level, Trace, Find, Get, ...) and must not keep it; updates wait
// while f runs.
func (b *Buffer) ReadTree(f func(t *sumtree.Tree)) {
	b.rlock()
	defer b.runlock()
	f(b.tree)
}

// Trace returns the prefix-sum walk that sampling takes for a uniform draw
// u01 in [0, 1): the walk of sumtree.Tree.Trace for the target u01 * Total.
func (b *Buffer) Trace(u01 float64) sumtree.Path {
	var p sumtree.Path
	b.ReadTree(func(t *sumtree.Tree) { p = t.Trace(u01 * t.Total()) })
	return p
}
