package nn

import (
	"github.com/rlxdev/rlx/core/nn/kernel"
	"github.com/rlxdev/rlx/internal/parallel"
)

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
	ws.colSize = max(ws.colSize, c.k2*c.p)
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

// parties returns how many goroutines a pass over batch samples is worth,
// and whether to wake parked workers for it: kernel.Gemm's decision
// (kernel.Parties), taken on the flops of the whole batch's products.
func (c *conv) parties(batch int) (parties int, wake bool) {
	return kernel.Parties(2 * float64(batch) * float64(c.outDims.C*c.p*c.k2))
}

// scratch returns how many im2col matrices and how many of their
// gradients a forward and a backward pass over batch samples use on
// parties goroutines: one per party that may run a sample in forward, and
// in backward one per party that may run a sample's input gradient (the
// chunks of dW share the first matrix, each writing its own rows).
func (c *conv) scratch(parties, batch int) (cols, dcols int) {
	wChunks, _ := c.wSplit(parties)
	return max(1, min(parties, batch)), min(parties, wChunks+batch)
}

// wSplit returns how many chunks of dW's columns a backward pass on
// parties goroutines cuts, and their width, a multiple of
// kernel.ColumnAlign: one chunk per party, at most one per output channel
// (each chunk adds the bias gradients of its share of them).
func (c *conv) wSplit(parties int) (chunks, step int) {
	chunks = 1
	if parties > 1 {
		chunks = min(parties, c.outDims.C, (c.k2+kernel.ColumnAlign-1)/kernel.ColumnAlign)
	}
	step = parallel.Step(c.k2, chunks, kernel.ColumnAlign)
	return (c.k2 + step - 1) / step, step
}

// forward computes the samples independently, one chunk each, every party
// with its own im2col matrix: the result does not depend on who computes
// which sample.
func (c *conv) forward(y, x []float32, batch int) {
	parties, wake := c.parties(batch)
	c.forwardOn(parties, wake, y, x, batch)
}

func (c *conv) forwardOn(parties int, wake bool, y, x []float32, batch int) {
	parties = min(parties, batch)
	c.ws.reserveCols(parties, 0)
	convPool.Run(convTask{c: c, y: y, x: x, batch: batch}, batch, parties, wake, convForward)
}

func convForward(t convTask, s, party int) bool {
	c := t.c
	in, out := c.inDims.Size(), c.outDims.Size()
	cols := c.ws.cols[party][:c.k2*c.p]
	c.im2col(cols, t.x[s*in:(s+1)*in], 0, c.k2)
	ys := t.y[s*out : (s+1)*out]
	for ch, bv := range c.b {
		row := ys[ch*c.p : (ch+1)*c.p]
		for i := range row {
			row[i] = bv
		}
	}
	kernel.Gemm(false, false, c.outDims.C, c.p, c.k2, 1, c.w, c.k2, cols, c.p, 1, ys, c.p)
	return true
}

// backward recomputes each sample's cols rather than keeping a batch of them
// (690 KB per sample for the Nature CNN): one unrolling is cheap next to the
// two GEMMs that use it.
//
// Split across goroutines, the parameter gradients are cut by columns of
// dW (filter taps) and the input gradient by samples. A chunk of dW's
// columns [j0, j1) runs over every sample in order, unrolling only its
// rows of cols, so each weight gradient is summed over the batch in the
// serial order; with j0 a multiple of kernel.ColumnAlign, each sample's
// product over that range is the whole product's, bit for bit. The same
// chunk adds up the bias gradients of its share of the channels. The input
// gradient of a sample needs nothing from the other samples.
func (c *conv) backward(dx, dz, x []float32, batch int, paramGrads bool) {
	parties, wake := c.parties(batch)
	c.backwardOn(parties, wake, dx, dz, x, batch, paramGrads)
}

func (c *conv) backwardOn(parties int, wake bool, dx, dz, x []float32, batch int, paramGrads bool) {
	t := convTask{c: c, x: x, dz: dz, dx: dx, batch: batch}
	if paramGrads {
		t.wChunks, t.wStep = c.wSplit(parties)
	}
	chunks, dcols := t.wChunks, 0
	if dx != nil {
		chunks += batch
		dcols = min(parties, chunks) // one per party that may run a sample
	}
	c.ws.reserveCols(1, dcols)
	convPool.Run(t, chunks, min(parties, chunks), wake, convBackward)
}

// convBackward computes chunk i of a backward pass: the first wChunks are
// column ranges of dW (and channel ranges of db), the rest are samples of
// dx.
func convBackward(t convTask, i, party int) bool {
	c := t.c
	in, out := c.inDims.Size(), c.outDims.Size()
	cout := c.outDims.C
	if i < t.wChunks {
		j0, j1 := i*t.wStep, min((i+1)*t.wStep, c.k2)
		ch0, ch1 := i*cout/t.wChunks, (i+1)*cout/t.wChunks
		cols := c.ws.cols[0][:c.k2*c.p] // chunks write disjoint rows
		for s := range t.batch {
			dzs := t.dz[s*out : (s+1)*out]
			c.im2col(cols, t.x[s*in:(s+1)*in], j0, j1)
			// dW += dZ cols^T; db += row sums of dZ.
			kernel.Gemm(false, true, cout, j1-j0, c.p, 1, dzs, c.p, cols[j0*c.p:], c.p, 1, c.gw[j0:], c.k2)
			for ch := ch0; ch < ch1; ch++ {
				var sum float32
				for _, v := range dzs[ch*c.p : (ch+1)*c.p] {
					sum += v
				}
				c.gb[ch] += sum
			}
		}
		return true
	}
	// dcols = W^T dZ, folded back onto the input positions.
	s := i - t.wChunks
	dcols := c.ws.dcols[party][:c.k2*c.p]
	kernel.Gemm(true, false, c.k2, c.p, cout, 1, c.w, c.k2, t.dz[s*out:(s+1)*out], c.p, 0, dcols, c.p)
	dxs := t.dx[s*in : (s+1)*in]
	clear(dxs)
	c.col2im(dxs, dcols)
	return true
}

// convTask is one pass of a convolution over a batch.
type convTask struct {
	c            *conv
	x, y, dz, dx []float32
	batch        int
	// wChunks ranges of wStep columns of dW (backward with parameter
	// gradients).
	wChunks, wStep int
}

// convPool runs the chunks of convolutions split across goroutines.
var convPool = parallel.NewPool[convTask]()

// im2col unrolls rows [r0, r1) of one sample's im2col matrix:
// cols[(ci*k+ky)*k+kx][oy*Wout+ox] = x[ci][oy*stride+ky][ox*stride+kx].
//
// Where filter taps overlap (kernel > stride), most rows repeat another:
// the row of tap (ky, kx) is the row of (ky-stride, kx) moved up by one
// output row, and, within an output row, the row of (ky, kx-stride) moved
// left by one column. Those rows are copied from the earlier one (when it
// lies in [r0, r1)), with only the last output row or column gathered
// from x; the strided gather, the slow part, runs on the others alone. For
// the Nature CNN's first layer (8x8 taps, stride 4) that is a quarter of
// the rows.
func (c *conv) im2col(cols, x []float32, r0, r1 int) {
	h, w := c.inDims.H, c.inDims.W
	ho, wo, s, k, p := c.outDims.H, c.outDims.W, c.stride, c.k, c.p
	kk := k * k
	for row := r0; row < r1; row++ {
		ci, ky, kx := row/kk, row%kk/k, row%k
		plane := x[ci*h*w : (ci+1)*h*w]
		dst := cols[row*p : (row+1)*p]
		switch up, left := row-s*k, row-s; {
		case ky >= s && up >= r0:
			copy(dst[:(ho-1)*wo], cols[up*p+wo:(up+1)*p])
			gather(dst[(ho-1)*wo:], plane[((ho-1)*s+ky)*w+kx:], s)
		case kx >= s && left >= r0:
			src := cols[left*p : (left+1)*p]
			for oy := 0; oy < ho; oy++ {
				d := dst[oy*wo : (oy+1)*wo]
				copy(d, src[oy*wo+1:(oy+1)*wo])
				d[wo-1] = plane[(oy*s+ky)*w+kx+(wo-1)*s]
			}
		default:
			for oy := 0; oy < ho; oy++ {
				gather(dst[oy*wo:(oy+1)*wo], plane[(oy*s+ky)*w+kx:], s)
			}
		}
	}
}

// gather sets dst[i] = src[i*stride].
func gather(dst, src []float32, stride int) {
	if stride == 1 {
		copy(dst, src)
		return
	}
	for i := range dst {
		dst[i] = src[i*stride]
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
