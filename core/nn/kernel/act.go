package kernel

import "math"

// Coefficients of the tanh approximation (see Tanh). The odd Taylor series
// of tanh about 0, x + t3 x^3 + ... + t15 x^15, with the Bernoulli-number
// coefficients; and the degree-7 Taylor polynomial of exp on the reduced
// argument |r| <= ln2/2.
const (
	tanhSmall = 0.55 // below it the series, above it the exp form
	tanhClamp = 9.0  // tanh(9) rounds to 1 in float32

	t3  = -1.0 / 3
	t5  = 2.0 / 15
	t7  = -17.0 / 315
	t9  = 62.0 / 2835
	t11 = -1382.0 / 155925
	t13 = 21844.0 / 6081075
	t15 = -929569.0 / 638512875

	minus2Log2e = -2 * math.Log2E
	ln2Hi       = 0.693359375 // ln 2 split in two (Cody and Waite): n*ln2Hi is exact
	ln2Lo       = -2.12194440e-4
)

// Tanh sets dst[i] = tanh(x[i]) for i < len(x); dst may be x. It panics if
// dst is shorter than x.
//
// The result is within 2 ulp (float32) or 1e-7 absolutely of the exact value:
// for |x| < 0.55 the odd Taylor series through x^15 (truncation < 3e-8
// relative), else (1-e)/(1+e) with e = exp(-2|x|) from a range-reduced
// degree-7 polynomial, with |x| clamped to 9. NaN propagates. The assembly
// version does the same arithmetic eight lanes at a time, with fused
// multiply-adds, so the two may differ in the last bit.
func Tanh(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	if hasAVX2FMA && active.asm && len(x) >= 8 {
		i = len(x) &^ 7
		tanhAVX2(&dst[0], &x[0], i)
	}
	for ; i < len(x); i++ {
		dst[i] = tanh32(x[i])
	}
}

// tanh32 is the scalar form of Tanh.
func tanh32(x float32) float32 {
	const signBit = 1 << 31
	sign := math.Float32bits(x) & signBit
	ax := math.Float32frombits(math.Float32bits(x) &^ signBit)
	if ax < tanhSmall {
		x2 := ax * ax
		q := float32(t15)
		q = q*x2 + t13
		q = q*x2 + t11
		q = q*x2 + t9
		q = q*x2 + t7
		q = q*x2 + t5
		q = q*x2 + t3
		return math.Float32frombits(math.Float32bits(ax+ax*(x2*q)) | sign)
	}
	if ax != ax {
		return x
	}
	ax = min(ax, tanhClamp)
	e := exp32Neg(ax)
	return math.Float32frombits(math.Float32bits((1-e)/(1+e)) | sign)
}

// exp32Neg returns exp(-2*a) for a in [0.55, 9] in float32.
func exp32Neg(a float32) float32 {
	// a*minus2Log2e is in [-26, -1.5]: subtracting 1/2 and truncating
	// rounds it to the nearest integer (ties away from zero; VROUNDPS rounds
	// ties to even, an equally good reduction).
	n := float32(int32(a*minus2Log2e - 0.5))
	r := -(n * ln2Hi) - 2*a
	r = -(n * ln2Lo) + r
	p := float32(1.0 / 5040)
	p = p*r + 1.0/720
	p = p*r + 1.0/120
	p = p*r + 1.0/24
	p = p*r + 1.0/6
	p = p*r + 0.5
	p = p*r + 1
	p = p*r + 1
	return math.Float32frombits(math.Float32bits(p) + uint32(int32(n))<<23)
}

// TanhBackward sets dx[i] = dy[i] * (1 - y[i]*y[i]), the gradient through
// y = tanh(x) expressed with the output y. dx may be dy or y.
func TanhBackward(dx, dy, y []float32) {
	dy = dy[:len(y)]
	dx = dx[:len(y)]
	i := 0
	if hasAVX2FMA && active.asm && len(y) >= 8 {
		i = len(y) &^ 7
		tanhBackwardAVX2(&dx[0], &dy[0], &y[0], i)
	}
	for ; i < len(y); i++ {
		v := y[i]
		dx[i] = dy[i] * (1 - v*v)
	}
}

// ReLU sets dst[i] = max(x[i], 0); dst may be x. NaN propagates.
func ReLU(dst, x []float32) {
	dst = dst[:len(x)]
	for i, v := range x {
		// The builtin compiles to MAXSS, without a branch: with inputs of
		// random sign a branch mispredicts half the time.
		dst[i] = max(v, 0)
	}
}

// ReLUBackward sets dx[i] = dy[i] where y[i] > 0 and 0 elsewhere, the
// gradient through y = max(x, 0) expressed with the output y (the
// subgradient at 0 is 0, as in PyTorch). dx may be dy or y.
func ReLUBackward(dx, dy, y []float32) {
	dy = dy[:len(y)]
	dx = dx[:len(y)]
	for i, v := range y {
		// Without a branch (see ReLU): mask is all ones where y > 0, that
		// is where y's bit pattern, widened so that -0 stays negative, is at
		// least 1; a NaN output passes no gradient.
		b := int64(int32(math.Float32bits(v)))
		mask := ^uint32((b - 1) >> 63)
		if v != v {
			mask = 0
		}
		dx[i] = math.Float32frombits(math.Float32bits(dy[i]) & mask)
	}
}
