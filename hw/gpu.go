package hw

import "math"

// gpuModel evaluates primitive costs on a GPU.
type gpuModel struct {
	s  *GPUSpec
	hz float64
}

// gemmSeconds returns the execution time of one GEMM kernel: the library
// picks the square output tile (one thread block each) that finishes first;
// tiles run in waves of one per SM at the SM's share of the peak rate. The
// memory roofline bounds it from below (003 §2.4: small GEMMs leave most
// SMs idle).
func (m gpuModel) gemmSeconds(d GEMMDims) float64 {
	perSM := m.s.PeakGFLOPS * 1e9 / float64(m.s.SMs)
	best := math.Inf(1)
	for _, t := range m.s.GEMMTiles {
		tiles := ceilDiv(d.A, t) * ceilDiv(d.C, t)
		waves := ceilDiv(tiles, m.s.SMs)
		sec := float64(waves) * 2 * float64(t) * float64(t) * float64(d.B) / perSM
		best = min(best, sec)
	}
	bytes := 4 * float64(int64(d.A)*int64(d.B)+int64(d.B)*int64(d.C)+int64(d.A)*int64(d.C))
	return max(best, bytes/(m.s.MemBWGBs*1e9))
}

// opSeconds returns one framework op: the host launches kernels one after
// another and the GPU runs them in order, so an op costs the longer of its
// launch and its execution (003 §2.4: launch and synchronization dominate
// small networks).
func (m gpuModel) opSeconds(o op) float64 {
	return max(m.s.LaunchUS*1e-6, m.execSeconds(o))
}

// execSeconds is an op's execution on the GPU, without its launch: a GEMM
// in tile waves, an elementwise op at the memory bandwidth.
func (m gpuModel) execSeconds(o op) float64 {
	if o.gemm.A > 0 {
		return float64(o.gemmCalls()) * m.gemmSeconds(o.gemm)
	}
	return o.bytes() / (m.s.MemBWGBs * 1e9)
}

// trainStep returns one gradient step plus one synchronization to read the
// new priorities back.
func (m gpuModel) trainStep(w *Workload, batch int) float64 {
	t := m.s.LaunchUS * 1e-6
	forEachOp(w, batch, lowering{}, func(o op) { t += m.opSeconds(o) })
	return t
}

// levelLatency returns the latency of one dependent load of tree level l:
// L2 when levels 0..l fit in L2, else L2 plus device memory (000 §IV-D4).
func (m gpuModel) levelLatency(fanout, level int) float64 {
	cum, n := 0.0, 1.0
	for range level + 1 {
		cum += 4 * n
		n *= float64(fanout)
	}
	if cum <= m.s.L2MB*1024*1024 {
		return m.s.L2LatencyCycles
	}
	return m.s.L2LatencyCycles + m.s.DRAMLatencyCycles
}

// waves returns how many rounds of resident threads batch threads need.
func (m gpuModel) waves(batch int) int {
	return ceilDiv(batch, m.s.SMs*m.s.ThreadsPerSM)
}

// prefixSum returns one batched sampling kernel (000 Eq. 2: a thread per
// sample): the launch, then H dependent loads per wave of resident threads,
// and the loads that miss L2 at memory bandwidth (32-byte sectors). Up to a
// full wave the time barely depends on the batch (000 §VII-C).
func (m gpuModel) prefixSum(w *Workload, batch int) float64 {
	h := w.TreeHeight()
	chain, misses := 0.0, 0
	for l := 1; l <= h; l++ {
		lat := m.levelLatency(w.Fanout, l)
		chain += lat
		if lat > m.s.L2LatencyCycles {
			misses++
		}
	}
	sectors := float64(batch) * float64(misses) * float64(ceilDiv(4*w.Fanout, 32)) * 32
	return m.s.LaunchUS*1e-6 + float64(m.waves(batch))*chain/m.hz + sectors/(m.s.MemBWGBs*1e9)
}

// priorityUpdate returns one batched update kernel (000 §IV-D3): each thread
// walks leaf to root with atomicAdd. Updates of the same node serialize; the
// root takes all B of them, each a read-modify-write of device memory whose
// latency cannot be hidden (000 §VII-C: time linear in B).
func (m gpuModel) priorityUpdate(w *Workload, batch int) float64 {
	h := w.TreeHeight()
	chain := 0.0
	for l := 1; l <= h; l++ {
		chain += m.levelLatency(w.Fanout, l)
	}
	serial := float64(batch) * m.s.DRAMLatencyCycles
	return m.s.LaunchUS*1e-6 + (chain+serial)/m.hz
}

// insert returns writing n data points into device memory.
func (m gpuModel) insert(w *Workload, n int) float64 {
	return float64(n) * float64(w.DataPointBytes) / (m.s.MemBWGBs * 1e9)
}

// gae returns a time-major GAE kernel with one thread per trajectory: the
// launch, then t dependent multiply-adds per wave, and the traffic.
func (m gpuModel) gae(t, n int) float64 {
	const fmaCycles = 6 // dependent fp32 FMA issue-to-use on the SM
	return m.s.LaunchUS*1e-6 + float64(m.waves(n))*float64(t)*fmaCycles/m.hz + 16*float64(t*n)/(m.s.MemBWGBs*1e9)
}
