package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tanhInputs is a sweep over [-12, 12] in steps of 1/4096, the branch
// boundaries and their neighbours, special values, and random normals.
func tanhInputs() []float32 {
	var x []float32
	for i := -12 * 4096; i <= 12*4096; i++ {
		x = append(x, float32(i)/4096)
	}
	for _, b := range []float32{tanhSmall, tanhClamp, 1e-30, 1e-8, 3e-4, 100, float32(math.Inf(1)), float32(math.MaxFloat32)} {
		x = append(x, b, -b, math.Nextafter32(b, 0), -math.Nextafter32(b, 0), math.Nextafter32(b, 100))
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 10000 {
		x = append(x, float32(rng.NormFloat64()*3))
	}
	for len(x)%8 != 3 { // leave a scalar tail after the vector part
		x = append(x, 0.25)
	}
	return x
}

// TestTanhAccuracy bounds the error of both Tanh paths against math.Tanh:
// at most 2 ulp of the float32 result, or 6e-8 absolutely (half an ulp of
// 1, reached where (1-e)/(1+e) rounds near the 0.55 switch).
func TestTanhAccuracy(t *testing.T) {
	x := tanhInputs()
	for _, im := range families() {
		saved := active
		active = im
		got := make([]float32, len(x))
		Tanh(got, x)
		active = saved
		var worst float64
		for i, v := range x {
			want := math.Tanh(float64(v))
			w32 := float32(want)
			ulp := float64(math.Nextafter32(float32(math.Abs(float64(w32))), 2) - float32(math.Abs(float64(w32))))
			err := math.Abs(float64(got[i]) - want)
			if !(err <= max(2*ulp, 6e-8)) {
				t.Fatalf("%s: tanh(%g) = %g, want %g (error %g, ulp %g)", im.name, v, got[i], want, err, ulp)
			}
			worst = max(worst, err/max(ulp, 1e-45))
		}
		t.Logf("%s: worst error %.2f ulp", im.name, worst)
	}
	// NaN propagates through both paths.
	nan := float32(math.NaN())
	in := []float32{nan, nan, nan, nan, nan, nan, nan, nan, nan}
	out := make([]float32, len(in))
	Tanh(out, in)
	for i, v := range out {
		if v == v {
			t.Errorf("tanh(NaN)[%d] = %g, want NaN", i, v)
		}
	}
}

func TestTanhInPlace(t *testing.T) {
	x := []float32{-3, -0.5, 0, 0.1, 0.7, 2, 5, 20, -0.01, 1}
	want := make([]float32, len(x))
	Tanh(want, x)
	Tanh(x, x)
	for i := range x {
		if x[i] != want[i] {
			t.Fatalf("in place: x[%d] = %g, want %g", i, x[i], want[i])
		}
	}
}

func TestActivationBackward(t *testing.T) {
	y := []float32{-0.5, 0, 0.5, 2}
	dy := []float32{1, 2, 3, 4}
	dx := make([]float32, 4)
	TanhBackward(dx, dy, y)
	for i, want := range []float32{0.75, 2, 2.25, -12} {
		if dx[i] != want {
			t.Errorf("TanhBackward[%d] = %g, want %g", i, dx[i], want)
		}
	}
	negZero := float32(math.Copysign(0, -1))
	ReLU(dx, []float32{-1, 0, 3, negZero})
	for i, want := range []float32{0, 0, 3, 0} {
		if dx[i] != want {
			t.Errorf("ReLU[%d] = %g, want %g", i, dx[i], want)
		}
	}
	ReLUBackward(dx, dy, y)
	for i, want := range []float32{0, 0, 3, 4} {
		if dx[i] != want {
			t.Errorf("ReLUBackward[%d] = %g, want %g", i, dx[i], want)
		}
	}
}

func BenchmarkTanh(b *testing.B) {
	x := make([]float32, 128*64)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	dst := make([]float32, len(x))
	for _, im := range families() {
		b.Run(im.name, func(b *testing.B) {
			saved := active
			active = im
			defer func() { active = saved }()
			b.ReportAllocs()
			for b.Loop() {
				Tanh(dst, x)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
		})
	}
	b.Run("math.Tanh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i, v := range x {
				dst[i] = float32(math.Tanh(float64(v)))
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)), "ns/elem")
	})
}

// TestReLUSpecialValues checks the branch-free ReLU pair against their
// definition on signed zeros, infinities, NaN and denormals.
func TestReLUSpecialValues(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	nan := float32(math.NaN())
	in := []float32{negZero, 0, 1e-45, -1e-45, float32(math.Inf(1)), float32(math.Inf(-1)), nan, 2, -2}
	dy := []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	out := make([]float32, len(in))
	ReLU(out, in)
	for i, x := range in {
		want := x
		if x < 0 {
			want = 0
		}
		if out[i] != want && !(x != x && out[i] != out[i]) && !(x == 0 && out[i] == 0) {
			t.Errorf("ReLU(%g) = %g, want %g", x, out[i], want)
		}
	}
	ReLUBackward(out, dy, in)
	for i, y := range in {
		want := float32(0)
		if y > 0 {
			want = dy[i]
		}
		if out[i] != want {
			t.Errorf("ReLUBackward at y=%g: %g, want %g", y, out[i], want)
		}
	}
}
