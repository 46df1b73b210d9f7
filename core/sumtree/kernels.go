package sumtree

// The update kernels. Recomputing a node is a chain of K dependent
// additions with a store after each; written as a loop over a variable K the
// compiler spends more instructions on bounds checks and loop control than
// on the additions, and the instruction count, not the memory, then bounds
// SetBatch. For the fanouts 4, 8 and 16 the kernels below are straight-line
// code over fixed-size arrays (one bounds check per node); their loop bodies
// are short enough for the CPU to overlap the chains of successive nodes on
// its own. They are unrolled by hand because the compiler does not unroll:
// a loop over the same fixed-size array measured 5-25% slower (capacity
// 2^20, B = 256 to 16384). Other fanouts take the general code in
// update.go. Every path adds left to right, so all of them compute the same
// bits; TestUpdatesAddLeftToRight holds them to it.

// recomputeNodes recomputes the nodes of internal level d >= 1 listed in
// nodes from their children, which are internal nodes too, writing the
// children's running sums.
func (t *Tree) recomputeNodes(d int, nodes []int) {
	s := t.slots
	base := t.levels[d+1].start // node j's children: span slots at base + j*span
	// Node j's own value sits in group j/K of level d, at slot j%K; for a
	// power-of-two K that is out + j>>log2(K)*span + j&(K-1).
	out := t.levels[d].start
	switch {
	case t.fanout == 4 && t.packed:
		for _, j := range nodes {
			g := base + j*8
			v := (*[8]float64)(s[g : g+8])
			a := v[0]
			v[4] = a
			a += v[1]
			v[5] = a
			a += v[2]
			v[6] = a
			a += v[3]
			v[7] = a
			s[out+j>>2*8+j&3] = a
		}
	case t.fanout == 8:
		for _, j := range nodes {
			g := base + j*16
			v := (*[16]float64)(s[g : g+16])
			a := v[0]
			v[8] = a
			a += v[1]
			v[9] = a
			a += v[2]
			v[10] = a
			a += v[3]
			v[11] = a
			a += v[4]
			v[12] = a
			a += v[5]
			v[13] = a
			a += v[6]
			v[14] = a
			a += v[7]
			v[15] = a
			s[out+j>>3*16+j&7] = a
		}
	case t.fanout == 16:
		for _, j := range nodes {
			g := base + j*32
			v := (*[32]float64)(s[g : g+32])
			a := v[0]
			v[16] = a
			a += v[1]
			v[17] = a
			a += v[2]
			v[18] = a
			a += v[3]
			v[19] = a
			a += v[4]
			v[20] = a
			a += v[5]
			v[21] = a
			a += v[6]
			v[22] = a
			a += v[7]
			v[23] = a
			a += v[8]
			v[24] = a
			a += v[9]
			v[25] = a
			a += v[10]
			v[26] = a
			a += v[11]
			v[27] = a
			a += v[12]
			v[28] = a
			a += v[13]
			v[29] = a
			a += v[14]
			v[30] = a
			a += v[15]
			v[31] = a
			s[out+j>>4*32+j&15] = a
		}
	default:
		n := 0
		for ; n+1 < len(nodes); n += 2 {
			t.recomputePair(d, nodes[n], nodes[n+1])
		}
		if n < len(nodes) {
			t.recompute(d, nodes[n])
		}
	}
}

// sumLeaves sets the nodes listed in nodes, on the level of the parents of
// the leaves (which must not be the root), to the sums of their leaves.
func (t *Tree) sumLeaves(nodes []int) {
	d := len(t.levels) - 2
	s := t.slots
	base := t.levels[d+1].start // node j's leaves: stride slots at base + j*stride
	out := t.levels[d].start    // node j's value, as in recomputeNodes
	switch {
	case t.fanout == 4 && t.packed:
		for _, j := range nodes {
			g := base + j*4
			v := (*[4]float64)(s[g : g+4])
			s[out+j>>2*8+j&3] = v[0] + v[1] + v[2] + v[3]
		}
	case t.fanout == 8:
		for _, j := range nodes {
			g := base + j*8
			v := (*[8]float64)(s[g : g+8])
			s[out+j>>3*16+j&7] = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
		}
	case t.fanout == 16:
		for _, j := range nodes {
			g := base + j*16
			v := (*[16]float64)(s[g : g+16])
			a := v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7]
			s[out+j>>4*32+j&15] = a + v[8] + v[9] + v[10] + v[11] + v[12] + v[13] + v[14] + v[15]
		}
	default:
		for _, j := range nodes {
			t.recompute(d, j)
		}
	}
}
