package gae

import (
	"fmt"
	"math"
	"unsafe"
)

// Quantizer is n-bit uniform quantization of [-clip, clip] (004 §II-C):
// 2^n codes 0 .. 2^n-1, evenly spaced, code c standing for
//
//	deq(c) = -clip + c*step,  step = 2*clip/(2^n - 1)
//
// so the end codes stand for -clip and +clip exactly. Code rounds to the
// nearest level, so for x in [-clip, clip]
//
//	|x - deq(q(x))| <= step/2
//
// up to the rounding of deq(c) to float32 (half an ulp of the result).
// Values outside the range clamp to the end codes. The zero Quantizer is not
// usable; make one with NewQuantizer.
type Quantizer struct {
	bits    int
	clip    float64
	step    float64
	maxCode uint16
}

// MaxBits is the widest code: 16 bits, in a uint16.
const MaxBits = 16

// NewQuantizer returns the bits-bit uniform quantizer of [-clip, clip]. It
// returns an error unless 1 <= bits <= 16 and clip is in clipRange(bits):
// finite and positive, and such that clip and the step are normal float32
// numbers.
func NewQuantizer(bits int, clip float32) (Quantizer, error) {
	if bits < 1 || bits > MaxBits {
		return Quantizer{}, fmt.Errorf("%w: bits = %d is not allowed: bits must be 1..%d", ErrRange, bits, MaxBits)
	}
	if !(clip > 0) || math.IsInf(float64(clip), 0) {
		return Quantizer{}, fmt.Errorf("%w: clip = %v is not allowed: clip must be finite and > 0", ErrRange, clip)
	}
	if !clipFits(bits, clip) {
		lo, hi := clipRange(bits)
		return Quantizer{}, fmt.Errorf("%w: clip = %v is not allowed with %d-bit codes: clip must be %v..%v, so that the step 2*clip/%d is a normal float32",
			ErrRange, clip, bits, lo, hi, 1<<bits-1)
	}
	maxCode := uint16(1<<bits - 1)
	c := float64(clip)
	return Quantizer{bits: bits, clip: c, step: 2 * c / float64(maxCode), maxCode: maxCode}, nil
}

// minNormal32 is the smallest normal float32, 2^-126.
const minNormal32 = 0x1p-126

// clipFits reports whether a bits-bit quantizer of [-clip, clip] is usable:
// clip and the step 2*clip/(2^bits-1), as float32, are normal. A step that
// underflows to 0 (or to a subnormal, losing precision) codes every nonzero
// value to an end code, and the Estimator's de-quantization, in float32,
// would multiply codes by 0; one that overflows, at 1 bit, multiplies them
// by +Inf.
func clipFits(bits int, clip float32) bool {
	step := float32(2 * float64(clip) / float64(int(1)<<bits-1))
	return clip >= minNormal32 && step >= minNormal32 && !math.IsInf(float64(step), 0)
}

// clipRange returns the smallest and the largest clip NewQuantizer accepts
// at bits bits, 1..16: those for which clip and the step are normal float32
// numbers. The smallest is about 2^-127 (2^bits-1) (1.5e-36 at 8 bits); the
// largest is the largest float32, or half of it at 1 bit. It returns 0, 0 for
// bits outside 1..16.
func clipRange(bits int) (lo, hi float32) {
	if bits < 1 || bits > MaxBits {
		return 0, 0
	}
	up, down := float32(math.Inf(1)), float32(0)
	// Start from the real-number bounds and step by ulps across the
	// rounding of the step to float32: a few steps at most.
	lo = max(minNormal32, float32(minNormal32*float64(int(1)<<bits-1)/2))
	for !clipFits(bits, lo) {
		lo = math.Nextafter32(lo, up)
	}
	for clipFits(bits, math.Nextafter32(lo, down)) {
		lo = math.Nextafter32(lo, down)
	}
	hi = math.MaxFloat32
	if bits == 1 {
		hi = math.MaxFloat32 / 2
	}
	for !clipFits(bits, hi) {
		hi = math.Nextafter32(hi, down)
	}
	for hi < math.MaxFloat32 && clipFits(bits, math.Nextafter32(hi, up)) {
		hi = math.Nextafter32(hi, up)
	}
	return lo, hi
}

// Bits returns n, the code width.
func (q Quantizer) Bits() int { return q.bits }

// Clip returns the half-width of the range.
func (q Quantizer) Clip() float32 { return float32(q.clip) }

// Step returns the distance between adjacent levels.
func (q Quantizer) Step() float32 { return float32(q.step) }

// Levels returns 2^n, the number of codes.
func (q Quantizer) Levels() int { return int(q.maxCode) + 1 }

// Code returns the code of the level nearest x; x below -clip (or NaN)
// gives 0 and x above clip gives 2^n-1.
func (q Quantizer) Code(x float32) uint16 { return q.code(float64(x)) }

func (q Quantizer) code(x float64) uint16 {
	u := (x + q.clip) / q.step
	if !(u > 0) {
		return 0
	}
	if u >= float64(q.maxCode) {
		return q.maxCode
	}
	return uint16(u + 0.5) // round half up
}

// Value returns the level of code c, deq(c). Codes above 2^n-1 clamp to it.
func (q Quantizer) Value(c uint16) float32 {
	c = min(c, q.maxCode)
	return float32(-q.clip + float64(c)*q.step)
}

// Codeword is the storage type of codes: uint8 holds up to 8 bits, uint16
// up to 16.
type Codeword interface{ ~uint8 | ~uint16 }

// Quantize stores the codes of src in dst. It panics if the lengths differ
// or if dst's type is narrower than q's codes; both are programmer errors.
func Quantize[C Codeword](dst []C, q Quantizer, src []float32) {
	checkCodes(len(dst), len(src), q, unsafe.Sizeof(C(0)))
	for i, x := range src {
		dst[i] = C(q.code(float64(x)))
	}
}

// Dequantize stores the levels of the codes in src in dst. It panics if the
// lengths differ or if src's type is narrower than q's codes.
func Dequantize[C Codeword](dst []float32, q Quantizer, src []C) {
	checkCodes(len(src), len(dst), q, unsafe.Sizeof(C(0)))
	for i, c := range src {
		dst[i] = q.Value(uint16(c))
	}
}

func checkCodes(ncodes, nvalues int, q Quantizer, size uintptr) {
	if ncodes != nvalues {
		panic(fmt.Sprintf("gae: %d codes for %d values", ncodes, nvalues))
	}
	if q.bits == 0 {
		panic("gae: zero Quantizer; use NewQuantizer")
	}
	if uintptr(q.bits) > 8*size {
		panic(fmt.Sprintf("gae: %d-bit codes do not fit in %d bytes", q.bits, size))
	}
}

// quantizeScaled stores the codes of (x-mean)*inv for x in src: block or
// dynamic standardization followed by quantization, in one pass with the
// two affine maps folded into one, u = x*a + b, and no division. It returns
// how many standardized values fell outside [-clip, clip].
func quantizeScaled[C Codeword](dst []C, q Quantizer, src []float32, mean, inv float64) (clipped int) {
	a := inv / q.step
	b := (q.clip - mean*inv) / q.step
	top := float64(q.maxCode)
	dst = dst[:len(src)]
	for i, x := range src {
		u := float64(x)*a + b
		if u < 0 {
			u = 0
			clipped++
		} else if u > top {
			u = top
			clipped++
		}
		dst[i] = C(u + 0.5) // round half up
	}
	return clipped
}
