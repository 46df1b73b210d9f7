package ppo

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func logs(rs ...float64) []float32 {
	out := make([]float32, len(rs))
	for i, r := range rs {
		out[i] = float32(math.Log(r))
	}
	return out
}

// The clipped surrogate on hand-computed cases, clip 0.2, old log-probs 0
// so that r = exp(newLogp):
//
//	r    A   -A r   -A clip(r)  max    chosen     dL/dlogp (M = 5)
//	1.5  2   -3     -2.4        -2.4   clipped    0
//	1.5 -2    3      2.4         3     unclipped  -A r/M =  0.6
//	0.5  1   -0.5   -0.8        -0.5   unclipped  -A r/M = -0.1
//	0.5 -1    0.5    0.8         0.8   clipped    0
//	1.1  3   -3.3   -3.3        -3.3   inside     -A r/M = -0.66
//
// L = (-2.4 + 3 - 0.5 + 0.8 - 3.3)/5 = -0.48; 4 of 5 outside the range;
// approx KL = mean((r-1) - ln r), old approx KL = mean(-ln r).
func TestClippedSurrogateHand(t *testing.T) {
	newLogp := logs(1.5, 1.5, 0.5, 0.5, 1.1)
	oldLogp := make([]float32, 5)
	adv := []float32{2, -2, 1, -1, 3}
	d := make([]float32, 5)
	s := ClippedSurrogate(d, newLogp, oldLogp, adv, 0.2)
	wantD := []float64{0, 0.6, -0.1, 0, -0.66}
	l15, l05, l11 := math.Log(1.5), math.Log(0.5), math.Log(1.1)
	wantKL := (2*(0.5-l15) + 2*(-0.5-l05) + (0.1 - l11)) / 5
	wantOld := -(2*l15 + 2*l05 + l11) / 5
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"loss", s.Loss, -0.48},
		{"approx KL", s.ApproxKL, wantKL},
		{"old approx KL", s.OldApproxKL, wantOld},
		{"clip fraction", s.ClipFrac, 0.8},
	} {
		if !near(c.got, c.want, 1e-6) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	for i, w := range wantD {
		if !near(float64(d[i]), w, 1e-6) {
			t.Errorf("dL/dlogp[%d] = %v, want %v", i, d[i], w)
		}
	}
	// Without a gradient slice the statistics are the same.
	if s2 := ClippedSurrogate(nil, newLogp, oldLogp, adv, 0.2); s2 != s {
		t.Errorf("without dLogp: %+v, with: %+v", s2, s)
	}
}

// The value loss on hand-computed cases. With clip c, vc = old +
// clamp(v - old, -c, c), L = 1/2 mean(max((v-R)^2, (vc-R)^2)); the
// gradient of coef*L is coef*(v-R)/M where the unclipped term wins, 0 where
// the clipped one wins outside the range, and half of each on a tie.
func TestValueLossHand(t *testing.T) {
	for _, c := range []struct {
		name              string
		v, old, ret       []float32
		clip, coef        float64
		wantLoss          float64
		wantGrad          []float64
		nilOld, checkOnly bool
	}{
		{
			// v  old  R    d     vc   (v-R)^2 (vc-R)^2  chosen     g
			// 1  .5   2    .5    .7   1       1.69      clipped    0
			// 1  .5   0    .5    .7   1       .49       unclipped  1
			// .6 .5   2    .1    .6   1.96    1.96      tie inside -1.4
			// 0  .5   .6  -.5    .3   .36     .09       unclipped  -.6
			name: "clipped", v: []float32{1, 1, 0.6, 0}, old: []float32{0.5, 0.5, 0.5, 0.5}, ret: []float32{2, 0, 2, 0.6},
			clip: 0.2, coef: 0.5, wantLoss: 0.5 * (1.69 + 1 + 1.96 + 0.36) / 4,
			wantGrad: []float64{0, 0.5 * 1 / 4, 0.5 * -1.4 / 4, 0.5 * -0.6 / 4},
		},
		{
			// v = 1, old = 0, clip 0.5: vc = 0.5, R = 0.75 sits halfway:
			// both squares are 1/16, a tie outside the range: half of
			// (v-R) = 0.25 and half of 0.
			name: "tie outside the range", v: []float32{1}, old: []float32{0}, ret: []float32{0.75},
			clip: 0.5, coef: 1, wantLoss: 0.5 * 0.0625, wantGrad: []float64{0.125},
		},
		{
			name: "unclipped", v: []float32{1, 2, 3}, ret: []float32{0, 2, 5}, nilOld: true,
			clip: 0, coef: 0.5, wantLoss: 0.5 * (1 + 0 + 4) / 3,
			wantGrad: []float64{0.5 * 1 / 3, 0, 0.5 * -2 / 3},
		},
	} {
		old := c.old
		if c.nilOld {
			old = nil
		}
		dv := make([]float32, len(c.v))
		loss := ValueLoss(dv, c.v, old, c.ret, c.clip, c.coef)
		if !near(loss, c.wantLoss, 1e-6) {
			t.Errorf("%s: loss %v, want %v", c.name, loss, c.wantLoss)
		}
		for i, w := range c.wantGrad {
			if !near(float64(dv[i]), w, 1e-6) {
				t.Errorf("%s: dv[%d] = %v, want %v", c.name, i, dv[i], w)
			}
		}
		if l2 := ValueLoss(nil, c.v, old, c.ret, c.clip, c.coef); l2 != loss {
			t.Errorf("%s: without dv the loss is %v, with %v", c.name, l2, loss)
		}
	}
}

// The analytic gradients against central differences of the losses, in
// float64 on float32 inputs, away from the kinks of the clamp and the max.
func TestLossGradientsFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, h, clip = 64, 1e-3, 0.2
	newLogp, oldLogp, adv := make([]float32, m), make([]float32, m), make([]float32, m)
	v, oldV, ret := make([]float32, m), make([]float32, m), make([]float32, m)
	for i := range newLogp {
		oldLogp[i] = float32(-rng.Float64() * 2)
		newLogp[i] = oldLogp[i] + float32(rng.NormFloat64()*0.3)
		adv[i] = float32(rng.NormFloat64())
		oldV[i] = float32(rng.NormFloat64() * 3)
		v[i] = oldV[i] + float32(rng.NormFloat64()*0.4)
		ret[i] = float32(rng.NormFloat64() * 3)
	}
	dLogp, dv := make([]float32, m), make([]float32, m)
	ClippedSurrogate(dLogp, newLogp, oldLogp, adv, clip)
	ValueLoss(dv, v, oldV, ret, clip, 0.7)
	checked := 0
	for i := 0; i < m; i++ {
		// Policy: skip points within 2h of a kink (r at 1±clip).
		lr := float64(newLogp[i]) - float64(oldLogp[i])
		if math.Abs(lr-math.Log(1+clip)) > 2*h && math.Abs(lr-math.Log(1-clip)) > 2*h {
			save := newLogp[i]
			newLogp[i] = save + h
			lp := ClippedSurrogate(nil, newLogp, oldLogp, adv, clip).Loss
			newLogp[i] = save - h
			lm := ClippedSurrogate(nil, newLogp, oldLogp, adv, clip).Loss
			newLogp[i] = save
			fd := (lp - lm) / (float64(save+h) - float64(save-h))
			if !near(float64(dLogp[i]), fd, 1e-4) {
				t.Errorf("policy sample %d: dL/dlogp %v, finite difference %v", i, dLogp[i], fd)
			}
			checked++
		}
		// Value: skip points near the clamp edges and near a tie.
		d := float64(v[i]) - float64(oldV[i])
		vc := float64(oldV[i]) + math.Max(-clip, math.Min(clip, d))
		gap := math.Abs(math.Abs(float64(v[i])-float64(ret[i])) - math.Abs(vc-float64(ret[i])))
		if math.Abs(math.Abs(d)-clip) > 2*h && gap > 4*h {
			save := v[i]
			v[i] = save + h
			lp := ValueLoss(nil, v, oldV, ret, clip, 0.7)
			v[i] = save - h
			lm := ValueLoss(nil, v, oldV, ret, clip, 0.7)
			v[i] = save
			fd := 0.7 * (lp - lm) / (float64(save+h) - float64(save-h))
			if !near(float64(dv[i]), fd, 1e-4) {
				t.Errorf("value sample %d: coef dL/dv %v, finite difference %v", i, dv[i], fd)
			}
			checked++
		}
	}
	if checked < m {
		t.Fatalf("only %d of %d gradients checked: the random points sit on kinks", checked, 2*m)
	}
}

func TestNormalizeAdvantages(t *testing.T) {
	s := math.Sqrt(5.0 / 3) // sample std of 1, 2, 3, 4
	for _, c := range []struct {
		in   []float32
		want []float64
	}{
		{[]float32{1, 2, 3, 4}, []float64{-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s}},
		{[]float32{5}, []float64{0}},             // torch.std of one value is NaN; rlx gives 0
		{[]float32{2, 2, 2}, []float64{0, 0, 0}}, // std 0: (a-mean)/1e-8 = 0
	} {
		dst := make([]float32, len(c.in))
		NormalizeAdvantages(dst, c.in)
		for i, w := range c.want {
			if !near(float64(dst[i]), w, 1e-6) {
				t.Errorf("%v: [%d] = %v, want %v", c.in, i, dst[i], w)
			}
		}
		NormalizeAdvantages(c.in, c.in) // in place
		for i := range dst {
			if c.in[i] != dst[i] {
				t.Errorf("in place differs at %d: %v vs %v", i, c.in[i], dst[i])
			}
		}
	}
}

func TestExplainedVariance(t *testing.T) {
	// Var(ret) = 14/9, Var(ret - v) = 2/9: 1 - 1/7.
	if ev := ExplainedVariance([]float32{1, 2, 3}, []float32{1, 2, 4}); !near(ev, 6.0/7, 1e-12) {
		t.Errorf("explained variance %v, want 6/7", ev)
	}
	if ev := ExplainedVariance([]float32{1, 2}, []float32{3, 3}); !math.IsNaN(ev) {
		t.Errorf("constant returns: %v, want NaN", ev)
	}
}

func TestLossMisusePanics(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 2)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"surrogate lengths", func() { ClippedSurrogate(nil, a, b, a, 0.2) }},
		{"surrogate empty", func() { ClippedSurrogate(nil, nil, nil, nil, 0.2) }},
		{"surrogate dLogp", func() { ClippedSurrogate(b, a, a, a, 0.2) }},
		{"value lengths", func() { ValueLoss(nil, a, a, b, 0.2, 1) }},
		{"value oldV", func() { ValueLoss(nil, a, nil, a, 0.2, 1) }},
		{"value clip", func() { ValueLoss(nil, a, a, a, -1, 1) }},
		{"normalize", func() { NormalizeAdvantages(b, a) }},
		{"explained variance", func() { ExplainedVariance(a, b) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "ppo: ") {
					t.Errorf("%s: recovered %v, want a panic with a \"ppo: \" message", c.name, r)
				}
			}()
			c.f()
		}()
	}
}
