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
		c, rest := descendExact(t.nodes[g:g+t.fanout], u)
		j = j<<t.shift + c
		u = rest
	}
	return j
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
	if havePrefetch && d > 1 {
		// Group j of level d holds the children of node j of level d-1.
		// (The root's children, level 1, stay in L1.)
		prefetchGroups(t.floats[base:], k, k, js)
	}
	level := t.nodes[base:]
	switch k {
	case 4:
		for q, j := range js {
			g := j << 2
			c, r := descend4((*[4]uint64)(level[g:g+4]), rest[q])
			js[q], rest[q] = g+c, r
		}
	case 8:
		for q, j := range js {
			g := j << 3
			c, r := descend8((*[8]uint64)(level[g:g+8]), rest[q])
			js[q], rest[q] = g+c, r
		}
	case 16:
		for q, j := range js {
			g := j << 4
			c, r := descend16((*[16]uint64)(level[g:g+16]), rest[q])
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

// descend4, descend8 and descend16 are descendExact without a branch per
// child: they form the running sums s[c] = v[0] + ... + v[c-1], then find the
// last c with s[c] <= u by a bisection made of masks rather than branches,
// since which child holds u is a coin flip that a branch predicts badly (the
// compiler keeps branches for if-statements here: measured 2.3x slower).
// The running sums are monotone, so the last c with s[c] <= u is the first c
// with s[c+1] > u, the child descendExact returns.
func descend4(v *[4]uint64, u uint64) (int, uint64) {
	var s [4]uint64
	s[1] = v[0]
	s[2] = s[1] + v[1]
	s[3] = s[2] + v[2]
	c := 2 & atMostExact(s[2], u)
	c += 1 & atMostExact(s[c+1], u)
	return int(c), u - s[c]
}

func descend8(v *[8]uint64, u uint64) (int, uint64) {
	var s [8]uint64
	s[1] = v[0]
	s[2] = s[1] + v[1]
	s[3] = s[2] + v[2]
	s[4] = s[3] + v[3]
	s[5] = s[4] + v[4]
	s[6] = s[5] + v[5]
	s[7] = s[6] + v[6]
	c := 4 & atMostExact(s[4], u)
	c += 2 & atMostExact(s[c+2], u)
	c += 1 & atMostExact(s[c+1], u)
	return int(c), u - s[c]
}

func descend16(v *[16]uint64, u uint64) (int, uint64) {
	var s [16]uint64
	s[1] = v[0]
	s[2] = s[1] + v[1]
	s[3] = s[2] + v[2]
	s[4] = s[3] + v[3]
	s[5] = s[4] + v[4]
	s[6] = s[5] + v[5]
	s[7] = s[6] + v[6]
	s[8] = s[7] + v[7]
	s[9] = s[8] + v[8]
	s[10] = s[9] + v[9]
	s[11] = s[10] + v[10]
	s[12] = s[11] + v[11]
	s[13] = s[12] + v[12]
	s[14] = s[13] + v[13]
	s[15] = s[14] + v[14]
	c := 8 & atMostExact(s[8], u)
	c += 4 & atMostExact(s[c+4], u)
	c += 2 & atMostExact(s[c+2], u)
	c += 1 & atMostExact(s[c+1], u)
	return int(c), u - s[c]
}

// atMostExact returns all ones if s <= u and 0 otherwise, without a branch.
// Both are below 2^63 (every sum of an Exact tree is), so u - s as a signed
// number is negative exactly when s > u.
func atMostExact(s, u uint64) uint64 { return ^uint64(int64(u-s) >> 63) }
