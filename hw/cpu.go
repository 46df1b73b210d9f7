package hw

// cpuModel evaluates primitive costs on a multi-core CPU.
type cpuModel struct {
	s  *CPUSpec
	hz float64
}

// rate returns the fp32 FLOP/s available to threads threads: Table IV's
// whole-CPU rate scaled by the share of cores used.
func (m cpuModel) rate(threads int) float64 {
	return m.s.PeakGFLOPS * 1e9 * float64(min(threads, m.s.Cores)) / float64(m.s.Cores)
}

// opSeconds is the time of one framework op with threads threads: the
// framework's per-op overhead (000 §IV-B2, PyTorch with OpenMP) plus the
// compute of its GEMM calls (gemmSeconds), or its im2col elements at
// GEMMKernelSpec.Im2colNS, or its activation's elements at their measured
// cost (CPUSpec.Activations), or else its traffic (elementwiseSeconds).
func (m cpuModel) opSeconds(o op, threads int) float64 {
	t := m.s.OpOverheadUS * 1e-6
	if o.gemm.A > 0 {
		return t + float64(o.gemmCalls())*m.gemmSeconds(o.gemm, threads)
	}
	if k := m.s.GEMMKernel; o.unroll && k != nil && k.Im2colNS > 0 {
		return t + float64(o.elems)*k.Im2colNS*1e-9
	}
	if ns := m.s.Activations.NS(o.act, o.backward); ns > 0 {
		return t + float64(o.elems)*ns*1e-9
	}
	return t + m.elementwiseSeconds(o, threads)
}

// lowering is how the CPU's framework runs a training step: with a known
// micro-kernel the CPU runs core/nn, which lowers convolutions by im2col
// per sample.
func (m cpuModel) lowering() lowering {
	return lowering{fused: m.s.FusedOptimizer, im2col: m.s.GEMMKernel != nil}
}

// gemmSeconds is a GEMM's time: tile by tile when the micro-kernel is
// known, else the roofline of the fp32 rate and the memory bandwidth.
func (m cpuModel) gemmSeconds(g GEMMDims, threads int) float64 {
	if m.s.GEMMKernel != nil {
		return m.tiledGEMMSeconds(g, threads)
	}
	flops := 2 * float64(g.MACs())
	bytes := 4 * float64(int64(g.A)*int64(g.B)+int64(g.B)*int64(g.C)+int64(g.A)*int64(g.C))
	return max(flops/m.rate(threads), bytes/(m.s.MemBWGBs*1e9))
}

// elementwiseSeconds is an elementwise op's time: its traffic at the L2's
// bandwidth when its operands fit there and ElementwiseGBs is known, else
// at the memory's, or its flops at the core rate if that is longer.
func (m cpuModel) elementwiseSeconds(o op, threads int) float64 {
	bytes := o.bytes()
	bw := m.s.MemBWGBs
	if m.s.ElementwiseGBs > 0 && bytes <= m.s.L2KB*1024 {
		bw = m.s.ElementwiseGBs
	}
	return max(float64(o.elems)/m.rate(threads), bytes/(bw*1e9))
}

// tiledGEMMSeconds charges a GEMM as a register-blocked micro-kernel runs
// it (GEMMKernelSpec). In the row-major layout of core/nn the GEMM a x b
// times b x c of 003 Eq. 5 computes C^T: m = c rows, n = a columns, a
// reduction of k = b. Rows go in tiles of TileRows and a remainder; columns
// in tiles of TileCols, then one tile of the whole vectors left and one
// masked vector. A tile of r rows and v vectors spends
// max(r v / FMAUnits, FMALatencyCycles / sets) cycles per step of k, where a
// cycle is the time in which one core issues PeakFlopsPerCycle at the
// sustained rate (PeakGFLOPS / Cores); each call of the micro-kernel,
// one per tile and block of k, adds TileNS. Threads divide the tiles, up
// to one tile each.
func (m cpuModel) tiledGEMMSeconds(g GEMMDims, threads int) float64 {
	kn := m.s.GEMMKernel
	rows, n, k := int64(g.C), int64(g.A), int64(g.B)
	tr, lanes := int64(kn.TileRows), int64(kn.SIMDLanes)
	stepCycles := func(r, v int64) float64 {
		sets := 1.0
		if 2*r*v <= int64(kn.AccumulatorRegs) {
			sets = 2
		}
		return max(float64(r*v)/float64(kn.FMAUnits), float64(kn.FMALatencyCycles)/sets)
	}
	// Column tiles: full ones of TileCols, one of the whole vectors left,
	// one masked vector.
	tc := int64(kn.TileCols)
	colTiles := [3]struct{ count, vectors int64 }{
		{n / tc, tc / lanes},
		{b2i(n%tc >= lanes), n % tc / lanes},
		{b2i(n%lanes > 0), 1},
	}
	fullRows, restRows := rows/tr, rows%tr
	var cycles float64
	var tiles int64
	for _, ct := range colTiles {
		if ct.count == 0 {
			continue
		}
		cycles += float64(ct.count*fullRows) * stepCycles(tr, ct.vectors)
		tiles += ct.count * fullRows
		if restRows > 0 {
			cycles += float64(ct.count) * stepCycles(restRows, ct.vectors)
			tiles += ct.count
		}
	}
	// Threads share out whole tiles: no more of them help than there are.
	par := float64(max(1, min(int64(threads), int64(m.s.Cores), tiles)))
	cycleS := float64(kn.PeakFlopsPerCycle()) / (m.s.PeakGFLOPS * 1e9 / float64(m.s.Cores))
	blocks := (k + int64(kn.BlockK) - 1) / int64(kn.BlockK)
	return (float64(k)*cycles*cycleS + float64(tiles*blocks)*kn.TileNS*1e-9) / par
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// trainStep returns the time of one gradient step on the CPU learner.
func (m cpuModel) trainStep(w *Workload, batch int) float64 {
	t := 0.0
	forEachOp(w, batch, m.lowering(), func(o op) { t += m.opSeconds(o, m.s.TrainThreads) })
	return t
}

// inference returns one actor's policy evaluation on one core for batch
// observations (000 §IV-A: each actor on one core): the forward ops of
// every layer of the nets it evaluates (Workload.InferenceNets), as a
// training step's forward pass runs them.
func (m cpuModel) inference(w *Workload, batch int) float64 {
	t := 0.0
	lw := m.lowering()
	for _, n := range w.Nets[:w.inferenceNets()] {
		for _, l := range n.Layers {
			forwardOps(l, batch, lw, func(o op) { t += m.opSeconds(o, 1) })
		}
	}
	return t
}

// levelLatency returns the load latency, in cycles, of level l of a K-ary
// sum tree whose top levels are hot: level l lives in the smallest cache
// that holds levels 0..l (nodes of nodeBytes bytes).
func (m cpuModel) levelLatency(fanout, level, nodeBytes int) float64 {
	cum := 0.0
	n := 1.0
	for range level + 1 {
		cum += n * float64(nodeBytes)
		n *= float64(fanout)
	}
	switch {
	case cum <= m.s.L1KB*1024:
		return m.s.L1LatencyCycles
	case cum <= m.s.L2KB*1024:
		return m.s.L2LatencyCycles
	case cum <= m.s.LLCMB*1024*1024:
		return m.s.LLCLatencyCycles
	}
	return m.s.DRAMLatencyCycles
}

// prefixSum returns batched prefix-sum sampling with threads threads
// (000 Algorithm 1). Each sample walks H levels; at each level it loads the
// K children (one dependent load), scans them, and mispredicts the loop exit
// with probability (K-1)/K. Samples are independent, so threads divide them.
func (m cpuModel) prefixSum(w *Workload, batch, threads int) float64 {
	h := w.TreeHeight()
	perSample := 0.0
	miss := m.s.BranchMissCycles * float64(w.Fanout-1) / float64(w.Fanout)
	for l := 1; l <= h; l++ {
		perSample += m.levelLatency(w.Fanout, l, 4) + float64(w.Fanout) + miss
	}
	t := float64(ceilDiv(batch, threads)) * perSample / m.hz
	if threads > 1 {
		t += m.s.ParallelRegionUS * 1e-6
	}
	return t
}

// contendedLevels returns how many top levels of the tree have fewer cache
// lines than there are threads: their lines bounce between cores.
func contendedLevels(fanout, height, threads int) int {
	if threads <= 1 {
		return 0
	}
	n, lvls := 1, 0
	for l := 0; l <= height; l++ {
		lines := ceilDiv(n*4, 64)
		if lines >= threads {
			break
		}
		lvls++
		n *= fanout
	}
	return lvls
}

// priorityUpdate returns batched priority update with threads threads
// (000 Algorithm 2): every update walks from its leaf to the root with an
// atomic add per level. With one thread the path stays in its caches. With
// more, the top levels have fewer cache lines than threads; each atomic
// there must fetch the line from another core or memory (000 §IV-D2), and
// those fetches serialize over the whole batch, so threads do not help and
// can hurt (000 §VII-C).
func (m cpuModel) priorityUpdate(w *Workload, batch, threads int) float64 {
	h := w.TreeHeight()
	c := contendedLevels(w.Fanout, h, threads)
	parallel, serial := 0.0, 0.0
	for l := 0; l <= h; l++ {
		if l < c {
			serial += m.s.DRAMLatencyCycles + m.s.AtomicCycles
			continue
		}
		parallel += m.levelLatency(w.Fanout, l, 4) + m.s.AtomicCycles
	}
	t := (float64(batch)*serial + float64(ceilDiv(batch, threads))*parallel) / m.hz
	if threads > 1 {
		t += m.s.ParallelRegionUS * 1e-6
	}
	return t
}

// insert returns writing n data points into CPU memory: one DRAM latency
// plus the bytes at memory bandwidth.
func (m cpuModel) insert(w *Workload, n int) float64 {
	return m.s.DRAMLatencyCycles/m.hz + float64(n)*float64(w.DataPointBytes)/(m.s.MemBWGBs*1e9)
}

// gae returns generalized advantage estimation over n trajectories of t
// steps with threads threads: each trajectory is a serial recurrence of one
// multiply-add per step (004 Eq. 4), trajectories run in parallel.
func (m cpuModel) gae(t, n, threads int) float64 {
	const fmaCycles = 4 // one dependent fused multiply-add per step
	return float64(ceilDiv(n, threads))*float64(t)*fmaCycles/m.hz + 16*float64(t*n)/(m.s.MemBWGBs*1e9)
}
