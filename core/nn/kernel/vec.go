package kernel

import "math"

// adamTiny is the magnitude below which Adam flushes a moment to 0; the AVX2
// kernel holds its bit pattern, 0x0da24260.
const adamTiny = 1e-30

// Adam applies one Adam update (PyTorch's arithmetic order) to parameters p
// with gradients g and moment estimates m, v, all of one length:
//
//	m = m + oneMinusBeta1*(g - m)
//	v = beta2*v + oneMinusBeta2*g*g
//	p = p - stepSize * (m / (sqrt(v)/bc2Sqrt + eps))
//
// stepSize is lr/(1-beta1^t) and bc2Sqrt is sqrt(1-beta2^t); see nn.Adam.
// It panics if a slice is shorter than p.
//
// Moments below adamTiny in magnitude are flushed to 0. A parameter whose
// gradient stays 0 otherwise sees its moments decay geometrically into
// float32 subnormals, on which every operation is many times slower (the
// whole step 4-15x, measured on DQN); below 1e-30 a moment moves a weight by
// less than float32 can represent next to eps anyway.
func Adam(p, g, m, v []float32, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, bc2Sqrt, eps float32) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	i0 := 0
	if hasAVX2FMA && active.asm && len(p) >= 8 {
		i0 = len(p) &^ 7
		adamAVX2(&p[0], &g[0], &m[0], &v[0], i0, oneMinusBeta1, beta2, oneMinusBeta2, stepSize, bc2Sqrt, eps)
	}
	for i := i0; i < len(p); i++ {
		gi := g[i]
		mi := m[i] + oneMinusBeta1*(gi-m[i])
		vi := beta2*v[i] + oneMinusBeta2*gi*gi
		if !(mi >= adamTiny || mi <= -adamTiny) {
			mi = 0
		}
		if !(vi >= adamTiny) {
			vi = 0
		}
		m[i], v[i] = mi, vi
		denom := float32(math.Sqrt(float64(vi)))/bc2Sqrt + eps
		p[i] += -stepSize * (mi / denom)
	}
}

// SumSquares returns the sum of x[i]^2, accumulated in float64.
func SumSquares(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(x); i += 4 {
		a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		s0 += float64(x[i]) * float64(x[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// Scal multiplies x by alpha in place.
func Scal(alpha float32, x []float32) {
	for i := range x {
		x[i] *= alpha
	}
}
