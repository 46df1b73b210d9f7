package gae

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ulp32 is the spacing of float32 numbers at x.
func ulp32(x float32) float64 {
	a := math.Abs(float64(x))
	return float64(math.Nextafter32(float32(a), float32(math.Inf(1)))) - float64(float32(a))
}

// TestQuantizeRoundTrip checks |x - deq(q(x))| <= step/2 inside the
// clipping range for n = 1..16, at random points, at the levels, and at the
// midpoints between levels where the bound is reached. The only slack is
// the rounding of the level to float32, half an ulp.
func TestQuantizeRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for bits := 1; bits <= MaxBits; bits++ {
		for _, clip := range []float32{0.5, 4, 100} {
			q, err := NewQuantizer(bits, clip)
			if err != nil {
				t.Fatal(err)
			}
			step := float64(q.Step())
			if want := 2 * float64(clip) / float64(q.Levels()-1); math.Abs(step-want) > 1e-6*want {
				t.Fatalf("bits %d clip %v: step %v, want %v", bits, clip, step, want)
			}
			xs := []float32{-clip, clip, 0}
			for range 2000 {
				xs = append(xs, float32((2*rng.Float64()-1)*float64(clip)))
			}
			// Midpoints between levels, and the levels themselves.
			for c := 0; c < q.Levels() && c < 600; c++ {
				lv := -float64(clip) + float64(c)*step
				xs = append(xs, float32(lv), float32(lv+step/2))
			}
			for _, x := range xs {
				if math.Abs(float64(x)) > float64(clip) {
					continue
				}
				c := q.Code(x)
				if int(c) >= q.Levels() {
					t.Fatalf("bits %d: code %d out of range", bits, c)
				}
				y := q.Value(c)
				if e := math.Abs(float64(x) - float64(y)); e > step/2+ulp32(y)/2 {
					t.Fatalf("bits %d clip %v: x=%v -> code %d -> %v: error %g > step/2 = %g",
						bits, clip, x, c, y, e, step/2)
				}
			}
			// Outside the range: the end codes.
			if c := q.Code(-2 * clip); c != 0 {
				t.Errorf("bits %d: code(-2*clip) = %d, want 0", bits, c)
			}
			if c := q.Code(2 * clip); int(c) != q.Levels()-1 {
				t.Errorf("bits %d: code(2*clip) = %d, want %d", bits, c, q.Levels()-1)
			}
			if y := q.Value(0); y != -clip {
				t.Errorf("bits %d: level 0 is %v, want %v", bits, y, -clip)
			}
			if y := q.Value(uint16(q.Levels() - 1)); math.Abs(float64(y-clip)) > ulp32(clip) {
				t.Errorf("bits %d: top level is %v, want %v", bits, y, clip)
			}
		}
	}
}

// TestQuantizeSlices checks the batch forms against Code and Value for
// both code widths, and that a code wider than its storage panics.
func TestQuantizeSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	src := make([]float32, 500)
	for i := range src {
		src[i] = float32(5 * rng.NormFloat64())
	}
	for _, bits := range []int{1, 3, 8, 9, 12, 16} {
		q, _ := NewQuantizer(bits, 4)
		got := make([]float32, len(src))
		if bits <= 8 {
			c := make([]uint8, len(src))
			Quantize(c, q, src)
			Dequantize(got, q, c)
		}
		c16 := make([]uint16, len(src))
		Quantize(c16, q, src)
		got16 := make([]float32, len(src))
		Dequantize(got16, q, c16)
		for i, x := range src {
			if c16[i] != q.Code(x) {
				t.Fatalf("bits %d: Quantize gives %d, Code %d", bits, c16[i], q.Code(x))
			}
			if got16[i] != q.Value(c16[i]) {
				t.Fatalf("bits %d: Dequantize gives %v, Value %v", bits, got16[i], q.Value(c16[i]))
			}
			if bits <= 8 && got[i] != got16[i] {
				t.Fatalf("bits %d: uint8 and uint16 codes disagree: %v, %v", bits, got[i], got16[i])
			}
		}
	}
	q9, _ := NewQuantizer(9, 4)
	mustPanic(t, "9-bit codes in uint8", func() { Quantize(make([]uint8, 2), q9, make([]float32, 2)) })
	q8, _ := NewQuantizer(8, 4)
	mustPanic(t, "length mismatch", func() { Quantize(make([]uint8, 2), q8, make([]float32, 3)) })
	mustPanic(t, "zero Quantizer", func() { Dequantize(make([]float32, 2), Quantizer{}, make([]uint16, 2)) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

func TestNewQuantizerErrors(t *testing.T) {
	for _, c := range []struct {
		bits int
		clip float32
		says string
	}{
		{0, 4, "bits must be 1..16"},
		{17, 4, "bits = 17"},
		{8, 0, "clip must be finite and > 0"},
		{8, -1, "clip = -1"},
		{8, float32(math.NaN()), "clip = NaN"},
		{8, float32(math.Inf(1)), "clip = +Inf"},
		// The step 2*clip/255 underflows float32: every value would code
		// to an end code (L9).
		{8, 1e-45, "clip = 1e-45 is not allowed with 8-bit codes: clip must be 1.4987553e-36..3.4028235e+38, so that the step 2*clip/255 is a normal float32"},
		{16, 1e-35, "clip = 1e-35 is not allowed with 16-bit codes: clip must be 3.851801e-34.."},
		{1, 1e-39, "clip = 1e-39 is not allowed with 1-bit codes: clip must be 1.1754944e-38..1.7014117e+38"},
		{1, 2e38, "clip = 2e+38 is not allowed with 1-bit codes"},
	} {
		_, err := NewQuantizer(c.bits, c.clip)
		if !errors.Is(err, ErrRange) || !contains(err.Error(), c.says) {
			t.Errorf("NewQuantizer(%d, %v): %v, want ErrRange saying %q", c.bits, c.clip, err, c.says)
		}
	}
}

// TestQuantizerClipRange checks the clips at both ends of the accepted
// range for every width: accepted with a normal, finite step, and the next
// float32 beyond them rejected, the error naming the value and the range.
func TestQuantizerClipRange(t *testing.T) {
	up, down := float32(math.Inf(1)), float32(0)
	for bits := 1; bits <= MaxBits; bits++ {
		lo, hi := clipRange(bits)
		for _, clip := range []float32{lo, hi} {
			q, err := NewQuantizer(bits, clip)
			if err != nil {
				t.Fatalf("bits %d: NewQuantizer(%v) = %v", bits, clip, err)
			}
			if s := q.Step(); !(s >= minNormal32) || math.IsInf(float64(s), 0) {
				t.Errorf("bits %d clip %v: step %v is not a normal float32", bits, clip, s)
			}
		}
		// At the smallest clip adjacent levels are still distinct float32
		// values; where the step underflows they are not.
		if q, _ := NewQuantizer(bits, lo); !(q.Value(0) < q.Value(1)) {
			t.Errorf("bits %d clip %v: levels 0 and 1 are both %v", bits, lo, q.Value(0))
		}
		outside := []float32{math.Nextafter32(lo, down)}
		if hi < math.MaxFloat32 {
			outside = append(outside, math.Nextafter32(hi, up))
		}
		for _, clip := range outside {
			_, err := NewQuantizer(bits, clip)
			want := fmt.Sprintf("clip = %v is not allowed with %d-bit codes: clip must be %v..%v", clip, bits, lo, hi)
			if !errors.Is(err, ErrRange) || !contains(err.Error(), want) {
				t.Errorf("NewQuantizer(%d, %v) = %v, want ErrRange saying %q", bits, clip, err, want)
			}
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestQuantizeScaled checks the fused standardize-and-quantize pass against
// Code on the standardized value, and its count of clipped values.
func TestQuantizeScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	src := make([]float32, 5000)
	for i := range src {
		src[i] = float32(10 + 3*rng.NormFloat64())
	}
	mean, inv := 10.0, 1/3.0
	for _, bits := range []int{1, 4, 8, 12, 16} {
		q, _ := NewQuantizer(bits, 2.5)
		got := make([]uint16, len(src))
		clipped := quantizeScaled(got, q, src, mean, inv)
		want := 0
		for i, x := range src {
			z := (float64(x) - mean) * inv
			if math.Abs(z) > 2.5 {
				want++
			}
			if c := q.code(z); got[i] != c {
				t.Fatalf("bits %d: x=%v: code %d, want %d", bits, x, got[i], c)
			}
		}
		if clipped != want || want == 0 {
			t.Errorf("bits %d: %d clipped, want %d (> 0)", bits, clipped, want)
		}
	}
}
