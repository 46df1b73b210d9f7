package sumtree

// searchLevel advances the queries js (node indices at level d, -1 for no
// query) with targets rest to level d+1, as descend does one query at a
// time.
func (t *Tree) searchLevel(d int, js []int, rest []float64) {
	base := t.levels[d+1].start
	if t.VectorSearch() {
		edges := searchLevelVector(t.bits[base+t.stride:], t.span, t.fanout, js, rest)
		for k := 0; edges > 0; k++ {
			if js[k] > -2 {
				continue
			}
			j := -2 - js[k]
			c, next, _ := t.edge(base + j*t.span)
			js[k] = j*t.fanout + c
			rest[k] = next
			edges--
		}
		return
	}
	for k, j := range js {
		if j < 0 {
			continue
		}
		c, next, _ := t.descend(d, j, rest[k])
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
