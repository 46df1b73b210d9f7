package nn

import "github.com/rlxdev/rlx/core/nn/kernel"

// conv is a 2-D convolution without padding, computed per sample as one
// GEMM on the im2col matrix (003 §2.3): the input patches are unrolled into
// cols[K2×P], K2 = Cin*k*k rows (one per filter tap, in Cin, ky, kx order)
// and P = Hout*Wout columns (one per output position), and
//
//	Y[Cout×P] = W[Cout×K2] cols[K2×P] + b,
//
// whose rows are the output channels: the output is already in C, H, W
// order. W has PyTorch's layout (Cout, Cin, k, k) flattened.
type conv struct {
	inDims, outDims Dims
	k, stride       int
	k2, p           int
	w, b            []float32
	gw, gb          []float32
	ws              *workspace
}

func newConv(in Dims, outChannels, k, stride int, ws *workspace) *conv {
	ho := (in.H-k)/stride + 1
	wo := (in.W-k)/stride + 1
	c := &conv{
		inDims: in, outDims: Dims{outChannels, ho, wo},
		k: k, stride: stride, k2: in.C * k * k, p: ho * wo, ws: ws,
	}
	if need := c.k2 * c.p; len(ws.cols) < need {
		ws.cols = make([]float32, need)
		ws.dcols = make([]float32, need)
	}
	return c
}

func (c *conv) numParams() int { return c.outDims.C*c.k2 + c.outDims.C }
func (c *conv) fanIn() int     { return c.k2 }

func (c *conv) bind(w, g []float32) {
	n := c.outDims.C * c.k2
	c.w, c.b = w[:n], w[n:]
	c.gw, c.gb = g[:n], g[n:]
}

func (c *conv) shape() LayerShape {
	cout := c.outDims.C
	return LayerShape{
		Kind: "conv", In: c.inDims, Out: c.outDims, Kernel: c.k, Stride: c.stride,
		GEMM: [3]int{cout, c.p, c.k2}, MACs: cout * c.p * c.k2, Params: c.numParams(),
	}
}

func (c *conv) forward(y, x []float32, batch int) {
	in, out := c.inDims.Size(), c.outDims.Size()
	cols := c.ws.cols[:c.k2*c.p]
	for s := 0; s < batch; s++ {
		c.im2col(cols, x[s*in:(s+1)*in])
		ys := y[s*out : (s+1)*out]
		for ch, bv := range c.b {
			row := ys[ch*c.p : (ch+1)*c.p]
			for i := range row {
				row[i] = bv
			}
		}
		kernel.Gemm(false, false, c.outDims.C, c.p, c.k2, 1, c.w, c.k2, cols, c.p, 1, ys, c.p)
	}
}

// backward recomputes each sample's cols rather than keeping a batch of them
// (690 KB per sample for the Nature CNN): one unrolling is cheap next to the
// two GEMMs that use it.
func (c *conv) backward(dx, dz, x []float32, batch int, paramGrads bool) {
	in, out := c.inDims.Size(), c.outDims.Size()
	cout := c.outDims.C
	cols := c.ws.cols[:c.k2*c.p]
	dcols := c.ws.dcols[:c.k2*c.p]
	for s := 0; s < batch; s++ {
		dzs := dz[s*out : (s+1)*out]
		if paramGrads {
			c.im2col(cols, x[s*in:(s+1)*in])
			// dW += dZ cols^T; db += row sums of dZ.
			kernel.Gemm(false, true, cout, c.k2, c.p, 1, dzs, c.p, cols, c.p, 1, c.gw, c.k2)
			for ch := range c.gb {
				var sum float32
				for _, v := range dzs[ch*c.p : (ch+1)*c.p] {
					sum += v
				}
				c.gb[ch] += sum
			}
		}
		if dx != nil {
			// dcols = W^T dZ, folded back onto the input positions.
			kernel.Gemm(true, false, c.k2, c.p, cout, 1, c.w, c.k2, dzs, c.p, 0, dcols, c.p)
			dxs := dx[s*in : (s+1)*in]
			clear(dxs)
			c.col2im(dxs, dcols)
		}
	}
}

// im2col unrolls one sample: cols[(ci*k+ky)*k+kx][oy*Wout+ox] =
// x[ci][oy*stride+ky][ox*stride+kx].
func (c *conv) im2col(cols, x []float32) {
	h, w := c.inDims.H, c.inDims.W
	ho, wo := c.outDims.H, c.outDims.W
	row := 0
	for ci := 0; ci < c.inDims.C; ci++ {
		plane := x[ci*h*w : (ci+1)*h*w]
		for ky := 0; ky < c.k; ky++ {
			for kx := 0; kx < c.k; kx++ {
				dst := cols[row*c.p : (row+1)*c.p]
				for oy := 0; oy < ho; oy++ {
					src := plane[(oy*c.stride+ky)*w+kx:]
					d := dst[oy*wo : (oy+1)*wo]
					if c.stride == 1 {
						copy(d, src[:wo])
						continue
					}
					for ox := range d {
						d[ox] = src[ox*c.stride]
					}
				}
				row++
			}
		}
	}
}

// col2im is the adjoint of im2col: it adds every entry of dcols to the
// input position it was copied from.
func (c *conv) col2im(dx, dcols []float32) {
	h, w := c.inDims.H, c.inDims.W
	ho, wo := c.outDims.H, c.outDims.W
	row := 0
	for ci := 0; ci < c.inDims.C; ci++ {
		plane := dx[ci*h*w : (ci+1)*h*w]
		for ky := 0; ky < c.k; ky++ {
			for kx := 0; kx < c.k; kx++ {
				src := dcols[row*c.p : (row+1)*c.p]
				for oy := 0; oy < ho; oy++ {
					d := plane[(oy*c.stride+ky)*w+kx:]
					for ox, v := range src[oy*wo : (oy+1)*wo] {
						d[ox*c.stride] += v
					}
				}
				row++
			}
		}
	}
}

// weights: q is PyTorch's Cout×(Cin*k*k) matrix, our layout too.
func (c *conv) weights() (int, int, func([]float64, float64), []float32) {
	store := func(q []float64, gain float64) {
		for i, v := range q {
			c.w[i] = float32(gain * v)
		}
	}
	return c.outDims.C, c.k2, store, c.b
}
