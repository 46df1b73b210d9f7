package replay

import (
	"errors"
	"fmt"
	"math"

	"github.com/rlxdev/rlx/core/sumtree"
)

// Update sets the priorities of the transitions in batch, sampled by Sample,
// to |td[k]| + eps: the priority update that follows a learner's step (000
// §II-A2, 002 Algorithm 1). A transition whose slot was rewritten since it
// was sampled, or is being written now, keeps its new priority: its update is
// dropped and counted in batch.Skipped. Update records batch.Staleness.
//
// It returns an error, changing nothing, if the batch was not sampled from
// this buffer as it stands (a view made by Batch.View, a batch put together
// by hand, one sampled from another buffer, or one whose Idx was changed
// since), if len(td) differs from the batch, or if a TD error is NaN or
// infinite. Update does not allocate once the batch has been updated at its
// size.
func (b *Buffer) Update(batch *Batch, td []float32) error {
	// Everything the locked section indexes is checked here, before the
	// lock: a panic while holding it would leave every later Sample, Stats
	// and Update of the buffer blocked for good.
	if err := b.checkBatch(batch); err != nil {
		return err
	}
	n := batch.Len()
	if len(td) != n {
		return fmt.Errorf("replay: %d TD errors for a batch of %d: the lengths must match", len(td), n)
	}
	batch.raw = grow(batch.raw, n)
	batch.leaf = grow(batch.leaf, n)
	batch.idx = grow(batch.idx, n)
	for k, x := range td {
		p := math.Abs(float64(x)) + b.cfg.Eps
		if !finite32(x) || p > sumtree.MaxPriority {
			return fmt.Errorf("replay: TD error %v at batch element %d is not allowed: TD errors must be finite", x, k)
		}
		batch.raw[k] = p
		batch.leaf[k] = b.leafValue(p)
	}

	b.treeMu.Lock()
	batch.Staleness = int(b.updates.Load() - batch.SampledAt)
	// Keep the updates whose slot still holds the transition sampled.
	m := 0
	for k, s := range batch.Idx {
		if b.gen[s] != batch.gen[k] || b.gen[s] == 0 || b.busy[s].Load() {
			continue
		}
		batch.idx[m], batch.raw[m], batch.leaf[m] = s, batch.raw[k], batch.leaf[k]
		m++
	}
	b.writePriorities(batch.idx[:m], batch.raw[:m], batch.leaf[:m])
	b.updates.Add(1)
	b.treeMu.Unlock()

	batch.Skipped = n - m
	b.skipped.Add(uint64(n - m))
	return nil
}

// checkBatch reports why batch cannot be the subject of an update of b, or
// nil if it can: it was filled by b.Sample and its indices and generation
// tags still pair up. A batch that passes indexes b's slots and its own tags
// only within range.
func (b *Buffer) checkBatch(batch *Batch) error {
	switch {
	case batch == nil:
		return errors.New("replay: Update needs a batch")
	case batch.view:
		return errors.New("replay: the batch is a view made by Batch.View, which carries no sampling record: update with the whole batch it views")
	case batch.from == nil:
		return errors.New("replay: the batch was not filled by Sample: it has no generation tags to tell whether its slots were rewritten; update a batch sampled from this buffer")
	case batch.from != b:
		return fmt.Errorf("replay: the batch was sampled from another buffer (capacity %d, this one %d): update the buffer it was sampled from",
			batch.from.cfg.Capacity, b.cfg.Capacity)
	case len(batch.gen) != len(batch.Idx):
		return fmt.Errorf("replay: the batch has %d indices but %d generation tags: its Idx was changed after Sample", len(batch.Idx), len(batch.gen))
	}
	for k, s := range batch.Idx {
		if s < 0 || s >= b.cfg.Capacity {
			return fmt.Errorf("replay: batch element %d: index %d is out of range for capacity %d: indices must be 0..%d (was Idx changed after Sample?)",
				k, s, b.cfg.Capacity, b.cfg.Capacity-1)
		}
	}
	return nil
}

// UpdatePriorities sets the priority of slot idx[k] to p[k], for callers that
// track slots themselves; learners normally call Update with the sampled
// batch. Slots being written are skipped (they receive the maximum priority
// when their write completes). Validation is all-or-nothing: an index
// outside [0, Cap()), a slot that has never held a transition, a priority
// that is not in (0, sumtree.MaxPriority], or lengths that differ return an
// error and change nothing.
//
// The leaf values p^alpha are computed under the tree lock in a scratch
// array the buffer owns; Update computes them before taking the lock.
func (b *Buffer) UpdatePriorities(idx []int, p []float64) error {
	if len(idx) != len(p) {
		return fmt.Errorf("replay: %d indices but %d priorities: the lengths must match", len(idx), len(p))
	}
	for k, s := range idx {
		if s < 0 || s >= b.cfg.Capacity {
			return fmt.Errorf("replay: batch element %d: index %d is out of range: indices must be 0..%d", k, s, b.cfg.Capacity-1)
		}
		if !(p[k] > 0 && p[k] <= sumtree.MaxPriority) {
			return fmt.Errorf("replay: batch element %d: priority %v for index %d is not allowed: priorities must be > 0 and <= %g", k, p[k], s, sumtree.MaxPriority)
		}
	}
	b.treeMu.Lock()
	defer b.treeMu.Unlock()
	for k, s := range idx {
		if b.gen[s] == 0 {
			return fmt.Errorf("replay: batch element %d: slot %d holds no transition yet: only stored transitions have priorities", k, s)
		}
	}
	n := len(idx)
	b.tmpIdx, b.tmpRaw, b.tmpLeaf = grow(b.tmpIdx, n), grow(b.tmpRaw, n), grow(b.tmpLeaf, n)
	slots, raw, leaf := b.tmpIdx, b.tmpRaw, b.tmpLeaf
	m := 0
	for k, s := range idx {
		if b.busy[s].Load() {
			continue
		}
		slots[m], raw[m], leaf[m] = s, p[k], b.leafValue(p[k])
		m++
	}
	b.writePriorities(slots[:m], raw[:m], leaf[:m])
	b.updates.Add(1)
	b.skipped.Add(uint64(n - m))
	return nil
}

// Priorities sets dst[k] to the priority of slot idx[k], 0 for a slot that
// holds no transition, under the last-level lock only (002 Algorithm 3,
// PRIORITYRETRIEVAL): it does not wait for the upper levels of an update. It
// returns an error if an index is out of range or dst is shorter than idx.
func (b *Buffer) Priorities(dst []float64, idx []int) error {
	if len(dst) < len(idx) {
		return fmt.Errorf("replay: %d destinations for %d indices: dst must be at least as long", len(dst), len(idx))
	}
	for k, s := range idx {
		if s < 0 || s >= b.cfg.Capacity {
			return fmt.Errorf("replay: element %d: index %d is out of range: indices must be 0..%d", k, s, b.cfg.Capacity-1)
		}
	}
	if b.cfg.Locking == GlobalLock {
		b.treeMu.Lock()
		defer b.treeMu.Unlock()
	} else {
		b.leafMu.Lock()
		defer b.leafMu.Unlock()
	}
	for k, s := range idx {
		dst[k] = b.prio[s]
	}
	return nil
}
