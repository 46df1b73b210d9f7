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
