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
	d     int
	m     uint64
	shift int // log2(d) when d is a power of two, else 0
}

func newDivider(d int) divider {
	v := divider{d: d, m: ^uint64(0)/uint64(d) + 1}
	if d&(d-1) == 0 {
		v.shift = bits.TrailingZeros(uint(d))
	}
	return v
}

// div returns n / d for 0 <= n < 2^32.
func (v divider) div(n int) int {
	hi, _ := bits.Mul64(v.m, uint64(n))
	return int(hi)
}

// divAll sets dst[k] = src[k] / d for every k; dst and src may be the same
// slice. For a power of two it shifts, which the update loops, dividing every
// node of a chunk on every level, measurably prefer to the multiplication.
func (v divider) divAll(dst, src []int) {
	dst = dst[:len(src)]
	if v.shift > 0 {
		for k, n := range src {
			dst[k] = n >> v.shift
		}
		return
	}
	for k, n := range src {
		dst[k] = v.div(n)
	}
}
