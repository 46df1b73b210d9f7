package env

import (
	"math"
	"math/rand/v2"
)

// Acrobot-v1 constants, from Gymnasium's acrobot.py (see docs/env.md).
const (
	acDt       = 0.2
	acL1       = 1.0 // link lengths [m]
	acM1       = 1.0 // link masses [kg]
	acM2       = 1.0
	acLC1      = 0.5 // positions of the centres of mass [m]
	acLC2      = 0.5
	acMOI      = 1.0 // moment of inertia of both links
	acMaxVel1  = 4 * math.Pi
	acMaxVel2  = 9 * math.Pi
	acGravity  = 9.8
	acStateLen = 4
)

// acTorque maps actions 0, 1, 2 to the torque on the middle joint.
var acTorque = [3]float64{-1, 0, 1}

// AcrobotDynamics selects the equation for the second joint's acceleration.
type AcrobotDynamics int

const (
	// Book is the equation of Sutton and Barto's book, Gymnasium's default
	// (book_or_nips = "book").
	Book AcrobotDynamics = iota
	// NIPS is the equation of Sutton (1996), which lacks the
	// -m2 l1 lc2 theta1'^2 sin(theta2) term.
	NIPS
)

// Acrobot is Gymnasium's Acrobot-v1: two links, the joint between them
// actuated with torque -1, 0 or +1. One step integrates the equations of
// motion over dt = 0.2 s with a single classical Runge-Kutta (RK4) step,
// wraps both angles into [-pi, pi] and clamps the velocities to 4 pi and
// 9 pi. Reward -1 per step, 0 on the terminating one; terminated when
// -cos(theta1) - cos(theta1 + theta2) > 1 (the tip above the bar);
// truncated at 500 steps. The observation is (cos theta1, sin theta1,
// cos theta2, sin theta2, theta1', theta2').
type Acrobot struct {
	episode
	rng   *rand.Rand
	state [acStateLen]float64
	// Dynamics is Book unless set to NIPS.
	Dynamics AcrobotDynamics
}

func newAcrobot(rng *rand.Rand, o *options) *Acrobot {
	s := Spec{
		ID:              "Acrobot-v1",
		Obs:             box([]float32{-1, -1, -1, -1, -acMaxVel1, -acMaxVel2}, []float32{1, 1, 1, 1, acMaxVel1, acMaxVel2}),
		Act:             ActionSpace{N: 3},
		MaxEpisodeSteps: 500,
		RewardThreshold: -100,
	}
	return &Acrobot{episode: newEpisode(s, o), rng: rng}
}

// Reset draws the two angles and two velocities uniformly from
// [-0.1, 0.1) and rounds them to float32, as Gymnasium's reset does
// (astype(np.float32)); the integration then runs in float64.
func (ac *Acrobot) Reset(obs []float32) {
	ac.begin(obs)
	for i := range ac.state {
		ac.state[i] = float64(float32(uniform(ac.rng, -0.1, 0.1)))
	}
	ac.observe(obs)
}

// Step applies the torque and integrates one RK4 step.
func (ac *Acrobot) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := ac.check(obs, a); err != nil {
		return 0, false, false, err
	}
	ns := ac.rk4(ac.state, acTorque[a.Index], acDt)
	ns[0] = wrap(ns[0], -math.Pi, math.Pi)
	ns[1] = wrap(ns[1], -math.Pi, math.Pi)
	ns[2] = math.Min(math.Max(ns[2], -acMaxVel1), acMaxVel1)
	ns[3] = math.Min(math.Max(ns[3], -acMaxVel2), acMaxVel2)
	ac.state = ns
	terminated := -math.Cos(ns[0])-math.Cos(ns[1]+ns[0]) > 1.0
	reward := -1.0
	if terminated {
		reward = 0
	}
	truncated := ac.end(terminated)
	ac.observe(obs)
	return reward, terminated, truncated, nil
}

// rk4 takes one classical Runge-Kutta step of length dt from s with the
// torque held constant (Gymnasium augments the state with the torque, whose
// derivative is 0: the same thing).
func (ac *Acrobot) rk4(s [acStateLen]float64, torque, dt float64) [acStateLen]float64 {
	add := func(y [acStateLen]float64, h float64, k [acStateLen]float64) [acStateLen]float64 {
		for i := range y {
			y[i] += h * k[i]
		}
		return y
	}
	dt2 := dt / 2
	k1 := ac.dsdt(s, torque)
	k2 := ac.dsdt(add(s, dt2, k1), torque)
	k3 := ac.dsdt(add(s, dt2, k2), torque)
	k4 := ac.dsdt(add(s, dt, k3), torque)
	var out [acStateLen]float64
	for i := range out {
		out[i] = s[i] + dt/6.0*(k1[i]+2*k2[i]+2*k3[i]+k4[i])
	}
	return out
}

// dsdt is the time derivative of (theta1, theta2, theta1', theta2') under
// torque a on the second joint: the equations of Sutton and Barto's book
// (or of the NIPS paper), as in Gymnasium's _dsdt.
func (ac *Acrobot) dsdt(s [acStateLen]float64, a float64) [acStateLen]float64 {
	const m1, m2, l1, lc1, lc2, i1, i2, g = acM1, acM2, acL1, acLC1, acLC2, acMOI, acMOI, acGravity
	theta1, theta2, dtheta1, dtheta2 := s[0], s[1], s[2], s[3]
	d1 := m1*lc1*lc1 + m2*(l1*l1+lc2*lc2+2*l1*lc2*math.Cos(theta2)) + i1 + i2
	d2 := m2*(lc2*lc2+l1*lc2*math.Cos(theta2)) + i2
	phi2 := m2 * lc2 * g * math.Cos(theta1+theta2-math.Pi/2.0)
	phi1 := -m2*l1*lc2*dtheta2*dtheta2*math.Sin(theta2) -
		2*m2*l1*lc2*dtheta2*dtheta1*math.Sin(theta2) +
		(m1*lc1+m2*l1)*g*math.Cos(theta1-math.Pi/2) + phi2
	var ddtheta2 float64
	if ac.Dynamics == NIPS {
		ddtheta2 = (a + d2/d1*phi1 - phi2) / (m2*lc2*lc2 + i2 - d2*d2/d1)
	} else {
		ddtheta2 = (a + d2/d1*phi1 - m2*l1*lc2*dtheta1*dtheta1*math.Sin(theta2) - phi2) / (m2*lc2*lc2 + i2 - d2*d2/d1)
	}
	ddtheta1 := -(d2*ddtheta2 + phi1) / d1
	return [acStateLen]float64{dtheta1, dtheta2, ddtheta1, ddtheta2}
}

func (ac *Acrobot) observe(obs []float32) {
	s := ac.state
	obs[0] = float32(math.Cos(s[0]))
	obs[1] = float32(math.Sin(s[0]))
	obs[2] = float32(math.Cos(s[1]))
	obs[3] = float32(math.Sin(s[1]))
	obs[4] = float32(s[2])
	obs[5] = float32(s[3])
}

// wrap maps x into [lo, hi] by whole periods, as Gymnasium's wrap: unlike
// clamping, it keeps the angle's meaning.
func wrap(x, lo, hi float64) float64 {
	diff := hi - lo
	for x > hi {
		x -= diff
	}
	for x < lo {
		x += diff
	}
	return x
}
