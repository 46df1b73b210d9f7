package kernel

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

// splitCases exercise the split: both transposes, row and column cuts,
// row and column remainders of every tile path, padded strides, beta 0
// (C holds NaN) and not, k over several blocks, the dot-product path, and
// more rows than a row block.
func splitCases() []gemmCase {
	var cases []gemmCase
	for _, tr := range [4][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		for _, sh := range [][3]int{
			{2, 200, 37},   // dot path when B is transposed: cut by columns
			{3, 77, 300},   // a masked and a scalar column edge, k over two blocks
			{13, 150, 64},  // more columns than rows: cut by columns
			{47, 33, 90},   // more row blocks than column blocks: cut by rows
			{200, 19, 20},  // rows over a row block, narrow C
			{401, 70, 513}, // several row blocks and k blocks
		} {
			for _, beta := range []float32{0, 0.5} {
				cases = append(cases, gemmCase{ta: tr[0], tb: tr[1], m: sh[0], n: sh[1], k: sh[2], alpha: 1.5, beta: beta, pad: 3})
			}
		}
	}
	return cases
}

// TestGemmSplitIsExact checks that the serial call (in row blocks) and a
// split call, on 2 to 4 parties and cut into 2 to 9 chunks (or as many
// aligned blocks as C has), give C bit for bit as the kernel swept over
// the whole matrix at once, for every family, whoever runs the chunks.
func TestGemmSplitIsExact(t *testing.T) {
	for _, im := range families() {
		for ci, g := range splitCases() {
			a, lda, b, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(uint64(ci), 3)))
			want := append([]float32(nil), c...)
			whole := taskFor(im, g, a, lda, b, ldb, want, ldc)
			whole.rows(0, g.m, 0, g.n)
			check := func(how string, got []float32, split gemmTask) {
				t.Helper()
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s %v %s (byRows %v, step %d): C element %d (row %d, column %d) is %v, in one sweep %v",
							im.name, g, how, split.byRows, split.step, i, i/ldc, i%ldc, got[i], want[i])
					}
				}
			}
			got := append([]float32(nil), c...)
			serial := taskFor(im, g, a, lda, b, ldb, got, ldc)
			serial.run(1, false)
			check("serially", got, serial)
			for _, parties := range []int{2, 3, 4} {
				for _, chunks := range []int{2, 3, 5, 9, 1000} {
					got := append([]float32(nil), c...)
					split := taskFor(im, g, a, lda, b, ldb, got, ldc)
					split.split(parties, chunks, true)
					check(fmt.Sprintf("on %d parties in %d chunks", parties, chunks), got, split)
				}
			}
		}
	}
}

// TestGemmColumnRanges checks the ColumnAlign contract through Gemm: the
// product computed in column ranges cut at multiples of ColumnAlign equals
// the whole product bit for bit.
func TestGemmColumnRanges(t *testing.T) {
	for _, im := range families() {
		saved := active
		active = im
		for ci, g := range splitCases() {
			a, lda, b, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(uint64(ci), 4)))
			want := append([]float32(nil), c...)
			Gemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha, a, lda, b, ldb, g.beta, want, ldc)
			for _, width := range []int{ColumnAlign, 3 * ColumnAlign} {
				got := append([]float32(nil), c...)
				for j0 := 0; j0 < g.n; j0 += width {
					j1 := min(j0+width, g.n)
					bj := b[j0:]
					if g.tb {
						bj = b[j0*ldb:]
					}
					Gemm(g.ta, g.tb, g.m, j1-j0, g.k, g.alpha, a, lda, bj, ldb, g.beta, got[j0:], ldc)
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] != got[i] && want[i] != want[i]) {
						t.Fatalf("%s %v in ranges of %d columns: C element %d is %v, whole %v", im.name, g, width, i, got[i], want[i])
					}
				}
			}
		}
		active = saved
	}
}

// TestGemmConcurrent calls Gemm from several goroutines at once on shapes
// large enough to split, each on its own C, and checks every result
// against the same call made alone: concurrent callers share the worker
// pool without waiting on one another or mixing their work. Run it with
// -race too.
func TestGemmConcurrent(t *testing.T) {
	const goroutines, rounds = 6, 4
	type call struct {
		g              gemmCase
		a, b, c0, want []float32
		lda, ldb, ldc  int
	}
	var calls []call
	for i, g := range []gemmCase{
		{m: 128, n: 128, k: 128, alpha: 1, beta: 0},
		{tb: true, m: 160, n: 96, k: 100, alpha: 1, beta: 1},
		{ta: true, m: 64, n: 256, k: 160, alpha: -1, beta: 0.5, pad: 2},
		{tb: true, m: 2, n: 1500, k: 600, alpha: 1, beta: 0}, // dot products, cut by columns
		{m: 512, n: 512, k: 260, alpha: 1, beta: 0},          // above ParallelWakeFlops
	} {
		if 2*float64(g.m*g.n*g.k) < ParallelMinFlops {
			t.Fatalf("%v is below ParallelMinFlops: it would not split", g)
		}
		a, lda, b, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(uint64(i), 5)))
		want := append([]float32(nil), c...)
		serial := taskFor(active, g, a, lda, b, ldb, want, ldc)
		serial.run(1, false)
		calls = append(calls, call{g, a, b, c, want, lda, ldb, ldc})
	}
	var wg sync.WaitGroup
	errs := make(chan string, goroutines*rounds*len(calls))
	for w := range goroutines {
		wg.Go(func() {
			for r := range rounds {
				for ci := range calls {
					cl := calls[(ci+w+r)%len(calls)]
					c := append([]float32(nil), cl.c0...)
					g := cl.g
					Gemm(g.ta, g.tb, g.m, g.n, g.k, g.alpha, cl.a, cl.lda, cl.b, cl.ldb, g.beta, c, cl.ldc)
					for i := range c {
						if math.Float32bits(c[i]) != math.Float32bits(cl.want[i]) && !(c[i] != c[i] && cl.want[i] != cl.want[i]) {
							errs <- fmt.Sprintf("goroutine %d, %v: C element %d is %v, alone %v", w, g, i, c[i], cl.want[i])
							break
						}
					}
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

// TestGemmSplitAllocs checks that a split call allocates nothing and
// starts no goroutine once the pool is warm, counting with the process's
// GOMAXPROCS (testing.AllocsPerRun would set it to 1, where Gemm does not
// split): the split itself on two parties, until a worker has computed a
// chunk of one of the calls counted, and Gemm as it decides.
func TestGemmSplitAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	g := gemmCase{tb: true, m: 128, n: 128, k: 128, alpha: 1, beta: 0}
	a, lda, b, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(1, 6)))
	task := taskFor(active, g, a, lda, b, ldb, c, ldc)
	split := func() { task.run(2, true) }
	gemm := func() { Gemm(g.ta, g.tb, g.m, g.n, g.k, 1, a, lda, b, ldb, 0, c, ldc) }
	split() // start the workers both need
	gemm()
	goroutines := runtime.NumGoroutine()
	multi := runtime.NumCPU() >= 2 && runtime.GOMAXPROCS(0) >= 2
	deadline := time.Now().Add(time.Minute)
	for {
		helped := gemmPool.Helped()
		if got := testalloc.MallocsPerCall(50, split); got != 0 {
			t.Fatalf("a Gemm split on 2 parties allocates %v times per call, want 0", got)
		}
		if !multi || gemmPool.Helped() > helped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no worker computed a chunk of a split Gemm in a minute of calls with GOMAXPROCS %d",
				runtime.GOMAXPROCS(0))
		}
	}
	if got := testalloc.MallocsPerCall(50, gemm); got != 0 {
		t.Errorf("Gemm %v with GOMAXPROCS %d allocates %v times per call, want 0",
			g, runtime.GOMAXPROCS(0), got)
	}
	if now := runtime.NumGoroutine(); now > goroutines {
		t.Errorf("%d goroutines after the calls, %d before: a call starts goroutines", now, goroutines)
	}
}

// taskFor builds the task Gemm would run for a case's operands, so that a
// test or benchmark can run it on a chosen number of goroutines.
func taskFor(im *impl, g gemmCase, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) gemmTask {
	return gemmTask{im: im, path: pathFor(im, g.ta, g.tb, g.m, g.k), transA: g.ta, transB: g.tb,
		m: g.m, n: g.n, k: g.k, alpha: g.alpha, a: a, lda: lda, b: b, ldb: ldb, beta: g.beta, c: c, ldc: ldc}
}

// TestParties checks the decision Gemm and the convolutions share: one
// goroutine below ParallelMinFlops, every core from it, and waking parked
// workers from ParallelWakeFlops.
func TestParties(t *testing.T) {
	all := parallel.Parties()
	for _, c := range []struct {
		flops   float64
		parties int
		wake    bool
	}{
		{0, 1, false},
		{ParallelMinFlops - 1, 1, false},
		{ParallelMinFlops, all, false},
		{ParallelWakeFlops - 1, all, false},
		{ParallelWakeFlops, all, true},
	} {
		if p, w := Parties(c.flops); p != c.parties || w != c.wake {
			t.Errorf("Parties(%g) = %d, %v, want %d, %v", c.flops, p, w, c.parties, c.wake)
		}
	}
}
