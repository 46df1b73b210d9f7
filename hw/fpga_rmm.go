package hw

// RMMDesign is an FPGA replay manager (000 §IV-C4, §IV-D4, §VI-A2): S
// pipelines (bank parallel factor), each of H sampler stages and H updater
// stages, one tree level per stage in its own SRAM bank.
type RMMDesign struct {
	// S is the bank parallel factor (a power of the fanout).
	S int
	// H is the number of tree levels below the root, one stage each.
	H int
	// Fanout is K: a sampler stage scans up to K siblings, one per cycle.
	Fanout    int
	Resources Resources
}

// SampleCycles returns batched prefix-sum sampling: B/S requests per
// pipeline at one per F cycles, plus the (H-1) F cycles to fill the
// pipeline (000 §VI-A2: B/S x F).
func (d RMMDesign) SampleCycles(batch int) int64 {
	return int64(ceilDiv(batch, d.S))*int64(d.Fanout) + int64(d.H-1)*int64(d.Fanout)
}

// UpdateCycles returns batched priority update: one update per cycle per
// pipeline after an H-1 cycle fill (000 §VI-A2: B/S). The shared top
// levels combine the S pipelines' deltas each cycle with an adder tree.
func (d RMMDesign) UpdateCycles(batch int) int64 {
	return int64(ceilDiv(batch, d.S)) + int64(d.H-1)
}

// treeSRAMBits returns the on-chip bits of the fixed-point sum tree: a
// level l below the root holds K^l nodes of W_root - l log2 K bits, where
// the root is wide enough that no sum overflows (000 §IV-C4).
func treeSRAMBits(capacity, fanout, h, leafBits int) float64 {
	lg := 0
	for k := 1; k < fanout; k *= 2 {
		lg++
	}
	root := leafBits + h*lg
	bits, n := 0.0, 1.0
	for l := 0; l <= h; l++ {
		nodes := n
		if l == h {
			nodes = float64(capacity)
		}
		bits += nodes * float64(root-l*lg)
		n *= float64(fanout)
	}
	return bits
}

// NewRMMDesign returns the design with bank factor s for w on spec.
func NewRMMDesign(spec *FPGASpec, w *Workload, s int) RMMDesign {
	h := w.TreeHeight()
	stages := 2 * h * s // samplers and updaters
	bits := treeSRAMBits(w.Capacity, w.Fanout, h, spec.RMMLeafBits)
	// FIFOs between stages: index (32 b) and remaining prefix sum (64 b),
	// plus the memoized path of 000 §IV-D4 (H-1 indices per request).
	fifo := float64(stages) * float64(spec.RMMFIFODepth) * 96
	memo := float64(s) * float64(spec.RMMFIFODepth) * float64(h-1) * 32
	return RMMDesign{S: s, H: h, Fanout: w.Fanout, Resources: Resources{
		DSP:    stages * spec.RMMDSPPerStage,
		LUT:    stages * spec.RMMLUTPerStage,
		FF:     stages * spec.RMMFFPerStage,
		SRAMMB: (bits + fifo + memo) / 8 / (1 << 20),
	}}
}

// ChooseRMMBanks returns the bank factor for a batch (000 §VI-A2): one
// pipeline while B <= H, then S grows with B (the largest power of K not
// above B/H) until the design no longer fits the RMM's SLR budget.
func ChooseRMMBanks(spec *FPGASpec, w *Workload, batch int) RMMDesign {
	h := w.TreeHeight()
	budget := spec.RMMBudget()
	best := NewRMMDesign(spec, w, 1)
	for s := w.Fanout; s <= batch/h; s *= w.Fanout {
		d := NewRMMDesign(spec, w, s)
		if !d.Resources.Fits(budget) {
			break
		}
		best = d
	}
	return best
}
