package ppo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Gymnasium's RunningMeanStd starts as a pseudo-sample of count c0 = 1e-4,
// mean 0 and variance 1. Pooling it with values x_1..x_n (mean m, squared
// deviations S) gives, in closed form,
//
//	mean = n m / (c0 + n)
//	var  = (c0 + S + m^2 c0 n/(c0 + n)) / (c0 + n)
//
// which the value-by-value merges must reproduce.
func TestRunningMeanStdClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	mean, vr, count := 0.0, 1.0, rmsInitCount
	var xs []float64
	for k := 0; k < 500; k++ {
		x := 3 + 2*rng.NormFloat64()
		xs = append(xs, x)
		rmsPush(&mean, &vr, count, x)
		count++
		if k == 0 || k == 9 || k == 499 {
			n := float64(len(xs))
			var sum float64
			for _, v := range xs {
				sum += v
			}
			m := sum / n
			var s float64
			for _, v := range xs {
				s += (v - m) * (v - m)
			}
			wantMean := n * m / (rmsInitCount + n)
			wantVar := (rmsInitCount + s + m*m*rmsInitCount*n/(rmsInitCount+n)) / (rmsInitCount + n)
			if !near(mean, wantMean, 1e-12) || !near(vr, wantVar, 1e-10) {
				t.Errorf("after %d values: mean %v var %v, want %v %v", len(xs), mean, vr, wantMean, wantVar)
			}
		}
	}
}

// Observations: per-copy statistics, updated before normalizing, clipped.
func TestObsNormalizer(t *testing.T) {
	o := newObsNormalizer(2, 2, 10)
	dst := make([]float32, 2)
	// First value of copy 0: mean = x/(1+1e-4), var = (1e-4 + x^2 1e-4/(1+1e-4))/(1+1e-4).
	x := []float32{3, -1}
	o.apply(dst, x, 0)
	for j, v := range x {
		c := 1 + rmsInitCount
		m := float64(v) / c
		vr := (rmsInitCount + float64(v)*float64(v)*rmsInitCount/c) / c
		want := (float64(v) - m) / math.Sqrt(vr+normEps)
		if !near(float64(dst[j]), want, 1e-6) {
			t.Errorf("copy 0 dim %d: %v, want %v", j, dst[j], want)
		}
	}
	// Copy 1 is untouched by copy 0's value: its first value normalizes
	// the same way.
	o.apply(dst, []float32{3, -1}, 1)
	if o.count[1] != 1+rmsInitCount || o.count[0] != 1+rmsInitCount {
		t.Errorf("counts %v", o.count)
	}
	// A far outlier clips to ±10. Gymnasium merges a value before it
	// normalizes it, so after n values nothing exceeds about sqrt(n):
	// 200 values leave room for 14.
	for k := 0; k < 200; k++ {
		o.apply(dst, []float32{0, 0}, 0)
	}
	o.apply(dst, []float32{1e6, -1e6}, 0)
	if dst[0] != 10 || dst[1] != -10 {
		t.Errorf("outlier normalized to %v, want ±10", dst)
	}
}

// Rewards: the discounted return of the copy, discounted with this step's
// terminated flag, standardizes nothing but the scale; clipped to ±clip.
func TestRewardNormalizer(t *testing.T) {
	r := newRewardNormalizer(1, 0.5, 10)
	mean, vr, count := 0.0, 1.0, rmsInitCount
	ret := 0.0
	for k, c := range []struct {
		r    float32
		term bool
	}{{1, false}, {2, false}, {-1, true}, {4, false}, {0.5, false}} {
		if c.term {
			ret = float64(c.r) // gamma*(1-terminated) drops the past at the terminal step
		} else {
			ret = ret*0.5 + float64(c.r)
		}
		rmsPush(&mean, &vr, count, ret)
		count++
		// The first reward is 1/sqrt(var) = 70.7 standard deviations:
		// clipped to 10.
		want := min(max(float64(c.r)/math.Sqrt(vr+normEps), -10), 10)
		if got := r.apply(c.r, c.term, 0); !near(float64(got), want, 1e-6) {
			t.Errorf("step %d: %v, want %v", k, got, want)
		}
	}
}
