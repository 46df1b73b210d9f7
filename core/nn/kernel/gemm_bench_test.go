package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// BenchmarkGemm runs the GEMM shapes of PPO's 64-64 MLPs side by side for
// every implementation: the naive triple loop, gonum's pure-Go/assembly
// blas32, this package's portable kernel and (where the processor has it) its
// AVX2/FMA kernel. Each reports GFLOP/s (2*m*n*k per call). Run with -cpu 1
// for one-core figures:
//
//	go test -run '^$' -bench Gemm -cpu 1 -count 5 ./core/nn/kernel/
//
// Shapes: fwd is a dense layer forward, Y[b×64] = X[b×64] W[64×64] (NN);
// dx is the input gradient dX = dY W^T (NT); dw is the weight gradient
// dW = X^T dY (TN, k = batch).
func BenchmarkGemm(b *testing.B) {
	type shape struct {
		name    string
		ta, tb  bool
		m, n, k int
	}
	var shapes []shape
	for _, batch := range []int{1, 4, 32, 128, 512} {
		shapes = append(shapes,
			shape{fmt.Sprintf("fwd/b=%d", batch), false, false, batch, 64, 64},
			shape{fmt.Sprintf("dx/b=%d", batch), false, true, batch, 64, 64},
			shape{fmt.Sprintf("dw/b=%d", batch), true, false, 64, 64, batch},
		)
	}
	type variant struct {
		name string
		run  func(ta, tb bool, m, n, k int, a []float32, lda int, bb []float32, ldb int, c []float32, ldc int)
	}
	trans := func(t bool) blas.Transpose {
		if t {
			return blas.Trans
		}
		return blas.NoTrans
	}
	variants := []variant{
		{"naive", func(ta, tb bool, m, n, k int, a []float32, lda int, bb []float32, ldb int, c []float32, ldc int) {
			GemmNaive(ta, tb, m, n, k, 1, a, lda, bb, ldb, 0, c, ldc)
		}},
		{"gonum", func(ta, tb bool, m, n, k int, a []float32, lda int, bb []float32, ldb int, c []float32, ldc int) {
			gonum.Implementation{}.Sgemm(trans(ta), trans(tb), m, n, k, 1, a, lda, bb, ldb, 0, c, ldc)
		}},
	}
	for _, im := range families() {
		im := im
		variants = append(variants, variant{im.name, func(ta, tb bool, m, n, k int, a []float32, lda int, bb []float32, ldb int, c []float32, ldc int) {
			saved := active
			active = im
			Gemm(ta, tb, m, n, k, 1, a, lda, bb, ldb, 0, c, ldc)
			active = saved
		}})
	}
	for _, s := range shapes {
		g := gemmCase{ta: s.ta, tb: s.tb, m: s.m, n: s.n, k: s.k, alpha: 1}
		a, lda, bb, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(1, 1)))
		flops := 2 * float64(s.m*s.n*s.k)
		for _, v := range variants {
			b.Run(s.name+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					v.run(s.ta, s.tb, s.m, s.n, s.k, a, lda, bb, ldb, c, ldc)
				}
				b.ReportMetric(flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
			})
		}
	}
}
