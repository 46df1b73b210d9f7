package nn

import "github.com/rlxdev/rlx/core/nn/kernel"

// dense is a fully connected layer. Its weights are stored in×out, row p
// holding the out weights of input p, so that the forward product of a batch
// is X[b×in] W[in×out], a GEMM with both operands read in place (the
// transpose of PyTorch's out×in layout). The bias follows the weights.
type dense struct {
	in, out int
	inDims  Dims
	w, b    []float32
	gw, gb  []float32
	ws      *workspace
}

func (d *dense) numParams() int { return d.in*d.out + d.out }
func (d *dense) fanIn() int     { return d.in }

func (d *dense) bind(w, g []float32) {
	d.w, d.b = w[:d.in*d.out], w[d.in*d.out:]
	d.gw, d.gb = g[:d.in*d.out], g[d.in*d.out:]
}

func (d *dense) shape() LayerShape {
	return LayerShape{
		Kind: "dense", In: d.inDims, Out: Dims{d.out, 1, 1},
		GEMM: [3]int{1, d.out, d.in}, MACs: d.in * d.out, Params: d.numParams(),
	}
}

// forward: Y = 1 b^T + X W. The bias rows are copied in first and the GEMM
// accumulates onto them (beta = 1).
func (d *dense) forward(y, x []float32, batch int) {
	for i := 0; i < batch; i++ {
		copy(y[i*d.out:(i+1)*d.out], d.b)
	}
	kernel.Gemm(false, false, batch, d.out, d.in, 1, x, d.in, d.w, d.out, 1, y, d.out)
}

// backward: dW += X^T dZ, db += 1^T dZ (a GEMM with a row of ones, so the
// column sums use the vector kernel too), dX = dZ W^T.
func (d *dense) backward(dx, dz, x []float32, batch int, paramGrads bool) {
	if paramGrads {
		kernel.Gemm(true, false, d.in, d.out, batch, 1, x, d.in, dz, d.out, 1, d.gw, d.out)
		kernel.Gemm(false, false, 1, d.out, batch, 1, d.ws.ones[:batch], batch, dz, d.out, 1, d.gb, d.out)
	}
	if dx != nil {
		kernel.Gemm(false, true, batch, d.in, d.out, 1, dz, d.out, d.w, d.out, 0, dx, d.in)
	}
}

// weights: q is PyTorch's out×in matrix; store its transpose times gain.
func (d *dense) weights() (int, int, func([]float64, float64), []float32) {
	store := func(q []float64, gain float64) {
		for o := 0; o < d.out; o++ {
			for i := 0; i < d.in; i++ {
				d.w[i*d.out+o] = float32(gain * q[o*d.in+i])
			}
		}
	}
	return d.out, d.in, store, d.b
}

// scaleLayer multiplies by a constant; it has no parameters.
type scaleLayer struct {
	dims   Dims
	factor float32
}

func (s *scaleLayer) numParams() int      { return 0 }
func (s *scaleLayer) fanIn() int          { return 1 }
func (s *scaleLayer) bind(_, _ []float32) {}

func (s *scaleLayer) shape() LayerShape {
	return LayerShape{Kind: "scale", In: s.dims, Out: s.dims}
}

func (s *scaleLayer) forward(y, x []float32, batch int) { scale(y, x[:len(y)], s.factor) }

func (s *scaleLayer) backward(dx, dz, _ []float32, _ int, _ bool) {
	if dx == nil {
		return
	}
	scale(dx, dz[:len(dx)], s.factor)
}

func (s *scaleLayer) weights() (int, int, func([]float64, float64), []float32) {
	return 0, 0, func([]float64, float64) {}, nil
}
