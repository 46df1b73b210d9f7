package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCategoricalSample draws 60000 actions from probabilities 1/6, 2/6,
// 3/6. Chi-square with 2 degrees of freedom stays below 13.82 with
// probability 0.999. It also checks the returned log-probabilities.
func TestCategoricalSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const rows = 60000
	logits := make([]float32, 3*rows)
	for i := 0; i < rows; i++ {
		logits[3*i], logits[3*i+1], logits[3*i+2] = 0, float32(math.Log(2)), float32(math.Log(3))
	}
	actions := make([]int, rows)
	logp := make([]float32, rows)
	CategoricalSample(actions, logp, logits, 3, rng)
	var count [3]int
	for i, a := range actions {
		count[a]++
		if want := math.Log(float64(a+1) / 6); math.Abs(float64(logp[i])-want) > 1e-6 {
			t.Fatalf("logp of action %d = %g, want %g", a, logp[i], want)
		}
	}
	var chi2 float64
	for a, c := range count {
		e := rows * float64(a+1) / 6
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	if chi2 > 13.82 {
		t.Errorf("counts %v: chi-square %.1f > 13.82", count, chi2)
	}
	Argmax(actions[:2], []float32{1, 3, 2, 5, 5, 0}, 3)
	if actions[0] != 1 || actions[1] != 0 {
		t.Errorf("Argmax = %v, want [1 0]", actions[:2])
	}
}

// TestGaussianSample checks mean and variance of 40000 draws with mean 1
// and log-std log 2 against 5 standard errors, and that Sample's
// log-probabilities equal LogProb's on the same actions.
func TestGaussianSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	g := NewDiagGaussian(2, float32(math.Log(2)))
	const rows = 40000
	mean := make([]float32, 2*rows)
	for i := range mean {
		mean[i] = 1
	}
	actions := make([]float32, 2*rows)
	logp := make([]float32, rows)
	g.Sample(actions, logp, mean, rng)
	var s, ss float64
	for _, a := range actions {
		s += float64(a)
		ss += float64(a) * float64(a)
	}
	n := float64(len(actions))
	mu := s / n
	v := ss/n - mu*mu
	if math.Abs(mu-1) > 5*2/math.Sqrt(n) {
		t.Errorf("sample mean %g, want 1 within %g", mu, 5*2/math.Sqrt(n))
	}
	if math.Abs(v-4) > 5*4*math.Sqrt(2/n) {
		t.Errorf("sample variance %g, want 4 within %g", v, 5*4*math.Sqrt(2/n))
	}
	lp := make([]float32, rows)
	g.LogProb(lp, nil, mean, actions)
	for i := range lp {
		if math.Abs(float64(lp[i]-logp[i])) > 1e-6 {
			t.Fatalf("row %d: Sample logp %g, LogProb %g", i, logp[i], lp[i])
		}
	}
}

func TestConcatColumns(t *testing.T) {
	obs := []float32{1, 2, 3, 4, 5, 6} // 2 rows of 3
	act := []float32{7, 8}             // 2 rows of 1
	x := make([]float32, 8)
	Concat(x, obs, 3, act, 1)
	want := []float32{1, 2, 3, 7, 4, 5, 6, 8}
	for i := range want {
		if x[i] != want[i] {
			t.Fatalf("Concat = %v, want %v", x, want)
		}
	}
	a := make([]float32, 2)
	Columns(a, x, 4, 3, 4)
	if a[0] != 7 || a[1] != 8 {
		t.Errorf("Columns = %v, want [7 8]", a)
	}
}
