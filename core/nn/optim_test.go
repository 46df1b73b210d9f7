package nn

import (
	"math"
	"testing"
)

// vecModule is a bare parameter vector for optimizer tests.
type vecModule struct{ p, g []float32 }

func (v *vecModule) Params() []float32 { return v.p }
func (v *vecModule) Grads() []float32  { return v.g }

// TestAdamMatchesPyTorchFormula runs four steps with a learning-rate change
// after the second and compares with the update of torch.optim.Adam written
// out in float64. Eps = 1e-3 is large on purpose: it makes the placement of
// eps (after the bias correction of sqrt(v)) visible in the result.
func TestAdamMatchesPyTorchFormula(t *testing.T) {
	m := &vecModule{p: []float32{1, -0.5}, g: make([]float32, 2)}
	opt, err := NewAdam(0.1, m)
	if err != nil {
		t.Fatal(err)
	}
	opt.Eps = 1e-3
	grads := [][2]float64{{0.5, 1e-3}, {-0.2, 2e-3}, {0.1, -1e-3}, {0.3, 0}}
	p := []float64{1, -0.5}
	mm, vv := make([]float64, 2), make([]float64, 2)
	lr := 0.1
	for step, g := range grads {
		if step == 2 {
			lr = 0.05
			opt.LR = lr
		}
		m.g[0], m.g[1] = float32(g[0]), float32(g[1])
		opt.Step()
		tt := float64(step + 1)
		for i := range p {
			mm[i] = 0.9*mm[i] + 0.1*g[i]
			vv[i] = 0.999*vv[i] + 0.001*g[i]*g[i]
			denom := math.Sqrt(vv[i])/math.Sqrt(1-math.Pow(0.999, tt)) + 1e-3
			p[i] -= lr / (1 - math.Pow(0.9, tt)) * mm[i] / denom
			if d := math.Abs(float64(m.p[i]) - p[i]); d > 1e-6 {
				t.Fatalf("step %d: p[%d] = %.8f, PyTorch formula %.8f", step+1, i, m.p[i], p[i])
			}
		}
	}
	if opt.Steps() != 4 {
		t.Errorf("Steps() = %d, want 4", opt.Steps())
	}
}

func TestAdamRejects(t *testing.T) {
	for _, lr := range []float64{-1, math.NaN(), math.Inf(1)} {
		if _, err := NewAdam(lr); err == nil {
			t.Errorf("NewAdam(%g) returned no error", lr)
		}
	}
	opt, _ := NewAdam(0.1, &vecModule{p: []float32{0}, g: []float32{0}})
	opt.Beta2 = 1
	defer func() {
		if r := recover(); r == nil {
			t.Error("Step with Beta2 = 1 did not panic")
		}
	}()
	opt.Step()
}

func TestClipGradNorm(t *testing.T) {
	a := &vecModule{p: make([]float32, 2), g: []float32{3, 4}}
	b := &vecModule{p: make([]float32, 1), g: []float32{12}}
	if n := ClipGradNorm(20, a, b); math.Abs(n-13) > 1e-12 || a.g[0] != 3 || b.g[0] != 12 {
		t.Fatalf("norm 13 under max 20: returned %g, grads %v %v changed", n, a.g, b.g)
	}
	n := ClipGradNorm(6.5, a, b)
	if math.Abs(n-13) > 1e-12 {
		t.Fatalf("ClipGradNorm returned %g, want the unclipped norm 13", n)
	}
	coef := 6.5 / (13 + 1e-6)
	for i, want := range []float64{3 * coef, 4 * coef} {
		if math.Abs(float64(a.g[i])-want) > 1e-6 {
			t.Errorf("a.g[%d] = %g, want %g", i, a.g[i], want)
		}
	}
	if math.Abs(float64(b.g[0])-12*coef) > 1e-6 {
		t.Errorf("b.g[0] = %g, want %g", b.g[0], 12*coef)
	}
}

func TestPolyakAverage(t *testing.T) {
	dst := []float32{1, 2}
	Polyak(dst, []float32{3, 6}, 0.25)
	if dst[0] != 1.5 || dst[1] != 3 {
		t.Errorf("Polyak = %v, want [1.5 3]", dst)
	}
	a, b := []float32{1, 2, 3}, []float32{3, 4, 5}
	Average(a, a, b)
	if a[0] != 2 || a[1] != 3 || a[2] != 4 {
		t.Errorf("Average = %v, want [2 3 4]", a)
	}
}

func TestClipGradNormNonFinite(t *testing.T) {
	for _, bad := range []float32{float32(math.Inf(1)), float32(math.NaN())} {
		a := &vecModule{p: make([]float32, 2), g: []float32{bad, 1}}
		n := ClipGradNorm(1, a)
		if !math.IsInf(n, 1) && !math.IsNaN(n) {
			t.Errorf("norm of a gradient with %g = %g", bad, n)
		}
		if a.g[1] != 1 {
			t.Errorf("gradient with %g: finite entry scaled to %g", bad, a.g[1])
		}
	}
}
