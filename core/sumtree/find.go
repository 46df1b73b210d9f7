package sumtree

import (
	"fmt"
	"math"
)

// Find returns the prefix-sum index of u: the unique leaf i with
// S(i) <= u < S(i+1), where S(i) is the sum of the priorities of the leaves
// before i (see the package documentation). Leaves with priority 0 are never
// returned. A u below 0 maps to the first leaf with a positive priority, a u
// at or above Total() to the last one. Find returns -1 when Total() is 0 or
// u is NaN.
func (t *Tree) Find(u float64) int {
	u, ok := t.start(u)
	if !ok {
		return -1
	}
	j := 0
	for d := 0; d < len(t.levels)-1; d++ {
		c, next, _ := t.descend(d, j, u)
		j = j*t.fanout + c
		u = next
	}
	return j
}

// FindBatch sets out[k] = Find(u[k]) for every k. It advances a chunk of
// queries one tree level at a time, so that the memory accesses of different
// queries overlap, and on CPUs with AVX2 searches each group of siblings
// with vector compares. It panics if out is shorter than u. It does not
// allocate.
func (t *Tree) FindBatch(u []float64, out []int) {
	if len(out) < len(u) {
		panic(fmt.Sprintf("sumtree: FindBatch needs len(out) >= len(u), have %d < %d", len(out), len(u)))
	}
	var rest [findChunk]float64
	for lo := 0; lo < len(u); lo += findChunk {
		us := u[lo:min(lo+findChunk, len(u))]
		js := out[lo : lo+len(us)]
		for k, x := range us {
			r, ok := t.start(x)
			rest[k] = r
			js[k] = 0
			if !ok {
				js[k] = -1
			}
		}
		for d := 0; d < len(t.levels)-1; d++ {
			t.searchLevel(d, js, rest[:len(js)])
		}
	}
}

// findChunk is the number of queries FindBatch advances together, level by
// level: enough independent searches in flight to hide the memory latency,
// few enough for their state to live on the stack (measured: 128 beats 32
// and 64 by 5-10% at capacity 2^20 and 2^24; 256 gains nothing).
const findChunk = 128

// start maps a query to the value the walk starts from, and reports false
// when there is no leaf to find. A u at or above the total becomes +Inf,
// which makes every level fall to its last positive child; a u at or below 0
// (including -0) becomes +0, which selects the first positive child.
func (t *Tree) start(u float64) (float64, bool) {
	total := t.slots[0]
	switch {
	case total == 0 || math.IsNaN(u):
		return 0, false
	case u >= total:
		return math.Inf(1), true
	case u <= 0:
		return 0, true
	}
	return u, true
}

// descend searches the children of node j of level d for the child whose
// range holds u: the first c with v[0] + ... + v[c] > u, the sum taken left
// to right over the children's values v. It returns c, the query for the
// next level (u less the sum of the children before c) and that sum.
//
// The child picked always has a positive value: the running sum only grows
// past u on a positive child. If rounding leaves u at or above the sum of all
// children (or u is +Inf), descend returns the last positive child and a
// next query of +Inf, so the walk continues to the last positive leaf of that
// subtree. The caller guarantees that node j is positive, so such a child
// exists.
func (t *Tree) descend(d, j int, u float64) (c int, next, partial float64) {
	g := t.groupPos(d, j)
	if d == len(t.levels)-2 {
		return t.descendLeaves(g, u)
	}
	return t.descendGroup(g, u)
}

// descendGroup is descend for the group of internal nodes at slot g: it
// counts the group's running sums that are <= u.
func (t *Tree) descendGroup(g int, u float64) (c int, next, partial float64) {
	prefix := t.bits[g+t.stride : g+t.stride+t.fanout : g+t.stride+t.fanout]
	c = countAtMost(prefix, int64(math.Float64bits(u)))
	if c == t.fanout {
		return t.edge(g)
	}
	// The running sum before child c, or 0 when c is the first child,
	// selected without a branch.
	partial = math.Float64frombits(prefix[max(c-1, 0)] & uint64(-int64(c)>>63))
	return c, u - partial, partial
}

// descendLeaves is descend for the group of leaves at slot g, which keeps no
// running sums: it adds the leaves up as it counts.
func (t *Tree) descendLeaves(g int, u float64) (c int, next, partial float64) {
	leaves := t.slots[g : g+t.fanout : g+t.fanout]
	c = countLeavesAtMost(leaves, int64(math.Float64bits(u)))
	if c == t.fanout {
		return t.edge(g)
	}
	partial = sumLeft(leaves[:c])
	return c, u - partial, partial
}

// countLeavesAtMost returns the number of running sums of leaves, added left
// to right exactly as recompute adds them, that are <= the value whose bits
// are ub: the same count countAtMost makes over stored running sums, with
// the same branch-free comparison.
func countLeavesAtMost(leaves []float64, ub int64) int {
	c := 0
	sum := 0.0
	for _, x := range leaves {
		sum += x
		c += atMost(ub, int64(math.Float64bits(sum)))
	}
	return c
}

// sumLeft adds v left to right, the order of recompute.
func sumLeft(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// atMostMask compares two non-negative doubles by their bit patterns, ub
// and xb, without a branch: it is all ones when x <= u and 0 otherwise. The
// searches compare this way because the outcome of every comparison is a
// coin flip the branch predictor would lose. Sums and queries are
// non-negative doubles (a query is never -0 or NaN here), whose bit patterns
// order like the numbers, so ub - xb cannot overflow and its sign tells
// which is larger.
func atMostMask(ub, xb int64) int64 { return ^((ub - xb) >> 63) }

// atMost is atMostMask as 1 or 0, for counting.
func atMost(ub, xb int64) int { return int(atMostMask(ub, xb) & 1) }

// countAtMost returns the number of running sums in prefix that are <= the
// value whose bits are ub: the first c with prefix[c] > u, or len(prefix).
// It bisects with atMostMask instead of branches.
func countAtMost(prefix []uint64, ub int64) int {
	base, n := 0, len(prefix)
	for n > 1 {
		half := n >> 1
		base += half & int(atMostMask(ub, int64(prefix[base+half])))
		n -= half
	}
	return base + atMost(ub, int64(prefix[base]))
}

// edge handles a query that ran past the last child of the group at slot g:
// it returns the last positive child, +Inf as the next query and the sum of
// the children before that child.
func (t *Tree) edge(g int) (c int, next, partial float64) {
	v := t.slots[g : g+t.fanout : g+t.fanout]
	for c = len(v) - 1; c > 0 && v[c] == 0; c-- {
	}
	return c, math.Inf(1), sumLeft(v[:c])
}

// Path is the walk of one prefix-sum search from the root to a leaf, as
// Trace records it for the explorer's sum-tree view.
type Path struct {
	U     float64 // the query as given
	Total float64 // the root value when the walk was made
	Leaf  int     // the leaf found, equal to Find(U); -1 if none
	Steps []Step  // one per internal level, root first
}

// Step is the visit of one internal node during a prefix-sum search.
type Step struct {
	Level    int       // level of the node, 0 for the root
	Node     int       // index of the node within its level
	Target   float64   // the query on arrival, relative to the node's subtree
	Children []float64 // the values of the node's children, as read
	Partial  float64   // the running sum of the children left of the one taken
	Child    int       // the child taken, 0..Fanout()-1
	Edge     bool      // the query reached the end of the children (rounding, or u >= Total)
}

// Trace returns the walk Find(u) makes, level by level: the node visited,
// the sibling values read, the running partial sum and the child taken.
// Trace(u).Leaf == Find(u) always. Trace allocates the Path it returns.
func (t *Tree) Trace(u float64) Path {
	p := Path{U: u, Total: t.Total(), Leaf: -1}
	rest, ok := t.start(u)
	if !ok {
		return p
	}
	p.Steps = make([]Step, 0, len(t.levels)-1)
	j := 0
	for d := 0; d < len(t.levels)-1; d++ {
		g := t.groupPos(d, j)
		c, next, partial := t.descend(d, j, rest)
		p.Steps = append(p.Steps, Step{
			Level:    d,
			Node:     j,
			Target:   rest,
			Children: append([]float64(nil), t.slots[g:g+t.fanout]...),
			Partial:  partial,
			Child:    c,
			Edge:     math.IsInf(next, 1),
		})
		j = j*t.fanout + c
		rest = next
	}
	p.Leaf = j
	return p
}
