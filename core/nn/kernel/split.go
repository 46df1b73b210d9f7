package kernel

import "github.com/rlxdev/rlx/internal/parallel"

// ParallelMinFlops is the size, in flops (2*m*n*k), from which Gemm splits
// C across cores, handing chunks to workers that are awake (from a
// previous job). Below it a call runs on the calling goroutine. Measured
// with BenchmarkGemmSplit on 2 cores (docs/nn.md has the table): with the
// caller rewriting A before each call and reading C after, as a network's
// layers do, the split lost up to 64x64x64 (5.2e5 flops; 8.7 µs on one
// core, 12.8 on two) and won from 96x96x96 or 128x128x128 (1.8e6: 28 µs
// against 20 in one run, lost in another; 4.2e6: 58 against 46), so the
// crossover lies between 5e5 and 4e6.
const ParallelMinFlops = 1 << 21

// ParallelWakeFlops is the size from which Gemm also wakes parked workers.
// A wake-up costs far more than a hand-off: on a virtual machine whose
// idle CPU has halted, the woken thread may first share the caller's CPU,
// for up to a millisecond or two. Measured with BenchmarkGemmSplit's
// after-pause cases on 2 cores: a split after a pause took 1.4 ms against
// 0.33 on one core at 256x256x256 (3.4e7 flops), broke even at 384x384x384
// (1.1e8: 1.36 ms against 1.33) and won from 448x448x448 (1.8e8: 1.98
// against 2.13; 512: 2.70 against 3.22).
const ParallelWakeFlops = 1 << 27

// ColumnAlign is the column granularity at which a GEMM can be cut
// without changing a bit of C. Gemm on columns [j0, j1) of C alone (B and
// C offset by j0, n = j1-j0) gives those columns exactly as the call over
// all n columns does, provided j0 is a multiple of ColumnAlign and j1 is
// too or is n. It is a multiple of every family's tile widths (16 and 8
// for avx2-fma, 4 for purego) and of the 4 rows of B a dot-product step
// takes, so that each column of C falls in a tile of the same width, and
// is summed in the same order, either way. Gemm's own split relies on it,
// and so do callers that cut a product by columns across goroutines.
const ColumnAlign = 16

// gemmPool runs the chunks of split calls.
var gemmPool = parallel.NewPool[gemmTask]()

// Parties returns how many goroutines a computation of flops floating
// point operations is worth by Gemm's measured thresholds: 1 below
// ParallelMinFlops, else every core (parallel.Parties); and whether it is
// worth waking parked workers for it (from ParallelWakeFlops). Gemm
// decides by it, and so do callers that split products of their own (the
// convolutions of core/nn, by the flops of a whole batch).
func Parties(flops float64) (parties int, wake bool) {
	if flops < ParallelMinFlops {
		return 1, false
	}
	return parallel.Parties(), flops >= ParallelWakeFlops
}

// parties returns how many goroutines the call is worth and whether to
// wake parked workers: by Parties, and at most one per aligned block of C.
func (t *gemmTask) parties() (parties int, wake bool) {
	parties, wake = Parties(t.flops())
	rows, cols := t.units()
	return min(parties, max(rows, cols)), wake
}

// units returns how many aligned row blocks (of the tile rows) and column
// blocks (of ColumnAlign) C can be cut into. The dot-product path is cut only
// by columns: its rows are fewer than a tile.
func (t *gemmTask) units() (rows, cols int) {
	rows = (t.m + t.im.mr - 1) / t.im.mr
	if t.path == pathDot {
		rows = 1
	}
	return rows, (t.n + ColumnAlign - 1) / ColumnAlign
}

// run computes the call on up to parties goroutines: on the calling one
// alone when parties <= 1, else cut into one chunk per party, waking
// parked workers if wake is set.
func (t *gemmTask) run(parties int, wake bool) {
	if parties <= 1 {
		t.block(0, t.m, 0, t.n)
		return
	}
	t.split(parties, parties, wake)
}

func (t *gemmTask) flops() float64 { return 2 * float64(t.m) * float64(t.n) * float64(t.k) }

// split cuts C along the dimension with more aligned blocks into at most
// chunks chunks, which the calling goroutine and up to parties-1 idle
// workers claim (parked ones too when wake is set). Each element of C is
// computed by one chunk, with the whole k, in the order of the serial
// kernel: the result does not depend on the split.
//
// One chunk per party, not several: more chunks balance a late worker
// better, but a chunk re-reads the operand it does not cut (all of B for
// a chunk of rows), and at the sizes just above ParallelMinFlops that
// costs more than the balance gives (measured: 64x64x64 ran 1.7x faster
// than on one core in two chunks, slower than on one core in eight).
func (t *gemmTask) split(parties, chunks int, wake bool) {
	rows, cols := t.units()
	units, unit, extent := cols, ColumnAlign, t.n
	t.byRows = rows > cols
	if t.byRows {
		units, unit, extent = rows, t.im.mr, t.m
	}
	t.step = parallel.Step(extent, max(1, min(units, chunks)), unit)
	gemmPool.Run(*t, (extent+t.step-1)/t.step, parties, wake, gemmChunk)
}

// gemmChunk computes chunk i of a split call.
func gemmChunk(t gemmTask, i, _ int) bool {
	if t.byRows {
		t.block(i*t.step, min((i+1)*t.step, t.m), 0, t.n)
	} else {
		t.block(0, t.m, i*t.step, min((i+1)*t.step, t.n))
	}
	return true
}
