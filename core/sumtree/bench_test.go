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

// BenchmarkFindBatchOtherFanouts covers fanouts without a vector kernel
// (not a multiple of 4, or groups padded to a power of two or whole lines),
// which search through the portable code on every CPU, at B = 2048.
func BenchmarkFindBatchOtherFanouts(b *testing.B) {
	const batch = 2048
	for _, capacity := range benchCaps {
		for _, k := range []int{3, 5, 6, 12} {
			tr, _ := benchTree(b, capacity, k)
			pool := queryPool(tr.Total())
			b.Run(fmt.Sprintf("cap=2^%d/K=%d/B=%d", log2(capacity), k, batch), func(b *testing.B) {
				out := make([]int, batch)
				off := 0
				for b.Loop() {
					tr.FindBatch(pool[off:off+batch], out)
					off = (off + batch) % (benchPool - batch)
				}
				reportPerIndex(b, batch)
			})
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
// the first round every line its paths touch is in L2 (about 700 KB; not in
// L1): BenchmarkSetBatch at the same shape minus this is what its misses
// beyond L2 cost.
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

// BenchmarkSetBatchPhases times the parts of SetBatch separately at capacity
// 2^20, B = 2048: the validation, the leaf writes alone, the sparse levels
// (updatePaths: leaves, their parents' sums and the running sums above, path
// by path) and the dense levels (recomputed whole). "cold" rotates through
// the update pool as BenchmarkSetBatch does; "warm" repeats one batch, as
// BenchmarkSetBatchInCache does. docs/sumtree.md uses it to show where an
// update's time goes. Phases run alone leave ancestors stale; only their
// times are read.
func BenchmarkSetBatchPhases(b *testing.B) {
	const capacity, batch = 1 << 20, 2048
	idxPool, pPool := updatePool(capacity)
	for _, k := range []int{8, 16} {
		tr, _ := benchTree(b, capacity, k)
		lowest := len(tr.levels) - 2
		dense := lowest
		for dense >= 0 && tr.levels[dense].count > batch {
			dense--
		}
		phases := []struct {
			name string
			run  func(idx []int, p []float64)
		}{
			{"validate", func(idx []int, p []float64) { _ = tr.validate(idx, p) }},
			{"leaves", tr.writeLeaves},
			{"sparse", func(idx []int, p []float64) { tr.updatePaths(idx, p, dense+1) }},
			{"dense", func([]int, []float64) {
				for d := dense; d >= 0; d-- {
					tr.recomputeLevel(d)
				}
			}},
			{"all", func(idx []int, p []float64) { _ = tr.SetBatch(idx, p) }},
		}
		for _, cold := range []bool{true, false} {
			for _, ph := range phases {
				name := fmt.Sprintf("K=%d/warm/%s", k, ph.name)
				if cold {
					name = fmt.Sprintf("K=%d/cold/%s", k, ph.name)
				}
				b.Run(name, func(b *testing.B) {
					off := 0
					for b.Loop() {
						ph.run(idxPool[off:off+batch], pPool[off:off+batch])
						if cold {
							off = (off + batch) % (benchPool - batch)
						}
					}
					reportPerIndex(b, batch)
				})
			}
		}
	}
}

// BenchmarkLatency follows a random cycle through arrays of 1, 8 and 64 MB,
// one dependent load per cache line: the machine's load latency from L2, L3
// and memory. SetBatch at capacity 2^20 misses L2 on about three lines per
// update (a leaf, and its parent's values and running sums), in the 8-10 MB
// of the tree; this latency, divided by the misses a core can have in
// flight, bounds how fast it can go.
func BenchmarkLatency(b *testing.B) {
	for _, mb := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			lines := mb << 20 / 64
			next := make([]int, lines*lineNodes)
			order := rand.New(rand.NewPCG(21, 22)).Perm(lines)
			for k, line := range order {
				next[line*lineNodes] = order[(k+1)%lines] * lineNodes
			}
			p := order[0] * lineNodes
			for b.Loop() {
				p = next[p]
			}
			if p%lineNodes != 0 {
				b.Fatal("the chase left the cycle")
			}
		})
	}
}
