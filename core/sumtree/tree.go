package sumtree

import (
	"fmt"
	"unsafe"
)

// Limits on the shape of a tree, as accepted by New.
const (
	MinCapacity = 1
	MaxCapacity = 1 << 30
	MinFanout   = 2
	MaxFanout   = 4096
)

// lineNodes is the number of float64 nodes in a 64-byte cache line.
const lineNodes = 64 / 8

// Tree is a K-ary sum tree over a fixed number of non-negative priorities.
// The zero value is not usable; create trees with New.
//
// Layout. The tree is one implicit array, level by level, root first. Below
// the root, the K children of a node form a group. A group of internal nodes
// occupies 2*stride slots: first the K child values, then, stride slots
// later, their running sums (prefix[c] = v[0] + ... + v[c], added left to
// right) stored as float64 bits. The running sums turn the search of a group
// into counting the sums <= u (a bisection, or a few vector compares)
// instead of adding the children up on every visit, and the last one is the
// parent's value. A group of leaves holds only its K values in stride slots:
// the leaves are most of the tree, and most of what an update touches, so
// leaving their running sums out halves the memory a batch of updates
// streams through; the search of the last level adds them as it goes.
type Tree struct {
	slots []float64 // the implicit array, cache-line aligned
	bits  []uint64  // the same memory, for the running sums

	levels []level // levels[0] is the root, levels[len-1] the leaves

	capacity int
	fanout   int
	stride   int  // distance from a group's values to its running sums, >= fanout; slots per group of leaves
	span     int  // slots per group of internal nodes: 2*stride
	packed   bool // stride == fanout: the leaves are contiguous
	byFanout divider

	// Which lines a batched update prefetches; see updatePaths.
	prefetchLeaves  bool // the groups of leaves it writes
	prefetchParents bool // the groups of their parents it writes next
}

// level describes one level of the tree inside Tree.slots.
type level struct {
	start int // slot of the level's first group (the root for level 0)
	count int // number of nodes in the level
}

// New returns a tree of capacity leaves, all 0, in which every internal node
// has fanout children. It returns an error if capacity is outside
// [MinCapacity, MaxCapacity] or fanout outside [MinFanout, MaxFanout].
func New(capacity, fanout int) (*Tree, error) {
	if capacity < MinCapacity || capacity > MaxCapacity {
		return nil, fmt.Errorf("sumtree: capacity %d is out of range: capacity must be %d..%d", capacity, MinCapacity, MaxCapacity)
	}
	if fanout < MinFanout || fanout > MaxFanout {
		return nil, fmt.Errorf("sumtree: fanout %d is not allowed: fanout must be %d..%d", fanout, MinFanout, MaxFanout)
	}
	t := &Tree{
		capacity: capacity,
		fanout:   fanout,
		stride:   groupStride(fanout),
		byFanout: newDivider(fanout),
	}
	t.span = 2 * t.stride
	t.packed = t.stride == fanout

	t.levels = levelsOf(capacity, fanout)
	pos := 0
	for d := range t.levels {
		count := t.levels[d].count
		t.levels[d].start = pos
		slots := lineNodes // the root sits alone on its line
		if d > 0 {
			groups := (count + fanout - 1) / fanout
			perGroup := t.span
			if d == len(t.levels)-1 {
				perGroup = t.stride // leaves keep no running sums
			}
			slots = roundUp(groups*perGroup, lineNodes)
		}
		pos += slots
	}
	t.slots = alignedFloat64s(pos)
	if n := len(t.levels); n >= 3 {
		leafBytes := 8 * (len(t.slots) - t.levels[n-1].start)
		t.prefetchLeaves = havePrefetch && (t.stride <= maxPrefetchLines*lineNodes || leafBytes >= minWidePrefetchBytes)
		parentBytes := 8 * (t.levels[n-1].start - t.levels[n-2].start)
		t.prefetchParents = t.prefetchLeaves && parentBytes >= minParentPrefetchBytes
	}
	t.bits = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t.slots))), len(t.slots))
	return t, nil
}

// levelsOf returns the levels of a tree of capacity leaves and the given
// fanout, root first, with their node counts (the starts are left to the
// layout): from the leaves up, each level has a node per fanout nodes
// below, until a level has a single node.
func levelsOf(capacity, fanout int) []level {
	n := 1
	for c := capacity; c > 1; c = (c + fanout - 1) / fanout {
		n++
	}
	levels := make([]level, n)
	for d, c := n-1, capacity; d >= 0; d, c = d-1, (c+fanout-1)/fanout {
		levels[d].count = c
	}
	return levels
}

// groupStride returns the number of slots the values of a group of k
// siblings occupy: k itself when k is a multiple of the cache line, else the
// smallest power of two >= k while that fits in a line, else k rounded up to
// whole lines. With an aligned array no group then straddles a cache-line
// boundary it does not have to (002 §IV-C4 chooses K with K % C == 0 for the
// same reason).
func groupStride(k int) int {
	if k%lineNodes == 0 {
		return k
	}
	if k < lineNodes {
		s := 1
		for s < k {
			s <<= 1
		}
		return s
	}
	return roundUp(k, lineNodes)
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }

// alignedFloat64s returns a zeroed slice of n float64 whose first element
// starts on a 64-byte boundary.
func alignedFloat64s(n int) []float64 {
	buf := make([]float64, n+lineNodes-1)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	off := int((64 - addr%64) % 64 / 8)
	return buf[off : off+n : off+n]
}

// Cap returns the number of leaves.
func (t *Tree) Cap() int { return t.capacity }

// Fanout returns the number of children of every internal node, K.
func (t *Tree) Fanout() int { return t.fanout }

// Height returns the number of levels, root and leaves included. A tree of
// one leaf has height 1.
func (t *Tree) Height() int { return len(t.levels) }

// Total returns the sum of all priorities, the value of the root. It is O(1).
func (t *Tree) Total() float64 { return t.slots[0] }

// Get returns the priority of leaf i in O(1). It panics if i is out of
// range, like a slice index.
func (t *Tree) Get(i int) float64 {
	if uint(i) >= uint(t.capacity) {
		panic(fmt.Sprintf("sumtree: Get index %d out of range [0, %d)", i, t.capacity))
	}
	return t.slots[t.leafPos(i)]
}

// nodePos returns the slot of the value of node j of level d.
func (t *Tree) nodePos(d, j int) int {
	if d == 0 {
		return 0
	}
	g := t.byFanout.div(j)
	return t.groupPos(d-1, g) + j - g*t.fanout
}

// groupPos returns the slot of the value of the first child of node j of
// level d. Unless the children are leaves, their running sums start stride
// slots later.
func (t *Tree) groupPos(d, j int) int {
	if d == len(t.levels)-2 {
		return t.levels[d+1].start + j*t.stride
	}
	return t.levels[d+1].start + j*t.span
}

// leafPos returns the slot of leaf i, nodePos of the last level without the
// division when the leaves are contiguous.
func (t *Tree) leafPos(i int) int {
	if t.packed {
		return t.levels[len(t.levels)-1].start + i
	}
	return t.nodePos(len(t.levels)-1, i)
}

// LevelLen returns the number of nodes in level d, where level 0 is the root
// and level Height()-1 holds the leaves. It panics if d is outside
// [0, Height()), like a slice index.
//
// Like Get and Ancestors, and unlike the methods that take priorities and
// indices from outside (Set, SetBatch, WriteLeaves), it panics rather than
// return an error: d comes from the tree's own shape, which the caller
// holds, never from data, so a bad d is a bug in the caller.
func (t *Tree) LevelLen(d int) int {
	t.checkLevel("LevelLen", d)
	return t.levels[d].count
}

// Level appends the values of the nodes of level d, left to right, to dst
// and returns the extended slice. Level 0 is the root; level Height()-1 holds
// the leaves. (The explorer reads only the nodes it draws, LevelRange.) It panics if d is
// outside [0, Height()), like a slice index, leaving dst as it was (see
// LevelLen for why it panics).
func (t *Tree) Level(dst []float64, d int) []float64 {
	t.checkLevel("Level", d)
	return t.appendNodes(dst, d, 0, t.levels[d].count)
}

// LevelRange appends the values of the n nodes of level d from node first
// on, left to right, to dst and returns the extended slice: the part of
// Level(nil, d)[first:first+n] a viewer draws, in O(n) however long the
// level is (the leaves of a large buffer number millions). It panics if d
// is outside [0, Height()) or [first, first+n) is not within
// [0, LevelLen(d)), like a slice expression, leaving dst as it was (see
// LevelLen for why it panics).
func (t *Tree) LevelRange(dst []float64, d, first, n int) []float64 {
	t.checkLevel("LevelRange", d)
	if count := t.levels[d].count; first < 0 || n < 0 || first > count-n {
		panic(fmt.Sprintf("sumtree: LevelRange nodes %d+%d out of range [0, %d) of level %d", first, n, count, d))
	}
	return t.appendNodes(dst, d, first, n)
}

// appendNodes appends the values of nodes first .. first+n-1 of level d.
func (t *Tree) appendNodes(dst []float64, d, first, n int) []float64 {
	for j := first; j < first+n; j++ {
		dst = append(dst, t.slots[t.nodePos(d, j)])
	}
	return dst
}

// checkLevel panics, naming the method called, if d is not a level of t.
func (t *Tree) checkLevel(method string, d int) {
	if uint(d) >= uint(len(t.levels)) {
		panic(fmt.Sprintf("sumtree: %s level %d out of range [0, %d)", method, d, len(t.levels)))
	}
}

// Ancestors appends to dst the index, within its level, of every node on the
// path from leaf i up to the root (leaf first, root last): the nodes a
// priority update of leaf i recomputes. It panics if i is out of range.
func (t *Tree) Ancestors(dst []int, i int) []int {
	if uint(i) >= uint(t.capacity) {
		panic(fmt.Sprintf("sumtree: Ancestors index %d out of range [0, %d)", i, t.capacity))
	}
	for d := len(t.levels) - 1; d >= 0; d-- {
		dst = append(dst, i)
		i = t.byFanout.div(i)
	}
	return dst
}
