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

// opSeconds is the roofline time of one framework op with threads threads
// plus the framework's per-op overhead (000 §IV-B2, PyTorch with OpenMP).
func (m cpuModel) opSeconds(o op, threads int) float64 {
	var flops, bytes float64
	if o.gemm.A > 0 {
		flops = 2 * float64(o.gemm.MACs())
		bytes = 4 * float64(int64(o.gemm.A)*int64(o.gemm.B)+int64(o.gemm.B)*int64(o.gemm.C)+int64(o.gemm.A)*int64(o.gemm.C))
	} else {
		flops = float64(o.elems)
		bytes = 12 * float64(o.elems)
	}
	return m.s.OpOverheadUS*1e-6 + max(flops/m.rate(threads), bytes/(m.s.MemBWGBs*1e9))
}

// trainStep returns the time of one gradient step on the CPU learner.
func (m cpuModel) trainStep(w *Workload, batch int) float64 {
	t := 0.0
	forEachOp(w, batch, func(o op) { t += m.opSeconds(o, m.s.TrainThreads) })
	return t
}

// inference returns one actor's policy evaluation on one core for batch
// observations (000 §IV-A: each actor on one core).
func (m cpuModel) inference(w *Workload, batch int) float64 {
	t := 0.0
	for _, l := range w.Nets[0].Layers {
		t += m.opSeconds(op{gemm: l.GEMM(batch)}, 1)
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
