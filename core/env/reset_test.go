package env

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// chiUniform returns the chi-square statistic of xs against the uniform
// distribution on [lo, hi) in bins equal bins, and fails if a value falls
// outside.
func chiUniform(t *testing.T, name string, xs []float64, lo, hi float64, bins int) float64 {
	t.Helper()
	count := make([]int, bins)
	for _, x := range xs {
		if x < lo || x >= hi {
			t.Fatalf("%s: reset value %g outside [%g, %g)", name, x, lo, hi)
		}
		count[min(int((x-lo)/(hi-lo)*float64(bins)), bins-1)]++
	}
	e := float64(len(xs)) / float64(bins)
	var chi2 float64
	for _, c := range count {
		chi2 += (float64(c) - e) * (float64(c) - e) / e
	}
	return chi2
}

// TestResetDistributions draws 5000 resets of each classic environment and
// checks every state variable against its uniform reset distribution in 10
// bins. Chi-square with 9 degrees of freedom exceeds 27.88 with probability
// 0.001; the seeds are fixed, so the test is deterministic.
func TestResetDistributions(t *testing.T) {
	const n, bins, limit = 5000, 10, 27.88
	type draw func() []float64
	cp := newCartPole(newRNG(20), &options{})
	ac := newAcrobot(newRNG(21), &options{})
	mc := newMountainCar(newRNG(22), &options{})
	mcc := newMountainCarContinuous(newRNG(23), &options{})
	pd := newPendulum(newRNG(24), &options{})
	for _, tc := range []struct {
		name   string
		draw   draw
		lo, hi []float64
	}{
		{"CartPole", func() []float64 { cp.Reset(make([]float32, 4)); return cp.state[:] },
			[]float64{-0.05, -0.05, -0.05, -0.05}, []float64{0.05, 0.05, 0.05, 0.05}},
		{"Acrobot", func() []float64 { ac.Reset(make([]float32, 6)); return ac.state[:] },
			[]float64{-0.1, -0.1, -0.1, -0.1}, []float64{0.1, 0.1, 0.1, 0.1}},
		{"MountainCar", func() []float64 { mc.Reset(make([]float32, 2)); return []float64{mc.pos} },
			[]float64{-0.6}, []float64{-0.4}},
		{"MountainCarContinuous", func() []float64 { mcc.Reset(make([]float32, 2)); return []float64{mcc.pos} },
			[]float64{-0.6}, []float64{-0.4}},
		{"Pendulum", func() []float64 { pd.Reset(make([]float32, 3)); return []float64{pd.th, pd.thDot} },
			[]float64{-math.Pi, -1}, []float64{math.Pi, 1}},
	} {
		cols := make([][]float64, len(tc.lo))
		for range n {
			s := tc.draw()
			for j := range cols {
				cols[j] = append(cols[j], s[j])
			}
		}
		for j, col := range cols {
			if chi2 := chiUniform(t, tc.name, col, tc.lo[j], tc.hi[j], bins); chi2 > limit {
				t.Errorf("%s: state[%d]: chi-square %.1f > %.2f", tc.name, j, chi2, limit)
			}
		}
	}
	// Acrobot's reset is rounded to float32; the mountain cars start at rest.
	for range 100 {
		ac.Reset(make([]float32, 6))
		for i, v := range ac.state {
			if v != float64(float32(v)) {
				t.Fatalf("Acrobot reset state[%d] = %.17g is not a float32 value", i, v)
			}
		}
		mc.Reset(make([]float32, 2))
		if mc.vel != 0 {
			t.Fatalf("MountainCar reset velocity %g, want 0", mc.vel)
		}
	}
}

// TestBadActions checks that every kind of bad action is an *ActionError
// naming the value and the range, and that it changes nothing: the next
// valid step gives what it would have given without the bad one.
func TestBadActions(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		id   string
		bad  Action
		want string
	}{
		{"CartPole-v1", Discrete(2), "action 2 out of range: discrete actions are 0..1"},
		{"CartPole-v1", Discrete(-1), "action -1 out of range"},
		{"CartPole-v1", Continuous([]float32{1}), "the action space is discrete, 0..1"},
		{"Acrobot-v1", Discrete(3), "discrete actions are 0..2"},
		{"Pendulum-v1", Continuous([]float32{2.5}), "action[0] = 2.5 out of range [-2, 2]"},
		{"Pendulum-v1", Continuous([]float32{nan}), "action[0] = NaN out of range [-2, 2]"},
		{"Pendulum-v1", Continuous([]float32{-inf}), "action[0] = -Inf out of range"},
		{"Pendulum-v1", Continuous([]float32{0, 0}), "action has 2 values: the action space is continuous with 1"},
		{"Pendulum-v1", Discrete(0), "action has 0 values"},
		{"MountainCarContinuous-v0", Continuous([]float32{1.0001}), "action[0] = 1.0001 out of range [-1, 1]"},
		{"Humanoid-workload", Continuous(make17(0.5)), "action[0] = 0.5 out of range [-0.4, 0.4]"},
		{"Pong-workload", Discrete(6), "discrete actions are 0..5"},
	} {
		e1 := must(Make(tc.id, newRNG(30)))
		e2 := must(Make(tc.id, newRNG(30)))
		o1, o2 := make([]float32, e1.Spec().Obs.Dim()), make([]float32, e2.Spec().Obs.Dim())
		e1.Reset(o1)
		e2.Reset(o2)
		_, _, _, err := e1.Step(o1, tc.bad)
		var ae *ActionError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.id) {
			t.Errorf("%s: bad action gave %v, want an *ActionError containing %q", tc.id, err, tc.want)
			continue
		}
		good := zeroAction(e1.Spec())
		r1, t1, _, err1 := e1.Step(o1, good)
		r2, t2, _, err2 := e2.Step(o2, good)
		if err1 != nil || err2 != nil || r1 != r2 || t1 != t2 {
			t.Errorf("%s: after a bad action the next step differs: %g %v %v vs %g %v %v", tc.id, r1, t1, err1, r2, t2, err2)
		}
		for i := range o1 {
			if o1[i] != o2[i] {
				t.Fatalf("%s: after a bad action obs[%d] = %g, without it %g", tc.id, i, o1[i], o2[i])
			}
		}
	}
}

func make17(v float32) []float32 {
	x := make([]float32, 17)
	for i := range x {
		x[i] = v
	}
	return x
}

func TestMakeErrors(t *testing.T) {
	if _, err := Make("CartPole-v0", newRNG(1)); err == nil || !strings.Contains(err.Error(), "CartPole-v1") {
		t.Errorf("unknown id: %v, want an error listing the known ids", err)
	}
	if _, err := Make("CartPole-v1", nil); err == nil {
		t.Error("nil rng accepted")
	}
	if _, err := Make("Hopper-workload", newRNG(1), StepCost(-1)); err == nil {
		t.Error("negative step cost accepted")
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(r.(string), "env: ") {
			t.Errorf("wrong obs length: recovered %v, want an \"env: \" panic", r)
		}
	}()
	must(Make("CartPole-v1", newRNG(1))).Reset(make([]float32, 3))
}

func TestClip(t *testing.T) {
	s := must(Make("Pendulum-v1", newRNG(1))).Spec().Act
	a := []float32{float32(math.NaN())}
	s.Clip(a)
	if a[0] != -2 {
		t.Errorf("Clip(NaN) = %g, want -2", a[0])
	}
	a[0] = 7
	s.Clip(a)
	if a[0] != 2 {
		t.Errorf("Clip(7) = %g, want 2", a[0])
	}
}
