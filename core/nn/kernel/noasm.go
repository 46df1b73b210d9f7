//go:build !amd64 || purego

package kernel

// active is the family Gemm uses: without the assembly, the portable one.
var active = goImpl

// hasAVX2FMA is false: this build has no assembly kernels.
const hasAVX2FMA = false

// asmImpl is absent from this build; tests that compare families skip it.
var asmImpl *impl

// microAsm is never called in this build (no family has asm set).
func microAsm(mr, nr, k int, a []float32, ai, rs, cs int, b []float32, bi, ldb int, c []float32, ci, ldc int, alpha, beta float32) {
	panic("kernel: no assembly kernels in this build")
}

// tanhAVX2 is never called in this build (hasAVX2FMA is false).
func tanhAVX2(dst, x *float32, n int) {
	panic("kernel: no assembly kernels in this build")
}

func tanhBackwardAVX2(dx, dy, y *float32, n int) {
	panic("kernel: no assembly kernels in this build")
}

func adamAVX2(p, grad, m, v *float32, n int, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, bc2Sqrt, eps float32) {
	panic("kernel: no assembly kernels in this build")
}

func dot4AVX2(k int, a, b *float32, ldb int, out *[4]float32) {
	panic("kernel: no assembly kernels in this build")
}

func packT8(dst *float32, ldd int, src *float32, lds int, blocks int) {
	panic("kernel: no assembly kernels in this build")
}
