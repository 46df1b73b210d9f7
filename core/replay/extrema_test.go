package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestExtremaAgainstScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 15, 16, 17, 300, 4097} {
		e := newExtrema(n)
		p := make([]float64, n)
		if e.minimum() != math.Inf(1) || e.maximum() != 0 {
			t.Fatalf("n=%d: empty extrema report min %v, max %v", n, e.minimum(), e.maximum())
		}
		for range 3000 {
			// Batches from one slot to far more than the tree holds.
			m := 1 + rng.IntN(2*n)
			idx, v := make([]int, m), make([]float64, m)
			for k := range idx {
				idx[k] = rng.IntN(n)
				if rng.IntN(4) != 0 {
					v[k] = rng.ExpFloat64()
				}
			}
			e.setBatch(idx, v)
			for k, i := range idx {
				p[i] = v[k] // the last write wins
			}
			mn, mx := math.Inf(1), 0.0
			for _, x := range p {
				if x > 0 {
					mn, mx = math.Min(mn, x), math.Max(mx, x)
				}
			}
			if e.minimum() != mn || e.maximum() != mx {
				t.Fatalf("n=%d: min, max = %v, %v; scan gives %v, %v", n, e.minimum(), e.maximum(), mn, mx)
			}
		}
	}
}
