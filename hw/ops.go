package hw

// Framework ops of one training step, as PyTorch runs them on a CPU or a GPU
// (000 §IV-B2). A GEMM op carries its dimensions; an elementwise op the
// number of fp32 elements it reads and writes.
type op struct {
	gemm  GEMMDims // zero for an elementwise op
	elems int64    // elements touched by an elementwise op
	// bytesPerElem is the memory traffic of an elementwise op per element:
	// 0 means elementwiseBytes (two reads and a write of fp32).
	bytesPerElem int
}

// elementwiseBytes is the traffic of an elementwise op per element: two
// fp32 operands read and one written.
const elementwiseBytes = 12

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

// forEachOp calls f for every framework op of one gradient step on batch
// samples. Per layer: a forward pass is a GEMM plus an activation; an
// input-gradient pass (layers 2..L) a GEMM plus the activation derivative; a
// weight-gradient pass a GEMM plus a bias reduction. Trained nets then run
// Adam on their two tensors per layer; target nets get Polyak updates when
// the algorithm uses them. With fused, each net's optimizer is one Adam
// kernel and one zeroing pass over all its parameters, and a Polyak update
// one kernel per target net (FusedOptimizer). f must not retain the op.
func forEachOp(w *Workload, batch int, fused bool, f func(op)) {
	for _, n := range w.Nets {
		for range n.FW {
			for _, l := range n.Layers {
				f(op{gemm: l.GEMM(batch)})
				f(op{elems: int64(batch) * l.Outputs()})
			}
		}
		for range n.BW {
			for i, l := range n.Layers {
				if i == 0 {
					continue
				}
				g := l.GEMM(batch)
				f(op{gemm: GEMMDims{A: g.B, B: g.A, C: g.C}})
				f(op{elems: int64(batch) * l.Outputs()})
			}
		}
		for range n.WA {
			for _, l := range n.Layers {
				g := l.GEMM(batch)
				f(op{gemm: GEMMDims{A: g.A, B: g.C, C: g.B}})
				f(op{elems: int64(batch) * l.Outputs()})
			}
		}
		if fused {
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
