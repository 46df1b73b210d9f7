package sumtree

import "math"

// searchLevel advances the queries js (node indices at level d, -1 for no
// query) with targets rest to level d+1, as descend does one query at a
// time.
func (t *Tree) searchLevel(d int, js []int, rest []float64) {
	base := t.levels[d+1].start
	leaves := d == len(t.levels)-2
	// The lines a group's search reads: its running sums, or for a group
	// of leaves the leaves themselves.
	span, sums := t.span, t.stride
	if leaves {
		span, sums = t.stride, 0
	}
	if havePrefetch {
		prefetchGroups(t.slots[base+sums:], span, t.fanout, js)
	}
	if t.VectorSearch() {
		edges := 0
		if leaves {
			edges = searchLeavesVector(t.slots[base:], span, t.fanout, js, rest)
		} else {
			edges = searchLevelVector(t.bits[base+sums:], span, t.fanout, js, rest)
		}
		for k := 0; edges > 0; k++ {
			if js[k] > -2 {
				continue
			}
			j := -2 - js[k]
			c, next, _ := t.edge(base + j*span)
			js[k] = j*t.fanout + c
			rest[k] = next
			edges--
		}
		return
	}
	if t.fanout == 2 {
		t.searchPairs(base, leaves, js, rest)
		return
	}
	if leaves {
		t.searchLeaves(base, js, rest)
		return
	}
	for k, j := range js {
		if j < 0 {
			continue
		}
		c, next, _ := t.descendGroup(base+j*span, rest[k])
		js[k] = j*t.fanout + c
		rest[k] = next
	}
}

// VectorSearch reports whether FindBatch searches this tree with vector
// compares: the CPU supports AVX2, groups are packed and the fanout is a
// multiple of 4. It changes speed, never results.
func (t *Tree) VectorSearch() bool {
	return haveVectorSearch && t.fanout%4 == 0 && t.packed
}

// searchLeaves is the portable searchLevel for the last level, whose groups
// keep no running sums: it adds up the leaves of four queries at a time,
// four independent chains of additions (measured: 1.6 times faster at
// K = 16 than one query at a time). The leaf found is the end of the walk,
// so it leaves rest alone.
func (t *Tree) searchLeaves(base int, js []int, rest []float64) {
	k := t.fanout
	q := 0
	for ; q+3 < len(js); q += 4 {
		ja, jb, jc, jd := js[q], js[q+1], js[q+2], js[q+3]
		if ja < 0 || jb < 0 || jc < 0 || jd < 0 {
			for r := q; r < q+4; r++ {
				t.searchLeaf(base, js, rest, r)
			}
			continue
		}
		ga, gb, gc, gd := base+ja*t.stride, base+jb*t.stride, base+jc*t.stride, base+jd*t.stride
		va, vb, vc, vd := t.slots[ga:ga+k:ga+k], t.slots[gb:gb+k:gb+k], t.slots[gc:gc+k:gc+k], t.slots[gd:gd+k:gd+k]
		ua, ub, uc, ud := int64(math.Float64bits(rest[q])), int64(math.Float64bits(rest[q+1])), int64(math.Float64bits(rest[q+2])), int64(math.Float64bits(rest[q+3]))
		sa, sb, sc, sd := 0.0, 0.0, 0.0, 0.0
		ca, cb, cc, cd := 0, 0, 0, 0
		for x := range k {
			sa += va[x]
			sb += vb[x]
			sc += vc[x]
			sd += vd[x]
			ca += atMost(ua, int64(math.Float64bits(sa)))
			cb += atMost(ub, int64(math.Float64bits(sb)))
			cc += atMost(uc, int64(math.Float64bits(sc)))
			cd += atMost(ud, int64(math.Float64bits(sd)))
		}
		if ca == k {
			ca, _, _ = t.edge(ga)
		}
		if cb == k {
			cb, _, _ = t.edge(gb)
		}
		if cc == k {
			cc, _, _ = t.edge(gc)
		}
		if cd == k {
			cd, _, _ = t.edge(gd)
		}
		js[q], js[q+1], js[q+2], js[q+3] = ja*k+ca, jb*k+cb, jc*k+cc, jd*k+cd
	}
	for ; q < len(js); q++ {
		t.searchLeaf(base, js, rest, q)
	}
}

// searchLeaf is searchLeaves for the single query q.
func (t *Tree) searchLeaf(base int, js []int, rest []float64, q int) {
	if j := js[q]; j >= 0 {
		c, _, _ := t.descendLeaves(base+j*t.stride, rest[q])
		js[q] = j*t.fanout + c
	}
}

// searchPairs is searchLevel for K = 2, where a level is one comparison: a
// query goes right when it is at least the left child's value (the group's
// first running sum, or the left leaf), as in a plain binary tree, and it
// chooses without a branch, which a random query would mispredict half the
// time. Through descend's general count, one call per query, K = 2 searched
// at less than half the binary tree's speed; this way, after searchLevel's
// prefetch pass, it is about twice as fast as the binary tree (capacity
// 2^20, B = 2048: 93 against 185 ns per query; 118 without the pass, 390
// through descend). A query at or past the group's total takes the edge
// rule as descend does.
func (t *Tree) searchPairs(base int, leaves bool, js []int, rest []float64) {
	span, sums := t.span, t.stride
	if leaves {
		span, sums = t.stride, 0
	}
	s := t.slots
	for k, j := range js {
		if j < 0 {
			continue
		}
		g := base + j*span
		u := rest[k]
		left, right := s[g], s[g+1]
		total := left + right
		if sums != 0 {
			left, total = s[g+sums], s[g+sums+1]
		}
		if u >= total {
			c, next, _ := t.edge(g)
			js[k], rest[k] = 2*j+c, next
			continue
		}
		// Right when left <= u, chosen without a branch.
		goRight := atMostMask(int64(math.Float64bits(u)), int64(math.Float64bits(left)))
		js[k] = 2*j + int(goRight&1)
		rest[k] = u - math.Float64frombits(math.Float64bits(left)&uint64(goRight))
	}
}
