package baseline

import (
	"math/rand/v2"
	"testing"
)

func TestBinaryTreeAgainstLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 3, 100, 1024, 1500} {
		tr := NewBinaryTree(n)
		p := make([]float64, n)
		for i := range p {
			p[i] = float64(rng.IntN(20)) // integers: exact sums
			tr.Set(i, p[i])
		}
		total := 0.0
		for _, x := range p {
			total += x
		}
		if tr.Total() != total {
			t.Fatalf("n=%d: Total = %v, want %v", n, tr.Total(), total)
		}
		for range 500 {
			u := float64(rng.IntN(int(total) + 1))
			if u >= total {
				continue
			}
			want, s := 0, 0.0
			for i, x := range p {
				if s+x > u {
					want = i
					break
				}
				s += x
			}
			if got := tr.Find(u); got != want {
				t.Fatalf("n=%d: Find(%v) = %d, want %d", n, u, got, want)
			}
		}
	}
}
