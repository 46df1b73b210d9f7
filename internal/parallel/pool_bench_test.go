package parallel

import (
	"fmt"
	"testing"
	"time"
)

// spinWork is a chunk of about n nanoseconds of arithmetic, so that the
// benchmarks see the pool's overhead beside work of a known size.
func spinWork(n int, i, _ int) bool {
	x := uint64(i) + 1
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x != 0
}

var benchPool = NewPool[int]()

// BenchmarkRun measures what a split costs: two chunks of about 1 µs of
// work each, run on the caller alone (inline), split while the worker is
// awake from the previous call (hot: calls back to back), and split after
// a pause longer than Spin, so that the worker has parked (cold; the pause
// is not timed, ns/call is). Run it with -cpu 2.
func BenchmarkRun(b *testing.B) {
	const work = 300 // iterations, about 1 µs
	b.Run("inline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchPool.Run(work, 2, 1, false, spinWork)
		}
	})
	b.Run("hot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchPool.Run(work, 2, Parties(), true, spinWork)
		}
	})
	for _, pause := range []time.Duration{Spin / 2, 4 * Spin} {
		b.Run(fmt.Sprintf("after-%v", pause), func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			for b.Loop() {
				time.Sleep(pause)
				t0 := time.Now()
				benchPool.Run(work, 2, Parties(), true, spinWork)
				total += time.Since(t0)
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/call")
		})
	}
}
