package gae

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// reportElements adds elements per second, the unit of 004 and of `rlx
// bench gae`, to a benchmark.
func reportElements(b *testing.B, perOp int) {
	b.ReportMetric(float64(perOp)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
}

// BenchmarkCompute sweeps the target shapes with every kernel this machine
// runs; the first kernel is the one Compute picks.
func BenchmarkCompute(b *testing.B) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, sh := range benchShapes {
		T, N := sh[0], sh[1]
		r := randomRollout(rng, T, N, 0.01, 0.01)
		adv, ret := make([]float32, T*N), make([]float32, T*N)
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%v/%dx%d", k, T, N), func(b *testing.B) {
				b.ReportAllocs()
				withKernel(k, func() {
					for b.Loop() {
						if err := Compute(adv, ret, r, 0.99, 0.95); err != nil {
							b.Fatal(err)
						}
					}
				})
				reportElements(b, T*N)
			})
		}
	}
}

func BenchmarkComputeInPlace(b *testing.B) {
	rng := rand.New(rand.NewPCG(63, 64))
	for _, sh := range benchShapes {
		T, N := sh[0], sh[1]
		r := randomRollout(rng, T, N, 0.01, 0.01)
		b.Run(fmt.Sprintf("%dx%d", T, N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// The outputs feed the next call. With gamma 0 they cycle
				// through sums of the inputs and stay finite; the kernels
				// do the same work for any gamma.
				if err := Compute(r.Rewards, r.Values, r, 0, 0); err != nil {
					b.Fatal(err)
				}
			}
			reportElements(b, T*N)
		})
	}
}

func BenchmarkComputeLookahead(b *testing.B) {
	rng := rand.New(rand.NewPCG(65, 66))
	T, N := 1024, 64
	r := randomRollout(rng, T, N, 0.01, 0.01)
	adv, ret := make([]float32, T*N), make([]float32, T*N)
	for _, k := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("k=%d/%dx%d", k, T, N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := ComputeLookahead(adv, ret, r, 0.99, 0.95, k); err != nil {
					b.Fatal(err)
				}
			}
			reportElements(b, T*N)
		})
	}
}

func BenchmarkReference(b *testing.B) {
	rng := rand.New(rand.NewPCG(67, 68))
	T, N := 1024, 64
	r := randomRollout(rng, T, N, 0.01, 0.01)
	adv, ret := make([]float64, T*N), make([]float64, T*N)
	b.ReportAllocs()
	for b.Loop() {
		if err := Reference(adv, ret, r, 0.99, 0.95); err != nil {
			b.Fatal(err)
		}
	}
	reportElements(b, T*N)
}

// BenchmarkEstimate measures the numerics of 004 §II around GAE: the
// statistics pass, the quantization pass and the fused kernel.
func BenchmarkEstimate(b *testing.B) {
	rng := rand.New(rand.NewPCG(69, 70))
	T, N := 1024, 64
	r := randomRollout(rng, T, N, 0.01, 0.01)
	for n := 1; n <= 5; n++ {
		opt, _ := Experiment(n)
		e, err := NewEstimator(T, N, opt)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("experiment%d/%dx%d", n, T, N), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.Estimate(r, 0.99, 0.95); err != nil {
					b.Fatal(err)
				}
			}
			reportElements(b, T*N)
		})
	}
}
