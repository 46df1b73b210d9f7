package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/parallel"
	"github.com/rlxdev/rlx/internal/testalloc"
)

// convLayer builds a network around one convolution and returns the layer
// with random weights; the network's workspace serves the layer.
func convLayer(t *testing.T, in Dims, out, k, stride int, rng *rand.Rand) *conv {
	t.Helper()
	n, err := NewNet(in, Conv(out, k, stride, Identity))
	if err != nil {
		t.Fatal(err)
	}
	n.InitPyTorch(rng)
	return n.layers[0].(*conv)
}

func sameBits(x, y []float32) int {
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			return i
		}
	}
	return -1
}

// TestConvSplitIsExact checks that a convolution split across 2 to 4
// parties gives its output, weight and bias gradients and input gradient
// bit for bit as on one goroutine: samples computed by different parties,
// dW cut by columns at multiples of kernel.ColumnAlign (filter-tap counts
// that are and are not multiples of it), db cut by channels.
func TestConvSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range []struct {
		in             Dims
		out, k, stride int
		batch          int
	}{
		{Dims{4, 20, 20}, 8, 8, 4, 5},  // Nature conv1 in small: 256 taps
		{Dims{6, 11, 11}, 16, 4, 2, 3}, // 96 taps
		{Dims{5, 9, 9}, 7, 3, 1, 4},    // 45 taps, stride 1
		{Dims{3, 7, 7}, 3, 3, 1, 1},    // 27 taps, one sample
	} {
		c := convLayer(t, sh.in, sh.out, sh.k, sh.stride, rng)
		in, out := c.inDims.Size(), c.outDims.Size()
		x := randn32(rng, sh.batch*in, 1)
		dz := randn32(rng, sh.batch*out, 1)
		run := func(parties int) (y, gw, gb, dx []float32) {
			y, dx = make([]float32, sh.batch*out), make([]float32, sh.batch*in)
			c.forwardOn(parties, true, y, x, sh.batch)
			for i := range c.gw {
				c.gw[i] = 0.25 // accumulated onto, as Backward does
			}
			clear(c.gb)
			c.backwardOn(parties, true, dx, dz, x, sh.batch, true)
			return y, append([]float32(nil), c.gw...), append([]float32(nil), c.gb...), dx
		}
		y1, gw1, gb1, dx1 := run(1)
		for parties := 2; parties <= 4; parties++ {
			y, gw, gb, dx := run(parties)
			for _, r := range []struct {
				name      string
				got, want []float32
			}{{"output", y, y1}, {"dW", gw, gw1}, {"db", gb, gb1}, {"dx", dx, dx1}} {
				if i := sameBits(r.got, r.want); i >= 0 {
					t.Fatalf("conv %v -> %d k%d s%d, batch %d, %d parties: %s[%d] = %v, on one goroutine %v",
						sh.in, sh.out, sh.k, sh.stride, sh.batch, parties, r.name, i, r.got[i], r.want[i])
				}
			}
		}
	}
}

// TestConvSplitAllocs checks that a convolution split on two parties,
// forward and backward, allocates nothing once its parties' buffers exist,
// counting with the process's GOMAXPROCS (testing.AllocsPerRun would set
// it to 1, where the workers rarely get to run a chunk), until a worker
// has computed chunks of the calls counted.
func TestConvSplitAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	c := convLayer(t, Dims{4, 20, 20}, 8, 8, 4, rng)
	const batch = 6
	x := randn32(rng, batch*c.inDims.Size(), 1)
	y, dz := make([]float32, batch*c.outDims.Size()), randn32(rng, batch*c.outDims.Size(), 1)
	dx := make([]float32, len(x))
	step := func() {
		c.forwardOn(2, true, y, x, batch)
		c.backwardOn(2, true, dx, dz, x, batch, true)
	}
	step()
	multi := runtime.NumCPU() >= 2 && runtime.GOMAXPROCS(0) >= 2
	deadline := time.Now().Add(time.Minute)
	for {
		helped := convPool.Helped()
		if allocs := testalloc.MallocsPerCall(20, step); allocs != 0 {
			t.Fatalf("a split convolution allocates %v times per forward and backward, want 0", allocs)
		}
		if !multi || convPool.Helped() > helped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no worker computed a chunk of a split convolution in a minute of calls with GOMAXPROCS %d",
				runtime.GOMAXPROCS(0))
		}
	}
}

// TestReserveFirstStepAllocs checks that after Reserve the first Forward
// and Backward allocate nothing, once the worker pool is warm: the
// convolutions' im2col buffers and their gradients are reserved for the
// parties each will use, and no more (a convolution that stays on one
// goroutine gets one of each). Each round builds a fresh net, so that an
// allocation Reserve misses shows in every round, while the runtime's own
// background allocations do not.
func TestReserveFirstStepAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	// The first convolution splits (4.2e6 flops at batch 8), the second
	// does not (1.3e6) and computes an input gradient.
	specs := []LayerSpec{Scale(0.5), Conv(16, 8, 4, ReLU), Conv(16, 3, 1, ReLU), Dense(5, Identity)}
	const batch = 8
	build := func() *Net {
		n, err := NewNet(Dims{4, 36, 36}, specs...)
		if err != nil {
			t.Fatal(err)
		}
		n.InitPyTorch(rng)
		return n
	}
	x := randn32(rng, batch*4*36*36, 1)
	dy := randn32(rng, batch*5, 1)
	y, dx := make([]float32, len(dy)), make([]float32, len(x))
	warm := build() // starts the workers
	warm.Forward(y, x)
	warm.Backward(dx, dy)
	first, second := build().layers[1].(*conv), build().layers[2].(*conv)
	if p, _ := first.parties(batch); p != parallel.Parties() {
		t.Fatalf("the first convolution uses %d parties at batch %d, want %d",
			p, batch, parallel.Parties())
	}
	if p, _ := second.parties(batch); p != 1 {
		t.Fatalf("the second convolution uses %d parties at batch %d, want 1", p, batch)
	}
	best := math.Inf(1)
	for range 5 {
		n := build()
		n.Reserve(batch)
		// The first convolution's: a matrix per party that runs samples
		// forward, a gradient per party that may run a sample backward
		// (its 16 channels and 256 taps allow 16 chunks of dW).
		p := parallel.Parties()
		wantCols, wantDcols := min(p, batch), min(p, min(p, 16)+batch)
		if len(n.ws.cols) != wantCols || len(n.ws.dcols) != wantDcols {
			t.Fatalf("Reserve(%d) made %d im2col buffers and %d gradients, want %d and %d",
				batch, len(n.ws.cols), len(n.ws.dcols), wantCols, wantDcols)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		n.Forward(y, x)
		n.Backward(dx, dy)
		runtime.ReadMemStats(&after)
		best = min(best, float64(after.Mallocs-before.Mallocs))
		if best == 0 {
			break
		}
	}
	if best != 0 {
		t.Errorf("the first Forward and Backward after Reserve(%d) allocate %v times, want 0",
			batch, best)
	}
	small, err := NewNet(Dims{4, 36, 36}, Conv(16, 8, 4, ReLU), Conv(16, 3, 1, ReLU))
	if err != nil {
		t.Fatal(err)
	}
	small.Reserve(3) // 1.6e6 flops: no convolution splits
	if len(small.ws.cols) != 1 || len(small.ws.dcols) != 1 {
		t.Errorf("Reserve(3) made %d im2col buffers and %d gradients for convolutions "+
			"on one goroutine, want 1 of each", len(small.ws.cols), len(small.ws.dcols))
	}
}

// TestNetsConcurrent trains clones of a ConvNet large enough to split
// from several goroutines at once: the nets share the worker pool and
// must get the results each gets alone. Run it with -race too.
func TestNetsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	proto, err := NewNet(Dims{4, 36, 36}, Scale(0.5), Conv(16, 8, 4, ReLU), Conv(16, 3, 1, ReLU), Dense(5, Identity))
	if err != nil {
		t.Fatal(err)
	}
	proto.InitPyTorch(rng)
	const batch, goroutines = 8, 4
	x := randn32(rng, batch*proto.In().Size(), 1)
	dy := randn32(rng, batch*proto.Out().Size(), 1)
	step := func(n *Net) (y, grads []float32) {
		y = make([]float32, len(dy))
		n.ZeroGrad()
		n.Forward(y, x)
		n.Backward(nil, dy)
		return y, append([]float32(nil), n.Grads()...)
	}
	wantY, wantG := step(proto.Clone())
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		n := proto.Clone()
		wg.Go(func() {
			for r := range 3 {
				y, grads := step(n)
				if i := sameBits(y, wantY); i >= 0 {
					errs <- fmt.Sprintf("goroutine %d round %d: output %d is %v, alone %v", g, r, i, y[i], wantY[i])
					return
				}
				if i := sameBits(grads, wantG); i >= 0 {
					errs <- fmt.Sprintf("goroutine %d round %d: gradient %d is %v, alone %v", g, r, i, grads[i], wantG[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestNetSameBitsAnyGOMAXPROCS trains a ConvNet whose convolutions,
// products and element-wise passes split, with GOMAXPROCS changed between
// the steps: the output, the gradients and the input gradient must not
// change by a bit.
func TestNetSameBitsAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(23, 24))
	n, err := NewNet(Dims{4, 36, 36}, Scale(0.5), Conv(16, 8, 4, ReLU), Conv(16, 3, 1, ReLU),
		Dense(600, ReLU), Dense(5, Identity))
	if err != nil {
		t.Fatal(err)
	}
	n.InitPyTorch(rng)
	const batch = 16 // 8.3e4 input values: the scaling splits too
	x := randn32(rng, batch*n.In().Size(), 1)
	dy := randn32(rng, batch*n.Out().Size(), 1)
	var want [3][]float32
	for i, procs := range []int{1, 2, 1, 4, 3, 2} {
		runtime.GOMAXPROCS(procs)
		y, dx := make([]float32, len(dy)), make([]float32, len(x))
		n.ZeroGrad()
		n.Forward(y, x)
		n.Backward(dx, dy)
		got := [3][]float32{y, append([]float32(nil), n.Grads()...), dx}
		if i == 0 {
			want = got
			continue
		}
		for k, name := range []string{"output", "gradient", "input gradient"} {
			if j := sameBits(got[k], want[k]); j >= 0 {
				t.Fatalf("GOMAXPROCS %d: %s %d is %v, with GOMAXPROCS 1 %v",
					procs, name, j, got[k][j], want[k][j])
			}
		}
	}
}

// TestElementSplitIsExact checks that the element-wise passes give the
// same bits split across 2 to 4 parties as in one pass: tanh (whose vector
// and scalar forms may differ in the last bit), its derivative, ReLU's and
// the scaling, on a length with a scalar tail.
func TestElementSplitIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const n = splitElements + 13
	x, y := randn32(rng, n, 2), randn32(rng, n, 1)
	for _, task := range []elementTask{
		{op: opActivate, act: Tanh},
		{op: opActivate, act: ReLU},
		{op: opDerivative, act: Tanh, x: x, y: y},
		{op: opDerivative, act: ReLU, x: x, y: y},
		{op: opScale, x: x, factor: 1.0 / 255},
	} {
		var want []float32
		for parties := 1; parties <= 4; parties++ {
			task.dst = append([]float32(nil), y...)
			task.run(parties)
			if parties == 1 {
				want = task.dst
				continue
			}
			if i := sameBits(task.dst, want); i >= 0 {
				t.Fatalf("op %d %v on %d parties: element %d is %v, in one pass %v", task.op, task.act, parties, i, task.dst[i], want[i])
			}
		}
	}
}

// TestIm2col checks the unrolling against its definition, for the whole
// matrix and for row ranges that cut the rows it copies from, with
// kernels larger than, equal to and smaller than the stride and
// rectangular inputs.
func TestIm2col(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	for _, sh := range []struct {
		in        Dims
		k, stride int
	}{
		{Dims{4, 84, 84}, 8, 4}, {Dims{3, 20, 17}, 4, 2}, {Dims{2, 9, 11}, 3, 1},
		{Dims{2, 12, 12}, 2, 2}, {Dims{3, 13, 10}, 2, 3}, {Dims{2, 15, 15}, 5, 2},
	} {
		c := convLayer(t, sh.in, 2, sh.k, sh.stride, rng)
		x := randn32(rng, c.inDims.Size(), 1)
		h, w := c.inDims.H, c.inDims.W
		want := make([]float32, c.k2*c.p)
		for ci := 0; ci < c.inDims.C; ci++ {
			for ky := 0; ky < c.k; ky++ {
				for kx := 0; kx < c.k; kx++ {
					for oy := 0; oy < c.outDims.H; oy++ {
						for ox := 0; ox < c.outDims.W; ox++ {
							want[((ci*c.k+ky)*c.k+kx)*c.p+oy*c.outDims.W+ox] = x[ci*h*w+(oy*c.stride+ky)*w+ox*c.stride+kx]
						}
					}
				}
			}
		}
		for _, r := range [][2]int{{0, c.k2}, {1, c.k2}, {c.k + 1, c.k2 - 3}, {c.k2 / 2, c.k2/2 + 1}} {
			got := make([]float32, c.k2*c.p)
			c.im2col(got, x, r[0], r[1])
			for i := range got {
				if row := i / c.p; row >= r[0] && row < r[1] && got[i] != want[i] || (row < r[0] || row >= r[1]) && got[i] != 0 {
					t.Fatalf("%v k%d s%d rows [%d, %d): element %d (row %d) is %v, want %v", sh.in, sh.k, sh.stride, r[0], r[1], i, row, got[i], want[i])
				}
			}
		}
	}
}
