package env

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// near compares a float32 observation with a float64 hand computation: the
// observation is the float64 state rounded once, so half an ulp of float32
// (6e-8 relative) plus a tiny absolute slack for values near 0.
func near(got float32, want float64) bool {
	return math.Abs(float64(got)-want) <= 6e-8*math.Abs(want)+1e-12
}

// TestCartPoleHandSteps integrates three steps from a chosen state with the
// equations written out here (Florian 2007 without friction, Gymnasium's
// constants, explicit Euler) and compares state, reward and flags.
func TestCartPoleHandSteps(t *testing.T) {
	c := newCartPole(newRNG(1), &options{})
	obs := make([]float32, 4)
	c.Reset(obs)
	c.state = [4]float64{0.01, -0.2, 0.03, 0.4}
	x, xd, th, thd := 0.01, -0.2, 0.03, 0.4
	for step, a := range []int{1, 0, 1} {
		f := -10.0
		if a == 1 {
			f = 10.0
		}
		// temp = (F + m_p l th'^2 sin th) / (m_c + m_p)
		temp := (f + 0.1*0.5*thd*thd*math.Sin(th)) / 1.1
		// th'' = (g sin th - cos th temp) / (l (4/3 - m_p cos^2 th / (m_c + m_p)))
		thAcc := (9.8*math.Sin(th) - math.Cos(th)*temp) / (0.5 * (4.0/3.0 - 0.1*math.Cos(th)*math.Cos(th)/1.1))
		// x'' = temp - m_p l th'' cos th / (m_c + m_p)
		xAcc := temp - 0.1*0.5*thAcc*math.Cos(th)/1.1
		x, xd, th, thd = x+0.02*xd, xd+0.02*xAcc, th+0.02*thd, thd+0.02*thAcc

		r, term, trunc, err := c.Step(obs, Discrete(a))
		if err != nil || r != 1 || term || trunc {
			t.Fatalf("step %d: reward %g, terminated %v, truncated %v, err %v", step, r, term, trunc, err)
		}
		for i, want := range []float64{x, xd, th, thd} {
			if !near(obs[i], want) || math.Abs(c.state[i]-want) > 1e-15 {
				t.Fatalf("step %d: state[%d] = %.17g (obs %g), hand %.17g", step, i, c.state[i], obs[i], want)
			}
		}
	}
}

func TestCartPoleTermination(t *testing.T) {
	for _, tc := range []struct {
		name  string
		state [4]float64
		want  bool
	}{
		{"inside", [4]float64{2.3, 0, 0, 0}, false},
		{"cart leaves right", [4]float64{2.399, 1, 0, 0}, true},
		{"cart leaves left", [4]float64{-2.399, -1, 0, 0}, true},
		{"pole falls", [4]float64{0, 0, cpThetaLimit - 1e-4, 0.5}, true},
		{"pole falls left", [4]float64{0, 0, -cpThetaLimit + 1e-4, -0.5}, true},
	} {
		c := newCartPole(newRNG(2), &options{})
		obs := make([]float32, 4)
		c.Reset(obs)
		c.state = tc.state
		r, term, _, err := c.Step(obs, Discrete(0))
		if err != nil || term != tc.want || r != 1 {
			t.Errorf("%s: terminated %v (want %v), reward %g (want 1 even on termination), err %v", tc.name, term, tc.want, r, err)
		}
		if term {
			if _, _, _, err := c.Step(obs, Discrete(0)); !errors.Is(err, ErrNeedsReset) {
				t.Errorf("%s: Step after termination returned %v, want ErrNeedsReset", tc.name, err)
			}
		}
	}
}

// acrobotRef is a second, independent evaluation of the Acrobot step: the
// book equations written with the textbook symbols, and RK4 over a slice.
func acrobotRef(s []float64, torque float64) []float64 {
	deriv := func(y []float64) []float64 {
		t1, t2, w1, w2 := y[0], y[1], y[2], y[3]
		// m1 = m2 = 1, l1 = 1, lc1 = lc2 = 0.5, I1 = I2 = 1, g = 9.8
		d1 := 1*0.25 + 1*(1+0.25+2*1*0.5*math.Cos(t2)) + 1 + 1
		d2 := 1*(0.25+1*0.5*math.Cos(t2)) + 1
		phi2 := 1 * 0.5 * 9.8 * math.Cos(t1+t2-math.Pi/2)
		phi1 := -1*1*0.5*w2*w2*math.Sin(t2) - 2*1*1*0.5*w2*w1*math.Sin(t2) + (1*0.5+1*1)*9.8*math.Cos(t1-math.Pi/2) + phi2
		a2 := (torque + d2/d1*phi1 - 1*1*0.5*w1*w1*math.Sin(t2) - phi2) / (1*0.25 + 1 - d2*d2/d1)
		a1 := -(d2*a2 + phi1) / d1
		return []float64{w1, w2, a1, a2}
	}
	axpy := func(y []float64, h float64, k []float64) []float64 {
		out := make([]float64, len(y))
		for i := range y {
			out[i] = y[i] + h*k[i]
		}
		return out
	}
	const dt = 0.2
	k1 := deriv(s)
	k2 := deriv(axpy(s, dt/2, k1))
	k3 := deriv(axpy(s, dt/2, k2))
	k4 := deriv(axpy(s, dt, k3))
	out := make([]float64, 4)
	for i := range out {
		out[i] = s[i] + dt/6*(k1[i]+2*k2[i]+2*k3[i]+k4[i])
	}
	for i := 0; i < 2; i++ {
		for out[i] > math.Pi {
			out[i] -= 2 * math.Pi
		}
		for out[i] < -math.Pi {
			out[i] += 2 * math.Pi
		}
	}
	out[2] = math.Max(-4*math.Pi, math.Min(4*math.Pi, out[2]))
	out[3] = math.Max(-9*math.Pi, math.Min(9*math.Pi, out[3]))
	return out
}

// TestAcrobotHandSteps runs 40 steps of varied torques from a swinging
// state (so wrapping and the velocity bound are reached) against acrobotRef.
func TestAcrobotHandSteps(t *testing.T) {
	ac := newAcrobot(newRNG(3), &options{})
	obs := make([]float32, 6)
	ac.Reset(obs)
	ac.state = [4]float64{2.5, -1.0, 3.0, 8.0}
	ref := []float64{2.5, -1.0, 3.0, 8.0}
	torques := []float64{-1, 0, 1}
	wrapped, bounded := false, false
	for step := 0; step < 40; step++ {
		a := (step * 7) % 3
		ref = acrobotRef(ref, torques[a])
		r, term, _, err := ac.Step(obs, Discrete(a))
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref {
			if math.Abs(ac.state[i]-ref[i]) > 1e-9*math.Max(1, math.Abs(ref[i])) {
				t.Fatalf("step %d: state[%d] = %.15g, reference %.15g", step, i, ac.state[i], ref[i])
			}
		}
		want := []float64{math.Cos(ref[0]), math.Sin(ref[0]), math.Cos(ref[1]), math.Sin(ref[1]), ref[2], ref[3]}
		for i := range want {
			if math.Abs(float64(obs[i])-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("step %d: obs[%d] = %g, reference %g", step, i, obs[i], want[i])
			}
		}
		wantTerm := -math.Cos(ref[0])-math.Cos(ref[1]+ref[0]) > 1
		if term != wantTerm || (term && r != 0) || (!term && r != -1) {
			t.Fatalf("step %d: terminated %v reward %g, reference terminated %v", step, term, r, wantTerm)
		}
		if term {
			ac.Reset(obs)
			ac.state = [4]float64{ref[0], ref[1], ref[2], ref[3]}
		}
		wrapped = wrapped || math.Abs(ref[0]) > 2.8 || math.Abs(ref[1]) > 2.8
		bounded = bounded || math.Abs(ref[3]) == 9*math.Pi || math.Abs(ref[2]) == 4*math.Pi
	}
	if !wrapped {
		t.Error("the run never came near the angle wrap; choose a livelier start")
	}
	_ = bounded // the velocity bound is exercised in TestAcrobotVelocityBound
}

func TestAcrobotVelocityBound(t *testing.T) {
	ac := newAcrobot(newRNG(4), &options{})
	obs := make([]float32, 6)
	ac.Reset(obs)
	ac.state = [4]float64{0, 0, 4*math.Pi - 0.01, 9*math.Pi - 0.01}
	ac.Step(obs, Discrete(2))
	ref := acrobotRef([]float64{0, 0, 4*math.Pi - 0.01, 9*math.Pi - 0.01}, 1)
	for i := range ref {
		if math.Abs(ac.state[i]-ref[i]) > 1e-9*math.Max(1, math.Abs(ref[i])) {
			t.Errorf("state[%d] = %g, reference %g", i, ac.state[i], ref[i])
		}
	}
	if math.Abs(ac.state[2]) > 4*math.Pi || math.Abs(ac.state[3]) > 9*math.Pi {
		t.Errorf("velocities %g, %g exceed the bounds 4pi, 9pi", ac.state[2], ac.state[3])
	}
}

// TestAcrobotNIPS checks that the NIPS equation differs from the book's by
// exactly the missing term's effect: at theta1' = 0 they agree.
func TestAcrobotNIPS(t *testing.T) {
	book := newAcrobot(newRNG(5), &options{})
	nips := newAcrobot(newRNG(5), &options{})
	nips.Dynamics = NIPS
	s := [4]float64{0.3, 0.7, 0, 1.0}
	if b, n := book.dsdt(s, 1), nips.dsdt(s, 1); b != n {
		t.Errorf("with theta1' = 0 the two dynamics differ: %v vs %v", b, n)
	}
	s[2] = 2
	if b, n := book.dsdt(s, 1), nips.dsdt(s, 1); b == n {
		t.Errorf("with theta1' = 2 the two dynamics agree: %v", b)
	}
}

func TestAcrobotTerminal(t *testing.T) {
	ac := newAcrobot(newRNG(6), &options{})
	obs := make([]float32, 6)
	ac.Reset(obs)
	// Both links straight up: -cos(pi) - cos(2pi) = 0 ... so tilt the first
	// link up and the second along it: theta1 = pi, theta2 = 0 gives
	// -cos(pi) - cos(pi) = 2 > 1.
	ac.state = [4]float64{math.Pi - 0.05, 0, 0, 0}
	r, term, _, _ := ac.Step(obs, Discrete(1))
	if !term || r != 0 {
		t.Errorf("tip above the bar: terminated %v reward %g, want true and 0", term, r)
	}
}

// TestMountainCarHandSteps drives the car from chosen states through the
// equations written out here, including the left wall and the goal.
func TestMountainCarHandSteps(t *testing.T) {
	m := newMountainCar(newRNG(7), &options{})
	obs := make([]float32, 2)
	m.Reset(obs)
	for _, tc := range []struct {
		name     string
		pos, vel float64
		a        int
		term     bool
	}{
		{"push right in the valley", -0.5, 0.01, 2, false},
		{"no push", -0.3, -0.02, 1, false},
		{"speed limit and right edge", 0.55, 0.0699, 2, true},
		{"left wall", -1.19, -0.03, 0, false},
		{"goal", 0.49, 0.03, 2, true},
		{"at goal going back", 0.52, -0.01, 0, false},
	} {
		m.pos, m.vel, m.running = tc.pos, tc.vel, true
		v := tc.vel + float64(tc.a-1)*0.001 + math.Cos(3*tc.pos)*(-0.0025)
		v = math.Max(-0.07, math.Min(0.07, v))
		x := math.Max(-1.2, math.Min(0.6, tc.pos+v))
		if x == -1.2 && v < 0 {
			v = 0
		}
		r, term, _, err := m.Step(obs, Discrete(tc.a))
		if err != nil || r != -1 || term != tc.term || term != (x >= 0.5 && v >= 0) {
			t.Errorf("%s: reward %g terminated %v err %v; want -1, %v", tc.name, r, term, err, tc.term)
		}
		if m.pos != x || m.vel != v || !near(obs[0], x) || !near(obs[1], v) {
			t.Errorf("%s: state (%.17g, %.17g), hand (%.17g, %.17g)", tc.name, m.pos, m.vel, x, v)
		}
	}
}

func TestMountainCarContinuousHandSteps(t *testing.T) {
	m := newMountainCarContinuous(newRNG(8), &options{})
	obs := make([]float32, 2)
	m.Reset(obs)
	for _, tc := range []struct {
		name     string
		pos, vel float64
		a        float32
		term     bool
	}{
		{"full right", -0.5, 0.01, 1, false},
		{"half left", -0.3, -0.02, -0.5, false},
		{"left wall", -1.19, -0.03, -1, false},
		{"goal", 0.44, 0.03, 0.25, true},
	} {
		m.pos, m.vel, m.running = tc.pos, tc.vel, true
		f := float64(tc.a)
		v := tc.vel + f*0.0015 - 0.0025*math.Cos(3*tc.pos)
		v = math.Max(-0.07, math.Min(0.07, v))
		x := math.Max(-1.2, math.Min(0.6, tc.pos+v))
		if x == -1.2 && v < 0 {
			v = 0
		}
		want := -0.1 * f * f
		if tc.term {
			want += 100
		}
		r, term, _, err := m.Step(obs, Continuous([]float32{tc.a}))
		if err != nil || math.Abs(r-want) > 1e-12 || term != tc.term {
			t.Errorf("%s: reward %g terminated %v err %v; want %g, %v", tc.name, r, term, err, want, tc.term)
		}
		// The state is kept in float32, as Gymnasium keeps it.
		if m.pos != float64(float32(x)) || m.vel != float64(float32(v)) || !near(obs[0], x) {
			t.Errorf("%s: state (%.17g, %.17g), hand (%.17g, %.17g) rounded to float32", tc.name, m.pos, m.vel, x, v)
		}
	}
}

// TestPendulumHandSteps runs five steps through the equations written out
// here, from a state past pi so that the angle normalization in the cost
// matters.
func TestPendulumHandSteps(t *testing.T) {
	p := newPendulum(newRNG(9), &options{})
	obs := make([]float32, 3)
	p.Reset(obs)
	p.th, p.thDot = 3.5, -7.9
	th, thd := 3.5, -7.9
	for step, u := range []float32{2, -2, 0.5, -1.25, 0} {
		uu := float64(u)
		nth := math.Mod(th+math.Pi, 2*math.Pi)
		if nth < 0 {
			nth += 2 * math.Pi
		}
		nth -= math.Pi
		cost := nth*nth + 0.1*thd*thd + 0.001*uu*uu
		newThd := thd + (3*10.0/(2*1.0)*math.Sin(th)+3.0/(1.0*1.0)*uu)*0.05
		newThd = math.Max(-8, math.Min(8, newThd))
		th, thd = th+newThd*0.05, newThd
		r, term, trunc, err := p.Step(obs, Continuous([]float32{u}))
		if err != nil || term || trunc || math.Abs(r+cost) > 1e-12 {
			t.Fatalf("step %d: reward %g (hand %g) terminated %v truncated %v err %v", step, r, -cost, term, trunc, err)
		}
		if p.th != th || p.thDot != thd || !near(obs[0], math.Cos(th)) || !near(obs[1], math.Sin(th)) || !near(obs[2], thd) {
			t.Fatalf("step %d: state (%g, %g) obs %v, hand (%g, %g)", step, p.th, p.thDot, obs, th, thd)
		}
	}
	if got := angleNormalize(-4); math.Abs(got-(-4+2*math.Pi)) > 1e-15 {
		t.Errorf("angleNormalize(-4) = %g, want %g (floored modulo)", got, -4+2*math.Pi)
	}
}

// TestTruncation checks every environment's registered time limit, the
// MaxEpisodeSteps override, and that stepping past the end is refused.
func TestTruncation(t *testing.T) {
	limits := map[string]int{
		"CartPole-v1": 500, "Acrobot-v1": 500, "MountainCar-v0": 200,
		"MountainCarContinuous-v0": 999, "Pendulum-v1": 200,
		"Hopper-workload": 1000, "Ant-workload": 1000, "Humanoid-workload": 1000, "Pong-workload": 27000,
		"Hopper-v4": 1000, "Humanoid-v4": 1000, // with -tags mujoco
	}
	for _, id := range IDs() {
		e := must(Make(id, newRNG(10)))
		if got := e.Spec().MaxEpisodeSteps; got != limits[id] {
			t.Errorf("%s: MaxEpisodeSteps %d, want %d", id, got, limits[id])
		}
		// With a limit of 3 the third step truncates unless the episode
		// terminated first (an untrained policy on CartPole cannot fall in
		// three steps from a reset; the workloads' hazard can, rarely).
		e = must(Make(id, newRNG(11), MaxEpisodeSteps(3)))
		obs := make([]float32, e.Spec().Obs.Dim())
		e.Reset(obs)
		a := zeroAction(e.Spec())
		for step := 1; step <= 3; step++ {
			_, term, trunc, err := e.Step(obs, a)
			if err != nil {
				t.Fatalf("%s step %d: %v", id, step, err)
			}
			if term {
				break
			}
			if trunc != (step == 3) {
				t.Fatalf("%s step %d: truncated %v", id, step, trunc)
			}
		}
		if _, _, _, err := e.Step(obs, a); !errors.Is(err, ErrNeedsReset) {
			t.Errorf("%s: Step after the end returned %v, want ErrNeedsReset", id, err)
		}
	}
	if _, err := Make("CartPole-v1", newRNG(1), MaxEpisodeSteps(0)); err == nil {
		t.Error("MaxEpisodeSteps(0) accepted")
	}
}

// zeroAction is a valid action for any space: action 0, or the middle of
// the box.
func zeroAction(s *Spec) Action {
	if s.Act.Discrete() {
		return Discrete(0)
	}
	v := make([]float32, s.Act.Dim())
	for i := range v {
		v[i] = (s.Act.Low[i] + s.Act.High[i]) / 2
	}
	return Continuous(v)
}
