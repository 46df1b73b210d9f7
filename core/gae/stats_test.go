package gae

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestRunningStatsKnown(t *testing.T) {
	// 2 4 4 4 5 5 7 9: mean 5, population standard deviation 2.
	x := []float32{2, 4, 4, 4, 5, 5, 7, 9}
	var push, batch RunningStats
	for _, v := range x {
		push.Push(float64(v))
	}
	batch.Update(x)
	for _, s := range []RunningStats{push, batch} {
		if s.N != 8 || s.Mean != 5 || s.Std() != 2 {
			t.Errorf("stats %+v: N %d mean %v std %v, want 8 5 2", s, s.N, s.Mean, s.Std())
		}
	}
	var empty RunningStats
	if empty.Var() != 0 || empty.Std() != 0 {
		t.Error("empty stats are not zero")
	}
	empty.Update(nil)
	if empty.N != 0 {
		t.Error("an empty batch counted")
	}
}

// TestRunningStatsBatches checks that merging batches (Update) gives what
// Welford's per-element update (Push, 004 eq. (7)-(8)) gives, on data with
// a large mean, where a sum-of-squares formula would lose most digits.
func TestRunningStatsBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var push, batch RunningStats
	for b := range 50 {
		x := make([]float32, 1+rng.IntN(300))
		for i := range x {
			x[i] = float32(1e4 + float64(b) + 3*rng.NormFloat64())
		}
		for _, v := range x {
			push.Push(float64(v))
		}
		batch.Update(x)
	}
	if push.N != batch.N {
		t.Fatalf("counts %d and %d", push.N, batch.N)
	}
	if d := math.Abs(push.Mean - batch.Mean); d > 1e-9*math.Abs(push.Mean) {
		t.Errorf("means %v and %v", push.Mean, batch.Mean)
	}
	if d := math.Abs(push.Var() - batch.Var()); d > 1e-9*push.Var() {
		t.Errorf("variances %v and %v", push.Var(), batch.Var())
	}
	// The standard deviation of 50 batches with means 1e4..1e4+49 and
	// noise 3 is about sqrt(3^2 + 50^2/12) ~ 15.
	if s := batch.Std(); s < 10 || s > 20 {
		t.Errorf("std %v, want about 15", s)
	}
}
