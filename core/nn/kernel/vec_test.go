package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

func randSlice(rng *rand.Rand, n int, scale float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * scale)
	}
	return x
}

// TestTanhBackwardFamilies compares every family with the float64 formula
// on a length with a vector part and a scalar tail.
func TestTanhBackwardFamilies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	y, dy := randSlice(rng, 37, 0.5), randSlice(rng, 37, 1)
	for _, im := range families() {
		saved := active
		active = im
		dx := make([]float32, 37)
		TanhBackward(dx, dy, y)
		active = saved
		for i := range dx {
			want := float64(dy[i]) * (1 - float64(y[i])*float64(y[i]))
			if math.Abs(float64(dx[i])-want) > 2e-7*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: dx[%d] = %g, want %g", im.name, i, dx[i], want)
			}
		}
	}
}

// TestAdamFamilies runs three Adam steps on 37 parameters with every family
// and compares with PyTorch's update in float64.
func TestAdamFamilies(t *testing.T) {
	const n = 37
	rng := rand.New(rand.NewPCG(2, 2))
	p0 := randSlice(rng, n, 1)
	grads := [][]float32{randSlice(rng, n, 1), randSlice(rng, n, 0.01), randSlice(rng, n, 3)}
	const b1, b2, lr, eps = 0.9, 0.999, 0.01, 1e-5
	for _, im := range families() {
		saved := active
		active = im
		p := append([]float32(nil), p0...)
		m, v := make([]float32, n), make([]float32, n)
		pr, mr, vr := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range pr {
			pr[i] = float64(p0[i])
		}
		for step, g := range grads {
			t1 := float64(step + 1)
			bc1, bc2 := 1-math.Pow(b1, t1), 1-math.Pow(b2, t1)
			Adam(p, g, m, v, 1-b1, b2, 1-b2, float32(lr/bc1), float32(math.Sqrt(bc2)), eps)
			for i := range pr {
				gi := float64(g[i])
				mr[i] = b1*mr[i] + (1-b1)*gi
				vr[i] = b2*vr[i] + (1-b2)*gi*gi
				pr[i] -= lr / bc1 * mr[i] / (math.Sqrt(vr[i])/math.Sqrt(bc2) + eps)
			}
		}
		active = saved
		for i := range p {
			if math.Abs(float64(p[i])-pr[i]) > 1e-6*math.Max(1, math.Abs(pr[i])) {
				t.Errorf("%s: p[%d] = %.8g, float64 Adam %.8g", im.name, i, p[i], pr[i])
			}
		}
	}
}

// TestAdamFlushesTinyMoments checks that moments decaying towards 0 are
// flushed at adamTiny instead of entering the subnormals, in every kernel
// family and identically, including the lanes of the vector loop.
func TestAdamFlushesTinyMoments(t *testing.T) {
	const n = 19 // two vector blocks and a scalar tail
	for _, im := range families() {
		t.Run(im.name, func(t *testing.T) {
			saved := active
			active = im
			defer func() { active = saved }()
			p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range n {
				m[i], v[i] = 1.05e-30, 1.0005e-30 // one decay (x0.9, x0.999) takes them below 1e-30
				if i%2 == 1 {
					m[i] = -m[i]
				}
			}
			Adam(p, g, m, v, 0.1, 0.999, 0.001, 1e-3, 1, 1e-8)
			for i := range n {
				if m[i] != 0 || v[i] != 0 {
					t.Fatalf("element %d: m = %g, v = %g, want both flushed to 0", i, m[i], v[i])
				}
			}
			m[0], v[0] = 1e-29, 1e-29 // above the threshold after one decay: kept
			Adam(p[:1], g[:1], m[:1], v[:1], 0.1, 0.999, 0.001, 1e-3, 1, 1e-8)
			if m[0] == 0 || v[0] == 0 {
				t.Errorf("moments above the threshold were flushed: m = %g, v = %g", m[0], v[0])
			}
		})
	}
}
