package sumtree

import (
	"math/rand/v2"
	"testing"
)

func TestDivider(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	divisors := []int{2, 3, 4, 5, 7, 16, 100, 255, 256, 257, 4095, 4096}
	for _, d := range divisors {
		v := newDivider(d)
		check := func(n int) {
			if got := v.div(n); got != n/d {
				t.Fatalf("%d / %d = %d, want %d", n, d, got, n/d)
			}
		}
		for n := range 10000 {
			check(n)
		}
		for _, n := range []int{MaxCapacity - 1, MaxCapacity, 1<<32 - 1, d*12345 - 1, d * 12345} {
			check(n)
		}
		for range 100000 {
			check(rng.IntN(1 << 32))
		}
	}
}

// TestDivideAll checks the batch form on both of its paths, the shift for a
// power of two and the multiplication otherwise, in place and not.
func TestDivideAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	src := make([]int, 257)
	for k := range src {
		src[k] = rng.IntN(MaxCapacity)
	}
	src[0], src[1] = 0, MaxCapacity-1
	for _, d := range []int{2, 3, 8, 16, 100, 4096} {
		v := newDivider(d)
		dst := make([]int, len(src))
		v.divAll(dst, src)
		inPlace := append([]int(nil), src...)
		v.divAll(inPlace, inPlace)
		for k, n := range src {
			if dst[k] != n/d || inPlace[k] != n/d {
				t.Fatalf("d = %d: %d / %d gave %d (in place %d), want %d", d, n, d, dst[k], inPlace[k], n/d)
			}
		}
	}
}
