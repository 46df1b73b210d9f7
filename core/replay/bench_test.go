package replay

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

func benchBuffer(b *testing.B, capacity, fanout int, locking Locking) *Buffer {
	b.Helper()
	cfg := Config{Capacity: capacity, ObsDim: 11, ActDim: 3, Fanout: fanout, Alpha: 0.6, Beta: 0.4, Eps: 1e-6, Locking: locking}
	buf := mustNew(b, cfg)
	ts := make([]Transition, 64)
	for i := range ts {
		ts[i] = tagged(float32(i), 11, 3)
	}
	for buf.Len() < capacity {
		_ = buf.Add(ts...)
	}
	return buf
}

func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			buf := benchBuffer(b, 1<<16, DefaultFanout, TwoLocks)
			ts := make([]Transition, n)
			for i := range ts {
				ts[i] = tagged(float32(i), 11, 3)
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = buf.Add(ts...)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/transition")
		})
	}
}

func BenchmarkSampleUpdate(b *testing.B) {
	for _, capacity := range []int{1 << 16, 1 << 20} {
		buf := benchBuffer(b, capacity, DefaultFanout, TwoLocks)
		for _, n := range []int{32, 256, 2048} {
			b.Run(fmt.Sprintf("cap=%d/B=%d", capacity, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 2))
				var batch Batch
				td := make([]float32, n)
				for i := range td {
					td[i] = float32(rng.ExpFloat64())
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := buf.Sample(&batch, n, rng); err != nil {
						b.Fatal(err)
					}
					if err := buf.Update(&batch, td); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/transition")
			})
		}
	}
}

// BenchmarkConcurrent is the experiment of 002 §VI-D (Fig. 9): goroutines
// each run rounds of sampling and priority update on one shared buffer,
// with the two-lock K-ary tree or one global lock on a binary tree.
func BenchmarkConcurrent(b *testing.B) {
	const workers, batch = 2, 64
	for _, capacity := range []int{1000, 100_000} {
		for _, v := range []struct {
			name    string
			fanout  int
			locking Locking
		}{{"global-binary", 2, GlobalLock}, {"twolock-K16", 16, TwoLocks}, {"twolock-K64", 64, TwoLocks}} {
			b.Run(fmt.Sprintf("cap=%d/%s", capacity, v.name), func(b *testing.B) {
				buf := benchBuffer(b, capacity, v.fanout, v.locking)
				b.ResetTimer()
				rounds := b.N
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rng := rand.New(rand.NewPCG(uint64(w), 3))
						var bt Batch
						td := make([]float32, batch)
						for range rounds {
							_ = buf.Sample(&bt, batch, rng)
							for i := range td {
								td[i] = float32(rng.Float64())
							}
							_ = buf.Update(&bt, td)
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*workers), "ns/round")
			})
		}
	}
}
