package hw

// Framework ops of one training step, as PyTorch runs them on a CPU or a GPU
// (000 §IV-B2). A GEMM op carries its dimensions; an elementwise op the
// number of fp32 elements it reads and writes.
type op struct {
	gemm GEMMDims // zero for an elementwise op
	// calls is the number of GEMMs of dimensions gemm the op runs one after
	// another (core/nn's convolutions: one per sample); 0 means 1.
	calls int64
	elems int64 // elements touched by an elementwise op
	// unroll marks the elementwise op that unrolls a convolution's input
	// into the im2col matrix or folds its gradient back (col2im): a scalar
	// copy loop, charged per element (GEMMKernelSpec.Im2colNS).
	unroll bool
	// act is the activation an elementwise op applies (forward) or
	// differentiates (backward); ActUnknown for other elementwise ops.
	act      Activation
	backward bool
	// bytesPerElem is the memory traffic of an elementwise op per element:
	// 0 means elementwiseBytes (two reads and a write of fp32).
	bytesPerElem int
}

// elementwiseBytes is the traffic of an elementwise op per element: two
// fp32 operands read and one written.
const elementwiseBytes = 12

// im2colBytes is the traffic of the im2col unrolling per element of the
// unrolled matrix: one fp32 read and one written. col2im, which adds each
// element into the input gradient, reads two and writes one
// (elementwiseBytes).
const im2colBytes = 8

// bytes returns an elementwise op's memory traffic.
func (o op) bytes() float64 {
	if o.bytesPerElem > 0 {
		return float64(o.bytesPerElem) * float64(o.elems)
	}
	return elementwiseBytes * float64(o.elems)
}

// Traffic per parameter of the fused optimizer kernels (core/nn): Adam
// reads the parameter, its gradient and both moments and writes the
// parameter and the moments (7 fp32); zeroing the gradients writes one;
// a Polyak update reads two and writes one.
const (
	fusedAdamBytes   = 28
	fusedZeroBytes   = 4
	fusedPolyakBytes = 12
)

// adamOps is the number of elementwise kernels the non-fused Adam optimizer
// runs per parameter tensor (two moment updates of two ops each, the
// denominator sqrt/div/add, the parameter update), plus one for zero_grad.
const adamOps = 9

// softUpdateOps is the number of elementwise kernels of Polyak averaging per
// target tensor (scale, add).
const softUpdateOps = 2

// priorityOps computes |TD error| and copies the new priorities out.
const priorityOps = 2

// lowering is how the framework runs a training step's ops.
type lowering struct {
	// fused: each net's optimizer is one Adam kernel and one zeroing pass
	// over all its parameters, a Polyak update one kernel per target net
	// (CPUSpec.FusedOptimizer).
	fused bool
	// im2col: a convolution runs as core/nn runs it, per sample: the input
	// unrolled into the im2col matrix, then one GEMM (and for the input
	// gradient one GEMM, then col2im). Otherwise it is one GEMM over the
	// whole batch, as a GPU's implicit-GEMM convolution is (003 Eq. 5).
	im2col bool
}

// gemmCalls returns the number of GEMM calls of o.
func (o op) gemmCalls() int64 { return max(o.calls, 1) }

// perSample reports whether layer l runs as per-sample GEMMs around the
// im2col unrolling (lowering.im2col).
func (lw lowering) perSample(l Layer) bool { return lw.im2col && l.Kind == Conv }

// forwardOps calls f for the ops of layer l's forward pass on batch
// samples: its GEMM (with lw.im2col a convolution's per-sample GEMMs after
// the unrolling) and its activation. A training step's forward pass and an
// actor's inference run the same.
func forwardOps(l Layer, batch int, lw lowering, f func(op)) {
	if lw.perSample(l) {
		// Y[Cout x P] = W[Cout x K2] cols[K2 x P], per sample.
		f(op{elems: l.unrolled(batch), unroll: true, bytesPerElem: im2colBytes})
		f(op{gemm: GEMMDims{A: l.Pixels(), B: l.Reduction(), C: l.Out}, calls: int64(batch)})
	} else {
		f(op{gemm: l.GEMM(batch)})
	}
	f(op{elems: int64(batch) * l.Outputs(), act: l.Act})
}

// forEachOp calls f for every framework op of one gradient step on batch
// samples. Per layer: a forward pass is a GEMM plus an activation
// (forwardOps); an input-gradient pass (layers 2..L) a GEMM plus the
// activation derivative; a weight-gradient pass a GEMM plus a bias
// reduction. With lw.im2col a convolution's passes are per-sample GEMMs
// with the im2col unrolling (forward, weight gradient) or the col2im
// folding (input gradient) as ops of their own. Trained nets then run Adam,
// 9 ops per parameter tensor or, with lw.fused, one Adam and one zeroing
// kernel per net; target nets get Polyak updates when the algorithm uses
// them. f must not retain the op.
//
// GEMMDims are in the convention of 003 Eq. 5 (a x b times b x c); for the
// tiled CPU model c is the dimension core/nn's row-major GEMM tiles in rows
// and a the one in columns (cpuModel.tiledGEMMSeconds).
func forEachOp(w *Workload, batch int, lw lowering, f func(op)) {
	for _, n := range w.Nets {
		for range n.FW {
			for _, l := range n.Layers {
				forwardOps(l, batch, lw, f)
			}
		}
		for range n.BW {
			for i, l := range n.Layers {
				if i == 0 {
					continue
				}
				if lw.perSample(l) {
					// dcols[K2 x P] = W^T dY, folded back by col2im.
					f(op{gemm: GEMMDims{A: l.Pixels(), B: l.Out, C: l.Reduction()}, calls: int64(batch)})
					f(op{elems: l.unrolled(batch), unroll: true})
				} else {
					g := l.GEMM(batch)
					f(op{gemm: GEMMDims{A: g.B, B: g.A, C: g.C}})
				}
				f(op{elems: int64(batch) * l.Outputs(), act: l.Act, backward: true})
			}
		}
		for range n.WA {
			for _, l := range n.Layers {
				if lw.perSample(l) {
					// dW[Cout x K2] += dY cols^T, cols unrolled again.
					f(op{elems: l.unrolled(batch), unroll: true, bytesPerElem: im2colBytes})
					f(op{gemm: GEMMDims{A: l.Reduction(), B: l.Pixels(), C: l.Out}, calls: int64(batch)})
				} else {
					g := l.GEMM(batch)
					f(op{gemm: GEMMDims{A: g.A, B: g.C, C: g.B}})
				}
				f(op{elems: int64(batch) * l.Outputs()})
			}
		}
		if lw.fused {
			params := n.Params()
			if n.WA > 0 {
				f(op{elems: params, bytesPerElem: fusedAdamBytes})
				f(op{elems: params, bytesPerElem: fusedZeroBytes})
			} else if w.SoftUpdate {
				f(op{elems: params, bytesPerElem: fusedPolyakBytes})
			}
		} else if n.WA > 0 {
			for _, l := range n.Layers {
				for range 2 * adamOps {
					f(op{elems: l.Params() / 2})
				}
			}
		} else if w.SoftUpdate {
			for _, l := range n.Layers {
				for range 2 * softUpdateOps {
					f(op{elems: l.Params() / 2})
				}
			}
		}
	}
	for range w.LossOps + priorityOps {
		f(op{elems: int64(batch)})
	}
}
