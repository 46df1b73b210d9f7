//go:build amd64 && !purego

// Declarations of the hand-written assembly kernels: act_amd64.s (tanh),
// vec_amd64.s (tanh backward, Adam), dot_amd64.s, pack_amd64.s.

package kernel

// tanhAVX2 sets dst[i] = tanh(x[i]) for i < n, n a positive multiple of 8;
// see Tanh.
//
//go:noescape
func tanhAVX2(dst, x *float32, n int)

// tanhBackwardAVX2 sets dx[i] = dy[i]*(1 - y[i]*y[i]) for i < n, n a
// positive multiple of 8.
//
//go:noescape
func tanhBackwardAVX2(dx, dy, y *float32, n int)

// adamAVX2 is Adam on n elements, n a positive multiple of 8.
//
//go:noescape
func adamAVX2(p, grad, m, v *float32, n int, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, bc2Sqrt, eps float32)

// dot4AVX2 sets out[j] = sum_{p<k} a[p]*b[j*ldb+p] for j < 4, k a positive
// multiple of 8.
//
//go:noescape
func dot4AVX2(k int, a, b *float32, ldb int, out *[4]float32)

// packT8 transposes blocks 8×8 blocks of an 8-row strip: dst[(8b+p)*ldd+j]
// = src[j*lds+8b+p] for b < blocks, p, j < 8.
//
//go:noescape
func packT8(dst *float32, ldd int, src *float32, lds int, blocks int)
