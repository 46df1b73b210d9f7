package sumtree

import (
	"fmt"
	"math"
)

// MaxPriority is the largest priority a leaf may hold. The bound keeps the
// total of a full tree (MaxCapacity leaves) finite with a wide margin, so
// that Total and every internal node are always finite numbers.
const MaxPriority = 1e270

// IndexError reports a leaf index outside [0, Cap()).
type IndexError struct {
	Index int // the offending index
	Cap   int // the tree's capacity
	Pos   int // its position in a batch, or -1 for a single update
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("sumtree: %sindex %d is out of range: indices must be 0..%d", batchPos(e.Pos), e.Index, e.Cap-1)
}

// PriorityError reports a priority that is NaN, negative or above
// MaxPriority.
type PriorityError struct {
	Index int     // the leaf the priority was meant for
	Value float64 // the offending priority
	Pos   int     // its position in a batch, or -1 for a single update
}

func (e *PriorityError) Error() string {
	return fmt.Sprintf("sumtree: %spriority %v for index %d is not allowed: priorities must be 0..%g", batchPos(e.Pos), e.Value, e.Index, MaxPriority)
}

func batchPos(pos int) string {
	if pos < 0 {
		return ""
	}
	return fmt.Sprintf("batch element %d: ", pos)
}

// validPriority reports whether p is in [0, MaxPriority]. NaN fails both
// comparisons.
func validPriority(p float64) bool { return p >= 0 && p <= MaxPriority }

// Set sets the priority of leaf i to p and recomputes its ancestors. It
// returns an error, and leaves the tree unchanged, if i is outside [0, Cap())
// or p is NaN, negative or above MaxPriority.
func (t *Tree) Set(i int, p float64) error {
	if uint(i) >= uint(t.capacity) {
		return &IndexError{Index: i, Cap: t.capacity, Pos: -1}
	}
	if !validPriority(p) {
		return &PriorityError{Index: i, Value: p, Pos: -1}
	}
	t.slots[t.leafPos(i)] = p
	t.propagateOne(i)
	return nil
}

// SetBatch sets the priority of leaf idx[k] to p[k] for every k, then
// recomputes the ancestors. Validation is all-or-nothing: if any index or
// priority is invalid, or the lengths differ, it returns an error naming the
// first offender and changes nothing. When an index repeats, the last write
// wins. SetBatch does not allocate.
func (t *Tree) SetBatch(idx []int, p []float64) error {
	if err := t.validate(idx, p); err != nil {
		return err
	}
	t.update(idx, p)
	return nil
}

// WriteLeaves is the first half of SetBatch: it validates idx and p as
// SetBatch does and writes the leaves, but leaves their ancestors stale until
// Propagate(idx) is called. Between the two calls only Get is meaningful.
//
// The split lets a concurrent owner guard the last level and the upper levels
// with different locks, as the replay buffer of 002 §IV-D (Algorithm 3) does.
func (t *Tree) WriteLeaves(idx []int, p []float64) error {
	if err := t.validate(idx, p); err != nil {
		return err
	}
	t.writeLeaves(idx, p)
	return nil
}

// validate checks a batch of updates, naming the first offender.
func (t *Tree) validate(idx []int, p []float64) error {
	if len(idx) != len(p) {
		return fmt.Errorf("sumtree: %d indices but %d priorities: the lengths must match", len(idx), len(p))
	}
	for k, i := range idx {
		if uint(i) >= uint(t.capacity) {
			return &IndexError{Index: i, Cap: t.capacity, Pos: k}
		}
		if !validPriority(p[k]) {
			return &PriorityError{Index: i, Value: p[k], Pos: k}
		}
	}
	return nil
}

// writeLeaves writes validated priorities, in order, so the last write to a
// repeated index wins.
func (t *Tree) writeLeaves(idx []int, p []float64) {
	p = p[:len(idx)]
	if t.packed {
		leaves := t.slots[t.levels[len(t.levels)-1].start:]
		for k, i := range idx {
			leaves[i] = p[k]
		}
		return
	}
	for k, i := range idx {
		t.slots[t.leafPos(i)] = p[k]
	}
}

// Propagate recomputes every ancestor of the leaves idx from its children. It
// panics if an index is out of range; WriteLeaves has validated them.
func (t *Tree) Propagate(idx []int) {
	for _, i := range idx {
		if uint(i) >= uint(t.capacity) {
			panic(fmt.Sprintf("sumtree: Propagate index %d out of range [0, %d)", i, t.capacity))
		}
	}
	t.update(idx, nil)
}

// update writes p[k] to leaf idx[k], unless p is nil, and recomputes the
// ancestors of the leaves idx. The batch is valid.
//
// Levels holding more nodes than there are updates are sparse: update
// recomputes the nodes on the updated paths only, writing each chunk of
// leaves just before it climbs their paths, while their lines are still in
// the cache. Above the sparse levels a batch touches most nodes anyway, so
// those dense levels are recomputed whole, once each, instead of once per
// path (the root alone would otherwise be summed len(idx) times).
func (t *Tree) update(idx []int, p []float64) {
	if len(idx) == 1 {
		if p != nil {
			t.slots[t.leafPos(idx[0])] = p[0]
		}
		t.propagateOne(idx[0])
		return
	}
	lowest := len(t.levels) - 2 // the parents of the leaves
	dense := lowest
	for dense >= 0 && t.levels[dense].count > len(idx) {
		dense--
	}
	switch {
	case dense < lowest:
		t.updatePaths(idx, p, dense+1)
	case p != nil:
		t.writeLeaves(idx, p)
	}
	for d := dense; d >= 0; d-- {
		t.recomputeLevel(d)
	}
}

// pathChunk is the number of update paths advanced together, level by
// level: enough independent memory accesses in flight to cover the latency,
// few enough for the state to live on the stack.
const pathChunk = 64

// maxPrefetchLines is the widest group of leaves, in cache lines, whose lines
// updatePaths prefetches whatever the size of the tree. A chunk of wider
// groups asks for more lines than the CPU can have in flight; where the
// leaves mostly sit in L3 the prefetches then hold up the updates about as
// much as they help, and by how much depends on where the linker happens to
// place the loops (K = 32 at capacity 2^20 measured 34 ns per index with the
// prefetch in one build and 47 in another, against 37-38 without). Measured
// at 2^20, B = 2048, with and without: K = 8 20.6 against 21.5, K = 16 20.4
// against 22.8; K = 128 103 against 91, K = 256 195 against 155. Where the
// leaves are minWidePrefetchBytes or more, see below.
const maxPrefetchLines = 2

// minWidePrefetchBytes is the size of the level of leaves from which
// updatePaths prefetches groups of any width: beyond the 8-16 MB of L3 a
// core gets here (BenchmarkLatency: 45 ns a line in 8 MB, 186 in 64 MB) the
// leaves' misses go to memory, and overlapping them pays for any number of
// prefetches. Measured with and without at capacity 2^24 (128 MB of
// leaves), B = 2048, A B B A twice: K = 32 121 against 136 ns per index,
// K = 64 164 against 204, K = 128 221 against 300, K = 256 328 against 404.
const minWidePrefetchBytes = 32 << 20

// minParentPrefetchBytes is the size of the level of the leaves' parents
// from which updatePaths prefetches their groups too, before summing the
// leaves into them. A smaller level mostly stays in the cache, and the
// prefetches only cost instructions. Measured with and without, B = 2048:
// at capacity 2^24 (levels of 16-64 MB) K = 8 69 against 87 ns per index,
// K = 16 68 against 79, K = 4 79 against 84; at 2^20 (1-4 MB) K = 16 22.2
// against 19.8, K = 4 and 8 even.
const minParentPrefetchBytes = 8 << 20

// updatePaths writes the leaves idx (unless p is nil) and recomputes their
// ancestors on the internal levels from the parents of the leaves up to
// level stop >= 1, a chunk of paths at a time: the chunk's leaves, then the
// sums of their groups, then each level above.
//
// Processing one chunk through all its levels before the next chunk is
// correct even when paths of different chunks share a node: each chunk
// recomputes a shared node after the child on its own path, so the last
// recomputation of every node follows the last recomputation of each of its
// children, and the last write to a leaf is the one its ancestors see.
//
// Prefetching the next chunk, software pipelining and other schedules were
// measured against this one and lost; docs/sumtree.md lists them with their
// figures.
func (t *Tree) updatePaths(idx []int, p []float64, stop int) {
	var node [pathChunk]int
	lowest := len(t.levels) - 2
	for lo := 0; lo < len(idx); lo += pathChunk {
		part := idx[lo:min(lo+pathChunk, len(idx))]
		nodes := node[:len(part)]
		t.byFanout.divAll(nodes, part)
		if t.prefetchLeaves {
			// The leaves' lines are about to be written and then read
			// back by sumLeaves. Requested all at once, their misses
			// overlap; left to the stores, which leave the store buffer
			// one by one, they overlap far less.
			prefetchGroups(t.slots[t.levels[len(t.levels)-1].start:], t.stride, t.fanout, nodes)
		}
		if p != nil {
			t.writeLeaves(part, p[lo:lo+len(part)])
		}
		if t.prefetchParents {
			t.prefetchParentGroups(nodes)
		}
		t.sumLeaves(nodes)
		for d := lowest - 1; d >= stop; d-- {
			t.byFanout.divAll(nodes, nodes)
			t.recomputeNodes(d, nodes)
		}
	}
}

// prefetchParentGroups prefetches the groups, values and running sums, that
// hold the nodes of the leaves' parents' level listed in nodes.
func (t *Tree) prefetchParentGroups(nodes []int) {
	var group [pathChunk]int
	t.byFanout.divAll(group[:len(nodes)], nodes)
	prefetchGroups(t.slots[t.levels[len(t.levels)-2].start:], t.span, t.span, group[:len(nodes)])
}

// propagateOne recomputes the ancestors of leaf i.
func (t *Tree) propagateOne(i int) {
	for d := len(t.levels) - 2; d >= 0; d-- {
		i = t.byFanout.div(i)
		t.recompute(d, i)
	}
}

// Rebuild recomputes every internal node from the leaves. Because updates
// recompute rather than accumulate, a Rebuild never changes a tree that only
// Set and SetBatch have modified; tests use it as the reference.
func (t *Tree) Rebuild() {
	for d := len(t.levels) - 2; d >= 0; d-- {
		t.recomputeLevel(d)
	}
}

// recomputeLevel recomputes every node of internal level d.
func (t *Tree) recomputeLevel(d int) {
	if d == 0 {
		t.recompute(0, 0)
		return
	}
	var node [pathChunk]int
	n := t.levels[d].count
	for lo := 0; lo < n; lo += pathChunk {
		nodes := node[:min(pathChunk, n-lo)]
		for k := range nodes {
			nodes[k] = lo + k
		}
		if d == len(t.levels)-2 {
			t.sumLeaves(nodes)
		} else {
			t.recomputeNodes(d, nodes)
		}
	}
}

// recompute sets node j of internal level d to the sum of its children,
// added left to right, writing the running sums of the children on the way
// unless they are leaves. The order of the additions is part of the tree's
// contract: every node is this function of its children, so no sequence of
// updates can make a node drift from what a rebuild would give, and the
// search of a group of leaves, which adds them up as it goes, finds the same
// running sums.
func (t *Tree) recompute(d, j int) {
	g := t.groupPos(d, j)
	values := t.slots[g : g+t.fanout : g+t.fanout]
	sum := 0.0
	if d == len(t.levels)-2 {
		for _, x := range values {
			sum += x
		}
	} else {
		prefix := t.bits[g+t.stride : g+t.stride+t.fanout : g+t.stride+t.fanout]
		for c, x := range values {
			sum += x
			prefix[c] = math.Float64bits(sum)
		}
	}
	t.slots[t.nodePos(d, j)] = sum
}

// recomputePair is recompute for two nodes of an internal level d whose
// children are not leaves. The running sum of a group is a chain of
// dependent additions; interleaving two groups gives the CPU two independent
// chains to overlap, which it does not find on its own across calls
// (measured: about twice the throughput). a and b may be equal: both then
// compute the same values.
func (t *Tree) recomputePair(d, a, b int) {
	k := t.fanout
	ga, gb := t.levels[d+1].start+a*t.span, t.levels[d+1].start+b*t.span
	va, vb := t.slots[ga:ga+k:ga+k], t.slots[gb:gb+k:gb+k]
	pa := t.bits[ga+t.stride : ga+t.stride+k : ga+t.stride+k]
	pb := t.bits[gb+t.stride : gb+t.stride+k : gb+t.stride+k]
	sa, sb := 0.0, 0.0
	for c := range k {
		sa += va[c]
		sb += vb[c]
		pa[c] = math.Float64bits(sa)
		pb[c] = math.Float64bits(sb)
	}
	t.slots[t.nodePos(d, a)] = sa
	t.slots[t.nodePos(d, b)] = sb
}
