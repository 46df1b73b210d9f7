package sumtree

import "fmt"

// Find returns the prefix-sum index of u, a target in quanta: the unique
// leaf i with S(i) <= u < S(i+1), where S(i) is the sum of the quanta of the
// leaves before i. For u drawn uniformly from [0, Total()) (for instance
// rand.Uint64N(t.Total())), leaf i is drawn with probability exactly
// Quanta(i) / Total(). Leaves of priority 0 are never returned; a u at or
// above Total() maps to the last leaf with a positive priority. Find returns
// -1 when Total() is 0.
func (t *Exact) Find(u uint64) int {
	total := t.nodes[0]
	if total == 0 {
		return -1
	}
	u = min(u, total-1)
	j := 0
	for d := 1; d < len(t.levels); d++ {
		g := t.levels[d].start + j<<t.shift
		c, rest := descendGroup(t.nodes[g:g+t.fanout], u)
		j = j<<t.shift + c
		u = rest
	}
	return j
}

// descendGroup is descendExact through the branch-free kernel of the
// group's size when there is one.
func descendGroup(v []uint64, u uint64) (int, uint64) {
	switch len(v) {
	case 4:
		return bisect4((*[4]uint64)(v), u)
	case 8:
		return bisect8((*[8]uint64)(v), u)
	case 16:
		return bisect16((*[16]uint64)(v), u)
	}
	return descendExact(v, u)
}

// descendExact returns the child c of a group whose range holds u, the first
// c with v[0] + ... + v[c] > u, and u less the sum of the children before c.
// The group's sum is greater than u, so the child found has a positive
// value: when the loop reaches the last child, u minus the others is below
// the group's sum minus the others, the last child's value.
func descendExact(v []uint64, u uint64) (int, uint64) {
	var s uint64
	for c, x := range v[:len(v)-1] {
		if u-s < x {
			return c, u - s
		}
		s += x
	}
	return len(v) - 1, u - s
}

// FindBatch sets out[k] = Find(u[k]) for every k. It advances a chunk of
// queries one level at a time and prefetches the chunk's groups before
// searching them, so that the misses of different queries overlap. It
// panics if out is shorter than u. It does not allocate.
func (t *Exact) FindBatch(u []uint64, out []int) {
	if len(out) < len(u) {
		panic(fmt.Sprintf("sumtree: FindBatch needs len(out) >= len(u), have %d < %d", len(out), len(u)))
	}
	total := t.nodes[0]
	if total == 0 {
		for k := range u {
			out[k] = -1
		}
		return
	}
	var rest [findChunk]uint64
	for lo := 0; lo < len(u); lo += findChunk {
		us := u[lo:min(lo+findChunk, len(u))]
		js := out[lo : lo+len(us)]
		for k, x := range us {
			rest[k] = min(x, total-1)
			js[k] = 0
		}
		for d := 1; d < len(t.levels); d++ {
			t.searchExactLevel(d, js, rest[:len(js)])
		}
	}
}

// searchExactLevel advances the queries js, nodes of level d-1, with targets
// rest, to their children on level d.
func (t *Exact) searchExactLevel(d int, js []int, rest []uint64) {
	base := t.levels[d].start
	k := t.fanout
	if havePrefetch && 8*t.levels[d].count >= exactPrefetchBytes {
		// Group j of level d holds the children of node j of level d-1.
		// (The root's children, level 1, stay in L1.)
		prefetchGroups(t.floats[base:], k, k, js)
	}
	level := t.nodes[base:]
	switch k {
	case 4:
		for q, j := range js {
			g := j << 2
			c, r := bisect4((*[4]uint64)(level[g:g+4]), rest[q])
			js[q], rest[q] = g+c, r
		}
	case 8:
		for q, j := range js {
			g := j << 3
			c, r := bisect8((*[8]uint64)(level[g:g+8]), rest[q])
			js[q], rest[q] = g+c, r
		}
	case 16:
		for q, j := range js {
			g := j << 4
			c, r := bisect16((*[16]uint64)(level[g:g+16]), rest[q])
			js[q], rest[q] = g+c, r
		}
	default:
		for q, j := range js {
			g := j << t.shift
			c, r := descendExact(level[g:g+k], rest[q])
			js[q], rest[q] = g+c, r
		}
	}
}

// bisect4, bisect8 and bisect16 are descendExact without a branch per
// child. bisect8 sums the first half of the group, moves to the second half
// when that sum is <= u (taking it off u), and repeats on quarters and
// single children, with masks instead of branches: which child holds u is a
// coin flip that a branch predicts badly (a loop with an if took 120-140 ns
// per query at capacity 2^20, K = 8). Summing halves forms 3 + 1 additions
// at K = 8, where running sums of the whole group took 7 and a stack array:
// 21 against 25 ns per query in cache (capacity 2^12), 46 against 53-55 at
// 2^20.
func bisect8(v *[8]uint64, u uint64) (int, uint64) {
	h := v[0] + v[1] + v[2] + v[3]
	m := atMostExact(h, u)
	u -= h & m
	c := 4 & m
	q := v[c] + v[c+1]
	m = atMostExact(q, u)
	u -= q & m
	c += 2 & m
	x := v[c]
	m = atMostExact(x, u)
	u -= x & m
	c += 1 & m
	return int(c), u
}

func bisect16(v *[16]uint64, u uint64) (int, uint64) {
	h := v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
	m := atMostExact(h, u)
	u -= h & m
	c := 8 & m
	q := v[c] + v[c+1] + v[c+2] + v[c+3]
	m = atMostExact(q, u)
	u -= q & m
	c += 4 & m
	q = v[c] + v[c+1]
	m = atMostExact(q, u)
	u -= q & m
	c += 2 & m
	x := v[c]
	m = atMostExact(x, u)
	u -= x & m
	c += 1 & m
	return int(c), u
}

func bisect4(v *[4]uint64, u uint64) (int, uint64) {
	q := v[0] + v[1]
	m := atMostExact(q, u)
	u -= q & m
	c := 2 & m
	x := v[c]
	m = atMostExact(x, u)
	u -= x & m
	c += 1 & m
	return int(c), u
}

// atMostExact returns all ones if s <= u and 0 otherwise, without a branch.
// Both are below 2^63 (every sum of an Exact tree is), so u - s as a signed
// number is negative exactly when s > u.
func atMostExact(s, u uint64) uint64 { return ^uint64(int64(u-s) >> 63) }

// exactPrefetchBytes is the size of a level from which FindBatch prefetches
// the chunk's groups before searching them. Smaller levels stay in L1 or
// L2, and the pass only costs instructions: at capacity 2^20, B = 2048,
// prefetching every level below the root's children took 48-50 ns per
// query at K = 4 and 50-60 at K = 8; from 64 KB, 256 KB or 1 MB up, 40-42
// and 46-47.
const exactPrefetchBytes = 256 << 10
