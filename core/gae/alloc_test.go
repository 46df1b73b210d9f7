package gae

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rlxdev/rlx/internal/testalloc"
)

// benchShapes are the shapes of the performance targets.
var benchShapes = [][2]int{{128, 4}, {1024, 64}, {2048, 1024}}

// TestComputeAllocs checks zero allocations per call on every target shape
// with every kernel. testing.AllocsPerRun runs with GOMAXPROCS 1, which
// keeps Compute on one core, so the parallel path is measured separately
// below.
func TestComputeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(51, 52))
	for _, sh := range benchShapes {
		T, N := sh[0], sh[1]
		r := randomRollout(rng, T, N, 0.01, 0.01)
		adv, ret := make([]float32, T*N), make([]float32, T*N)
		for _, k := range kernels {
			withKernel(k, func() {
				allocs := testing.AllocsPerRun(5, func() {
					if err := Compute(adv, ret, r, 0.99, 0.95); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("Compute %v %dx%d: %v allocations per call", k, T, N, allocs)
				}
				allocs = testing.AllocsPerRun(5, func() {
					if err := Compute(r.Rewards, r.Values, r, 0.99, 0.95); err != nil {
						t.Fatal(err)
					}
				})
				if allocs != 0 {
					t.Errorf("Compute in place %v %dx%d: %v allocations per call", k, T, N, allocs)
				}
			})
		}
		if T*N <= 1<<16 {
			a64, r64 := make([]float64, T*N), make([]float64, T*N)
			for _, f := range []struct {
				name string
				f    func()
			}{
				{"ComputeLookahead", func() { _ = ComputeLookahead(adv, ret, r, 0.99, 0.95, 2) }},
				{"Reference", func() { _ = Reference(a64, r64, r, 0.99, 0.95) }},
			} {
				if allocs := testing.AllocsPerRun(5, f.f); allocs != 0 {
					t.Errorf("%s %dx%d: %v allocations per call", f.name, T, N, allocs)
				}
			}
		}
	}
}

// TestParallelAllocs counts allocations of the parallel path with the
// process's real GOMAXPROCS, through the runtime's malloc counter: once the
// worker pool is warm, a parallel call allocates nothing.
func TestParallelAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(53, 54))
	T, N := 1024, 1024 // at ParallelThreshold
	r := randomRollout(rng, T, N, 0.01, 0.01)
	adv, ret := make([]float32, T*N), make([]float32, T*N)
	for _, k := range kernels {
		p := panel{adv: adv, ret: ret, rew: r.Rewards, val: r.Values, nval: r.NextValues,
			term: r.Terminated, trunc: r.Truncated, rows: T, stride: N, c1: N, gamma: 0.99, c: 0.99 * 0.95}
		for _, parts := range []int{2, 3} {
			if got := testalloc.MallocsPerCall(20, func() { runParallel(&p, k, parts) }); got != 0 {
				t.Errorf("%v in %d parts: %v allocations per call", k, parts, got)
			}
		}
		withKernel(k, func() {
			compute := func() { _ = Compute(adv, ret, r, 0.99, 0.95) }
			if got := testalloc.MallocsPerCall(20, compute); got != 0 {
				t.Errorf("Compute %v %dx%d with GOMAXPROCS %d: %v allocations per call",
					k, T, N, runtime.GOMAXPROCS(0), got)
			}
		})
	}
}

func TestEstimatorAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	rng := rand.New(rand.NewPCG(55, 56))
	T, N := 256, 32
	for _, opt := range allOptions() {
		for _, inPlace := range []bool{false, true} {
			opt.InPlace = inPlace
			e, err := NewEstimator(T, N, opt)
			if err != nil {
				t.Fatal(err)
			}
			r := randomRollout(rng, T, N, 0.01, 0.01)
			allocs := testing.AllocsPerRun(5, func() {
				if _, _, err := e.Estimate(r, 0.99, 0.95); err != nil {
					t.Fatal(err)
				}
			})
			if allocs != 0 {
				t.Errorf("%s: %v allocations per Estimate", fmt.Sprint(opt), allocs)
			}
		}
	}
}
