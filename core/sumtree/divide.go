package sumtree

import "math/bits"

// divider divides non-negative ints below 2^32 by a fixed divisor with one
// multiplication instead of a hardware division, which costs 10-40 cycles
// and would otherwise sit on every level of every update.
//
// With m = ceil(2^64 / d), the high word of m*n is n/d exactly for all
// 32-bit n and d (Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019). Capacities are at most 2^30, so node indices fit.
type divider struct {
	d int
	m uint64
}

func newDivider(d int) divider {
	return divider{d: d, m: ^uint64(0)/uint64(d) + 1}
}

// div returns n / d for 0 <= n < 2^32.
func (v divider) div(n int) int {
	hi, _ := bits.Mul64(v.m, uint64(n))
	return int(hi)
}
