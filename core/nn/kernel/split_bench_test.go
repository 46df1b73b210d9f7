package kernel

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/parallel"
)

// BenchmarkGemmSplit runs square GEMMs of growing size, and the shapes of
// the Nature CNN (per sample, batch 32) and of a 256-256 DDPG learner at
// batch 16384, on the calling goroutine alone (serial) and split over
// every core (parallel), whatever their size. Run it with -cpu 2 (or the
// machine's cores); it reports GFLOP/s (2*m*n*k per call).
//
// The square sizes run in three settings. hot: calls back to back on the
// same operands, which stay in every core's cache. pipeline: before each
// call the caller rewrites A and after it reads C, as a network's layers
// do (the layer before writes A, the one after reads C), so a split also
// moves A and C between the cores' caches; the passes are timed in both
// serial and parallel (the worker stays awake across them but for the
// largest sizes). after-pause: each call comes after a pause longer
// than parallel.Spin, so the worker has parked and must be woken (only
// the call is timed, ns/call). Where parallel overtakes serial in the
// pipeline setting gives ParallelMinFlops, in the after-pause setting
// ParallelWakeFlops.
func BenchmarkGemmSplit(b *testing.B) {
	type shape struct {
		name    string
		ta, tb  bool
		m, n, k int
	}
	var shapes []shape
	for _, s := range []int{32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512} {
		shapes = append(shapes, shape{fmt.Sprintf("nn/%d", s), false, false, s, s, s})
	}
	shapes = append(shapes,
		shape{"conv1-fwd", false, false, 32, 400, 256},
		shape{"conv1-dw", false, true, 32, 256, 400},
		shape{"conv2-fwd", false, false, 64, 81, 512},
		shape{"conv2-dw", false, true, 64, 512, 81},
		shape{"conv2-dx", true, false, 512, 81, 64},
		shape{"conv3-fwd", false, false, 64, 49, 576},
		shape{"dense-fwd", false, false, 32, 512, 3136},
		shape{"dense-dw", true, false, 3136, 512, 32},
		shape{"dense-dx", false, true, 32, 3136, 512},
		shape{"ddpg-fwd", false, false, 16384, 256, 256},
		shape{"ddpg-fwd1", false, false, 16384, 256, 14},
		shape{"ddpg-dx", false, true, 16384, 256, 256},
		shape{"ddpg-dw", true, false, 256, 256, 16384},
	)
	parties := parallel.Parties()
	type prepared struct {
		name  string
		flops float64
		t     gemmTask
		a, c  []float32
	}
	var cases []prepared
	for _, s := range shapes {
		g := gemmCase{ta: s.ta, tb: s.tb, m: s.m, n: s.n, k: s.k, alpha: 1, beta: 1}
		a, lda, bb, ldb, c, ldc := g.operands(rand.New(rand.NewPCG(1, 1)))
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		cases = append(cases, prepared{fmt.Sprintf("%s/flops=%.2g", s.name, flops), flops, taskFor(active, g, a, lda, bb, ldb, c, ldc), a, c})
	}
	call := func(t *gemmTask, split, wake bool) {
		if split {
			t.split(parties, parties, wake)
		} else {
			t.block(0, t.m, 0, t.n)
		}
	}
	variants := []struct {
		name  string
		split bool
	}{{"serial", false}, {"parallel", true}}
	// One setting at a time: a setting that parks the worker (after-pause)
	// changes how the next one starts.
	for _, pc := range cases {
		for _, v := range variants {
			b.Run("hot/"+pc.name+"/"+v.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					call(&pc.t, v.split, true)
				}
				b.ReportMetric(pc.flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
			})
		}
	}
	for _, pc := range cases {
		if !strings.HasPrefix(pc.name, "nn/") {
			continue
		}
		for _, v := range variants {
			b.Run("pipeline/"+pc.name+"/"+v.name, func(b *testing.B) {
				var sink float32
				for b.Loop() {
					for i := range pc.a {
						pc.a[i] = -pc.a[i]
					}
					call(&pc.t, v.split, true)
					sink += float32(SumSquares(pc.c))
				}
				b.ReportMetric(pc.flops*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GFLOP/s")
				_ = sink
			})
		}
	}
	for _, pc := range cases {
		if !strings.HasPrefix(pc.name, "nn/") {
			continue
		}
		for _, v := range variants {
			b.Run("after-pause/"+pc.name+"/"+v.name, func(b *testing.B) {
				var took time.Duration
				for b.Loop() {
					time.Sleep(4 * parallel.Spin)
					t0 := time.Now()
					call(&pc.t, v.split, true)
					took += time.Since(t0)
				}
				b.ReportMetric(float64(took.Nanoseconds())/float64(b.N), "ns/call")
				b.ReportMetric(pc.flops*float64(b.N)/float64(took.Nanoseconds()), "GFLOP/s")
			})
		}
	}
}
