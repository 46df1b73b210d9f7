package sumtree

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rlxdev/rlx/internal/baseline"
)

// The benchmarks report ns/index: the time per sampled or updated index.
// Queries and updates rotate through a pool far larger than one batch, so a
// batch does not find the previous batch's paths in cache.

var (
	benchCaps    = []int{1 << 20, 1 << 24}
	benchBatches = []int{32, 256, 2048, 16384}
	benchFanouts = []int{2, 4, 8, 16, 32, 64, 128, 256}
)

const benchPool = 1 << 22

// benchTree returns a tree of the given shape with random priorities and the
// same priorities in a plain binary tree.
func benchTree(b *testing.B, capacity, fanout int) (*Tree, *baseline.BinaryTree) {
	b.Helper()
	tr := mustNew(b, capacity, fanout)
	bin := baseline.NewBinaryTree(capacity)
	rng := rand.New(rand.NewPCG(uint64(capacity), uint64(fanout)))
	idx := make([]int, capacity)
	p := make([]float64, capacity)
	for i := range idx {
		idx[i] = i
		p[i] = rng.Float64()
	}
	if err := tr.SetBatch(idx, p); err != nil {
		b.Fatal(err)
	}
	bin.SetBatch(idx, p)
	return tr, bin
}

// queryPool returns benchPool queries uniform on [0, total).
func queryPool(total float64) []float64 {
	rng := rand.New(rand.NewPCG(17, 18))
	u := make([]float64, benchPool)
	for i := range u {
		u[i] = rng.Float64() * total
	}
	return u
}

// updatePool returns benchPool random leaf indices and priorities.
func updatePool(capacity int) ([]int, []float64) {
	rng := rand.New(rand.NewPCG(19, 20))
	idx := make([]int, benchPool)
	p := make([]float64, benchPool)
	for i := range idx {
		idx[i] = rng.IntN(capacity)
		p[i] = rng.Float64()
	}
	return idx, p
}

func reportPerIndex(b *testing.B, batch int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/index")
}

func BenchmarkFindBatch(b *testing.B) {
	for _, capacity := range benchCaps {
		for _, k := range append([]int{0}, benchFanouts...) { // 0: the plain binary tree
			tr, bin := benchTree(b, capacity, max(k, 2))
			pool := queryPool(tr.Total())
			for _, batch := range benchBatches {
				name := fmt.Sprintf("cap=2^%d/K=%d/B=%d", log2(capacity), k, batch)
				if k == 0 {
					name = fmt.Sprintf("cap=2^%d/binary/B=%d", log2(capacity), batch)
				}
				b.Run(name, func(b *testing.B) {
					out := make([]int, batch)
					b.ReportAllocs()
					off := 0
					for b.Loop() {
						u := pool[off : off+batch]
						if k == 0 {
							bin.FindBatch(u, out)
						} else {
							tr.FindBatch(u, out)
						}
						off = (off + batch) % (benchPool - batch)
					}
					reportPerIndex(b, batch)
				})
			}
		}
	}
}

func BenchmarkSetBatch(b *testing.B) {
	for _, capacity := range benchCaps {
		idxPool, pPool := updatePool(capacity)
		for _, k := range append([]int{0}, benchFanouts...) {
			tr, bin := benchTree(b, capacity, max(k, 2))
			for _, batch := range benchBatches {
				name := fmt.Sprintf("cap=2^%d/K=%d/B=%d", log2(capacity), k, batch)
				if k == 0 {
					name = fmt.Sprintf("cap=2^%d/binary/B=%d", log2(capacity), batch)
				}
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					off := 0
					for b.Loop() {
						idx, p := idxPool[off:off+batch], pPool[off:off+batch]
						if k == 0 {
							bin.SetBatch(idx, p)
						} else if err := tr.SetBatch(idx, p); err != nil {
							b.Fatal(err)
						}
						off = (off + batch) % (benchPool - batch)
					}
					reportPerIndex(b, batch)
				})
			}
		}
	}
}

// BenchmarkSetBatchInCache repeats one batch of 2048 updates, so that after
// the first round every line its paths touch is in the cache: the time left
// is the update's own work, and BenchmarkSetBatch at the same shape minus
// this is what its cache misses cost.
func BenchmarkSetBatchInCache(b *testing.B) {
	const capacity, batch = 1 << 20, 2048
	idx, p := updatePool(capacity)
	idx, p = idx[:batch], p[:batch]
	for _, k := range []int{0, 8, 16} {
		tr, bin := benchTree(b, capacity, max(k, 2))
		name := fmt.Sprintf("cap=2^%d/K=%d/B=%d", log2(capacity), k, batch)
		if k == 0 {
			name = fmt.Sprintf("cap=2^%d/binary/B=%d", log2(capacity), batch)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if k == 0 {
					bin.SetBatch(idx, p)
				} else if err := tr.SetBatch(idx, p); err != nil {
					b.Fatal(err)
				}
			}
			reportPerIndex(b, batch)
		})
	}
}

func log2(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}
