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
// returns an error unless 1 <= bits <= 16 and clip is finite and positive.
func NewQuantizer(bits int, clip float32) (Quantizer, error) {
	if bits < 1 || bits > MaxBits {
		return Quantizer{}, fmt.Errorf("%w: bits = %d is not allowed: bits must be 1..%d", ErrRange, bits, MaxBits)
	}
	if !(clip > 0) || math.IsInf(float64(clip), 0) {
		return Quantizer{}, fmt.Errorf("%w: clip = %v is not allowed: clip must be finite and > 0", ErrRange, clip)
	}
	maxCode := uint16(1<<bits - 1)
	c := float64(clip)
	return Quantizer{bits: bits, clip: c, step: 2 * c / float64(maxCode), maxCode: maxCode}, nil
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
