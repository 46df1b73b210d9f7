package sumtree

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// exactBenchMax is the maximum priority of the benchmarked exact trees; the
// priorities are uniform on [0, 1), well inside it.
const exactBenchMax = 1024

// benchExact returns an exact tree of the given shape holding the same
// random priorities as benchTree's float64 tree.
func benchExact(b *testing.B, capacity, fanout int) *Exact {
	b.Helper()
	tr, err := NewExact(capacity, fanout, exactBenchMax)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(capacity), uint64(fanout)))
	idx := make([]int, capacity)
	p := make([]float64, capacity)
	for i := range idx {
		idx[i] = i
		p[i] = max(rng.Float64(), tr.Resolution())
	}
	if err := tr.SetBatch(idx, p); err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkExactSetBatch times the exact tree's batched update beside the
// float64 tree's on the same indices and priorities (ns per updated index).
func BenchmarkExactSetBatch(b *testing.B) {
	for _, capacity := range benchCaps {
		idxPool, pPool := updatePool(capacity)
		for i := range pPool {
			pPool[i] = max(pPool[i], 1.0/(1<<20))
		}
		for _, k := range []int{4, 8, 16, 32} {
			ex := benchExact(b, capacity, k)
			fl, _ := benchTree(b, capacity, k)
			for _, batch := range []int{256, 2048, 16384} {
				for _, kind := range []string{"exact", "float64"} {
					b.Run(fmt.Sprintf("cap=2^%d/K=%d/B=%d/%s", log2(capacity), k, batch, kind), func(b *testing.B) {
						b.ReportAllocs()
						off := 0
						for b.Loop() {
							idx, p := idxPool[off:off+batch], pPool[off:off+batch]
							var err error
							if kind == "exact" {
								err = ex.SetBatch(idx, p)
							} else {
								err = fl.SetBatch(idx, p)
							}
							if err != nil {
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
}

// BenchmarkExactFindBatch times the exact tree's batched search beside the
// float64 tree's, with targets uniform on each tree's total (ns per query).
func BenchmarkExactFindBatch(b *testing.B) {
	for _, capacity := range benchCaps {
		for _, k := range []int{4, 8, 16, 32} {
			ex := benchExact(b, capacity, k)
			fl, _ := benchTree(b, capacity, k)
			fpool := queryPool(fl.Total())
			rng := rand.New(rand.NewPCG(17, 18))
			qpool := make([]uint64, benchPool)
			for i := range qpool {
				qpool[i] = rng.Uint64N(ex.Total())
			}
			for _, batch := range []int{256, 2048} {
				for _, kind := range []string{"exact", "float64"} {
					b.Run(fmt.Sprintf("cap=2^%d/K=%d/B=%d/%s", log2(capacity), k, batch, kind), func(b *testing.B) {
						out := make([]int, batch)
						b.ReportAllocs()
						off := 0
						for b.Loop() {
							if kind == "exact" {
								ex.FindBatch(qpool[off:off+batch], out)
							} else {
								fl.FindBatch(fpool[off:off+batch], out)
							}
							off = (off + batch) % (benchPool - batch)
						}
						reportPerIndex(b, batch)
					})
				}
			}
		}
	}
}
