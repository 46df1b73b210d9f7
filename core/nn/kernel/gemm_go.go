package kernel

// goImpl is the portable micro-kernel family: 4x4 tiles whose sixteen
// accumulators the Go compiler keeps in registers. It is what purego builds
// and processors without AVX2/FMA run, and the reference the assembly is
// tested against in the same binary.
var goImpl = &impl{name: "purego", mr: 4, nrs: []int{4}, asm: false, lanes: 1}

func microGo(mr, nr, k int, a []float32, ai, rs, cs int, b []float32, bi, ldb int, c []float32, ci, ldc int, alpha, beta float32) {
	if mr == 4 && nr == 4 {
		micro4x4(k, a, ai, rs, cs, b, bi, ldb, c, ci, ldc, alpha, beta)
		return
	}
	// Partial tiles (fewer rows at the bottom of C): plain loops.
	var acc [4 * 4]float32
	for p := 0; p < k; p++ {
		brow := b[bi+p*ldb : bi+p*ldb+nr]
		for r := 0; r < mr; r++ {
			av := a[ai+r*rs+p*cs]
			for j, bv := range brow {
				acc[r*4+j] += av * bv
			}
		}
	}
	for r := 0; r < mr; r++ {
		crow := c[ci+r*ldc : ci+r*ldc+nr]
		for j := range crow {
			if beta == 0 {
				crow[j] = alpha * acc[r*4+j]
			} else {
				crow[j] = alpha*acc[r*4+j] + beta*crow[j]
			}
		}
	}
}

// micro4x4 is the full tile. The four A values of a k step are loaded once
// and each multiplies four B values: 16 multiply-adds per 8 loads.
func micro4x4(k int, a []float32, ai, rs, cs int, b []float32, bi, ldb int, c []float32, ci, ldc int, alpha, beta float32) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 float32
	for p := 0; p < k; p++ {
		br := b[bi+p*ldb : bi+p*ldb+4 : bi+p*ldb+4]
		b0, b1, b2, b3 := br[0], br[1], br[2], br[3]
		o := ai + p*cs
		a0 := a[o]
		a1 := a[o+rs]
		a2 := a[o+2*rs]
		a3 := a[o+3*rs]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	store4(c[ci:ci+4:ci+4], c00, c01, c02, c03, alpha, beta)
	store4(c[ci+ldc:ci+ldc+4:ci+ldc+4], c10, c11, c12, c13, alpha, beta)
	store4(c[ci+2*ldc:ci+2*ldc+4:ci+2*ldc+4], c20, c21, c22, c23, alpha, beta)
	store4(c[ci+3*ldc:ci+3*ldc+4:ci+3*ldc+4], c30, c31, c32, c33, alpha, beta)
}

func store4(dst []float32, x0, x1, x2, x3, alpha, beta float32) {
	dst = dst[:4]
	if beta == 0 {
		dst[0], dst[1], dst[2], dst[3] = alpha*x0, alpha*x1, alpha*x2, alpha*x3
		return
	}
	dst[0] = alpha*x0 + beta*dst[0]
	dst[1] = alpha*x1 + beta*dst[1]
	dst[2] = alpha*x2 + beta*dst[2]
	dst[3] = alpha*x3 + beta*dst[3]
}
