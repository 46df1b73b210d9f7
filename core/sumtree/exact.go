package sumtree

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"
)

// MaxExactTotal is the largest sum an Exact tree holds, in quanta: 2^63 - 1.
// Keeping every sum below 2^63 leaves the top bit free, so sums compare
// correctly as signed or unsigned integers and never wrap.
const MaxExactTotal = math.MaxInt64

// Exact is a K-ary sum tree over fixed-point priorities. Each priority is
// held as a whole number of quanta, q = round(p / Resolution()), and every
// internal node as the integer sum of its children. Integer addition is
// associative, so an update adds the difference q_new - q_old to each
// ancestor, one word per level, and the tree stays exact after any sequence
// of updates: every node equals the sum of its leaves bit for bit, and Find
// returns the same leaf as a linear scan over the leaves' quanta.
//
// The price is a bounded range with a fixed resolution, chosen at New time
// from the capacity and the largest priority the caller needs (see
// NewExact). Where priorities span more than about 2^63 / capacity from the
// smallest to the largest, the float64 Tree keeps its range and its
// recomputation from the children.
//
// Layout. One implicit array of uint64, level by level, root first, each
// level starting on a cache line. The K children of a node form a group of K
// contiguous words, their values; K being a power of two, a group of K <= 8
// sits in one 64-byte line. No running sums are stored: an update writes one
// word per level, and a search adds the K children of a group as it goes.
type Exact struct {
	nodes  []uint64  // the implicit array, cache-line aligned
	floats []float64 // the same memory, for the prefetch kernel

	levels     []level // start and count of each level, root first
	capacity   int
	fanout     int
	shift      uint // log2(fanout)
	frac       int  // fractional bits: a quantum is 2^-frac
	scale      float64
	maxQuanta  uint64 // the largest priority, in quanta
	maxPrio    float64
	resolution float64
}

// NewExact returns an exact tree of capacity leaves, all 0, in which every
// internal node has fanout children, for priorities in [0, maxPriority].
//
// The resolution is the smallest power of two r for which capacity
// priorities of maxPriority, rounded to multiples of r, sum to at most
// MaxExactTotal: r is about capacity * maxPriority / 2^63. At capacity 2^20
// and maxPriority 2^10 it is 2^-32 (2.3e-10). A priority p is stored as the
// nearest multiple of r, an error of at most r/2; a positive priority of r/2
// or less is rejected, since it would be stored as 0 and never sampled.
//
// It returns an error if capacity is outside [MinCapacity, MaxCapacity],
// fanout is not a power of two in [MinFanout, MaxFanout], or maxPriority is
// not in (0, MaxPriority].
func NewExact(capacity, fanout int, maxPriority float64) (*Exact, error) {
	if capacity < MinCapacity || capacity > MaxCapacity {
		return nil, fmt.Errorf("sumtree: capacity %d is out of range: capacity must be %d..%d", capacity, MinCapacity, MaxCapacity)
	}
	if fanout < MinFanout || fanout > MaxFanout || fanout&(fanout-1) != 0 {
		return nil, fmt.Errorf("sumtree: exact tree fanout %d is not allowed: fanout must be a power of two %d..%d", fanout, MinFanout, MaxFanout)
	}
	if !(maxPriority > 0 && maxPriority <= MaxPriority) {
		return nil, fmt.Errorf("sumtree: exact tree maximum priority %v is out of range: it must be in (0, %g]", maxPriority, MaxPriority)
	}
	t := &Exact{
		capacity: capacity,
		fanout:   fanout,
		shift:    uint(bits.TrailingZeros(uint(fanout))),
		maxPrio:  maxPriority,
	}
	t.chooseResolution()

	t.levels = levelsOf(capacity, fanout)
	pos := 0
	for d := range t.levels {
		count := t.levels[d].count
		t.levels[d].start = pos
		// Whole groups, so that a search may read all K children of
		// the last node's parent; whole lines, so that each level
		// starts on one.
		pos += roundUp(roundUp(count, fanout), lineNodes)
	}
	t.floats = alignedFloat64s(pos)
	t.nodes = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(t.floats))), len(t.floats))
	return t, nil
}

// chooseResolution sets the fixed-point format: the most fractional bits for
// which capacity leaves at maxPrio sum to at most MaxExactTotal.
func (t *Exact) chooseResolution() {
	perLeaf := uint64(MaxExactTotal) / uint64(t.capacity)
	// 2^frac * maxPrio <= perLeaf, from the exponents (the ratio itself
	// can overflow), then corrected for the rounding of maxPrio to whole
	// quanta. The scale 2^frac must be a finite float64: a tiny maxPrio
	// gets 2^-1023, which still fits with room to spare.
	fl, el := math.Frexp(float64(perLeaf))
	fp, ep := math.Frexp(t.maxPrio)
	frac := el - ep - 1
	if fl < fp {
		frac--
	}
	frac = min(frac+1, 1023)
	for {
		q := math.RoundToEven(math.Ldexp(t.maxPrio, frac))
		if q < 1<<63 && uint64(q) <= perLeaf {
			break
		}
		frac--
	}
	t.frac = frac
	t.scale = math.Ldexp(1, frac)
	t.resolution = math.Ldexp(1, -frac)
	t.maxQuanta = uint64(math.RoundToEven(math.Ldexp(t.maxPrio, frac)))
}

// Cap returns the number of leaves.
func (t *Exact) Cap() int { return t.capacity }

// Fanout returns the number of children of every internal node, K.
func (t *Exact) Fanout() int { return t.fanout }

// Height returns the number of levels, root and leaves included.
func (t *Exact) Height() int { return len(t.levels) }

// Resolution returns the quantum r: priorities are stored as multiples of r.
// It is a power of two.
func (t *Exact) Resolution() float64 { return t.resolution }

// MaxPriority returns the largest priority the tree accepts.
func (t *Exact) MaxPriority() float64 { return t.maxPrio }

// Total returns the sum of all priorities in quanta, the root. It is O(1)
// and exact.
func (t *Exact) Total() uint64 { return t.nodes[0] }

// TotalPriority returns the sum of all priorities, Total() * Resolution(),
// rounded to float64.
func (t *Exact) TotalPriority() float64 { return float64(t.nodes[0]) * t.resolution }

// Quanta returns the priority of leaf i in quanta. It panics if i is out of
// range, like a slice index.
func (t *Exact) Quanta(i int) uint64 {
	if uint(i) >= uint(t.capacity) {
		panic(fmt.Sprintf("sumtree: Quanta index %d out of range [0, %d)", i, t.capacity))
	}
	return t.nodes[t.levels[len(t.levels)-1].start+i]
}

// Get returns the priority of leaf i as stored: its quanta times the
// resolution. It panics if i is out of range, like a slice index.
func (t *Exact) Get(i int) float64 {
	if uint(i) >= uint(t.capacity) {
		panic(fmt.Sprintf("sumtree: Get index %d out of range [0, %d)", i, t.capacity))
	}
	return float64(t.nodes[t.levels[len(t.levels)-1].start+i]) * t.resolution
}

// Level appends the values, in quanta, of the nodes of level d to dst and
// returns the extended slice. It panics if d is outside [0, Height()).
func (t *Exact) Level(dst []uint64, d int) []uint64 {
	if uint(d) >= uint(len(t.levels)) {
		panic(fmt.Sprintf("sumtree: Level level %d out of range [0, %d)", d, len(t.levels)))
	}
	l := t.levels[d]
	return append(dst, t.nodes[l.start:l.start+l.count]...)
}

// RangeError reports a priority an Exact tree cannot represent: NaN,
// negative, above its maximum, or positive but below its resolution.
type RangeError struct {
	Index      int     // the leaf the priority was meant for
	Value      float64 // the offending priority
	Pos        int     // its position in a batch, or -1 for a single update
	Resolution float64 // the tree's resolution
	Max        float64 // the tree's maximum priority
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("sumtree: %spriority %v for index %d cannot be represented: priorities must be 0, or above %g (half the resolution 2^%d) and at most %g",
		batchPos(e.Pos), e.Value, e.Index, e.Resolution/2, int(math.Log2(e.Resolution)), e.Max)
}

// quantize returns p in quanta and whether the tree can hold it.
func (t *Exact) quantize(p float64) (uint64, bool) {
	if !t.representable(p) {
		return 0, false
	}
	// p <= maxPrio makes q <= maxQuanta: rounding is monotone.
	return uint64(math.RoundToEven(p * t.scale)), true
}

// representable reports whether p is 0, or rounds to at least one quantum
// (is above half the resolution: half a quantum rounds to even, 0) and is at
// most the maximum. NaN fails every comparison.
func (t *Exact) representable(p float64) bool {
	return p == 0 || (p > t.resolution/2 && p <= t.maxPrio)
}

// Set sets the priority of leaf i to p, rounded to the resolution, and adds
// the change to its ancestors. It returns an error, and leaves the tree
// unchanged, if i is outside [0, Cap()) or p cannot be represented.
func (t *Exact) Set(i int, p float64) error {
	if uint(i) >= uint(t.capacity) {
		return &IndexError{Index: i, Cap: t.capacity, Pos: -1}
	}
	q, ok := t.quantize(p)
	if !ok {
		return t.rangeError(i, p, -1)
	}
	t.setQuanta(i, q)
	return nil
}

func (t *Exact) rangeError(i int, p float64, pos int) error {
	return &RangeError{Index: i, Value: p, Pos: pos, Resolution: t.resolution, Max: t.maxPrio}
}

// setQuanta writes q to leaf i and adds the difference to every ancestor.
func (t *Exact) setQuanta(i int, q uint64) {
	last := len(t.levels) - 1
	leaf := &t.nodes[t.levels[last].start+i]
	delta := q - *leaf // modulo 2^64: adding it undoes the old value exactly
	*leaf = q
	for d := last - 1; d >= 0; d-- {
		i >>= t.shift
		t.nodes[t.levels[d].start+i] += delta
	}
}

// SetBatch sets the priority of leaf idx[k] to p[k] for every k. Validation
// is all-or-nothing: if the lengths differ or any index or priority is
// invalid, it returns an error naming the first offender and changes
// nothing. When an index repeats, the last write wins. SetBatch does not
// allocate.
func (t *Exact) SetBatch(idx []int, p []float64) error {
	if len(idx) != len(p) {
		return fmt.Errorf("sumtree: %d indices but %d priorities: the lengths must match", len(idx), len(p))
	}
	for k, i := range idx {
		if uint(i) >= uint(t.capacity) {
			return &IndexError{Index: i, Cap: t.capacity, Pos: k}
		}
		if !t.representable(p[k]) {
			return t.rangeError(i, p[k], k)
		}
	}
	t.update(idx, p)
	return nil
}

// update applies a validated batch. Levels with more nodes than the batch
// has updates are sparse: each update adds its delta to its own ancestor
// there, a chunk of paths at a time, one level after another, so that the
// chunk's misses on a level overlap. Above them a batch touches most nodes
// anyway, and the dense levels are summed from their children once each;
// with integers both give the same sums, and summing avoids the top levels
// being updated len(idx) times in chains of dependent additions.
func (t *Exact) update(idx []int, p []float64) {
	last := len(t.levels) - 1
	dense := last - 1 // the lowest level summed whole
	for dense >= 0 && t.levels[dense].count > len(idx) {
		dense--
	}
	// The parents' misses are worth prefetching only once their level
	// outgrows the caches, as for the float64 tree: measured at B = 2048,
	// K = 16, 34.2 against 30.6 ns at capacity 2^24 (an 8 MB level) and
	// 9.8 against 10.6 at 2^20 (512 KB).
	prefetchParents := havePrefetch && last >= 2 && 8*t.levels[last-1].count >= minParentPrefetchBytes
	var node [pathChunk]int
	var delta [pathChunk]uint64
	leaves := t.nodes[t.levels[last].start:]
	for lo := 0; lo < len(idx); lo += pathChunk {
		part := idx[lo:min(lo+pathChunk, len(idx))]
		nodes, deltas := node[:len(part)], delta[:len(part)]
		if havePrefetch {
			// Requested together, the chunk's leaf misses overlap; left
			// to the loads below, one after another, they overlap less.
			prefetchGroups(t.floats[t.levels[last].start:], 1, 1, part)
			if prefetchParents {
				for k, i := range part {
					nodes[k] = i >> t.shift
				}
				prefetchGroups(t.floats[t.levels[last-1].start:], 1, 1, nodes)
			}
		}
		ps := p[lo : lo+len(part)]
		for k, i := range part {
			q := uint64(math.RoundToEven(ps[k] * t.scale))
			deltas[k] = q - leaves[i]
			leaves[i] = q
			nodes[k] = i
		}
		for d := last - 1; d > dense; d-- {
			lv := t.nodes[t.levels[d].start:]
			for k := range nodes {
				nodes[k] >>= t.shift
				lv[nodes[k]] += deltas[k]
			}
		}
	}
	for d := dense; d >= 0; d-- {
		t.sumLevel(d)
	}
}

// sumLevel sets every node of level d to the sum of its children.
func (t *Exact) sumLevel(d int) {
	k := t.fanout
	parents := t.nodes[t.levels[d].start : t.levels[d].start+t.levels[d].count]
	children := t.nodes[t.levels[d+1].start:]
	for j := range parents {
		var s uint64
		for _, x := range children[j*k : j*k+k] {
			s += x
		}
		parents[j] = s
	}
}
