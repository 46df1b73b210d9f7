package env

import (
	"math"
	"math/rand/v2"
)

// Pendulum-v1 constants, from Gymnasium's pendulum.py (see docs/env.md).
const (
	pdMaxSpeed  = 8.0
	pdMaxTorque = 2.0
	pdDt        = 0.05
	pdGravity   = 10.0 // Gymnasium's default g
	pdMass      = 1.0
	pdLength    = 1.0
	pdResetVel  = 1.0 // DEFAULT_Y; the angle is drawn from [-pi, pi) (DEFAULT_X)
)

// Pendulum is Gymnasium's Pendulum-v1: a pendulum swung up by a torque u in
// [-2, 2]. Per step, with theta normalized into [-pi, pi),
//
//	reward = -(theta^2 + 0.1 theta'^2 + 0.001 u^2)
//	theta' = clip(theta' + (3g/(2l) sin theta + 3/(m l^2) u) dt, -8, 8)
//	theta  = theta + theta' dt
//
// with g = 10, m = l = 1, dt = 0.05 (semi-implicit Euler: the angle moves
// with the new velocity). Never terminated; truncated at 200 steps. The
// observation is (cos theta, sin theta, theta'). Gymnasium clips
// out-of-range torques; here they are an error (clip with Spec().Act.Clip).
type Pendulum struct {
	episode
	rng       *rand.Rand
	th, thDot float64
}

func newPendulum(rng *rand.Rand, o *options) *Pendulum {
	s := Spec{
		ID:              "Pendulum-v1",
		Obs:             box([]float32{-1, -1, -pdMaxSpeed}, []float32{1, 1, pdMaxSpeed}),
		Act:             ActionSpace{Low: []float32{-pdMaxTorque}, High: []float32{pdMaxTorque}},
		MaxEpisodeSteps: 200,
		RewardThreshold: math.NaN(),
	}
	return &Pendulum{episode: newEpisode(s, o), rng: rng}
}

// Reset draws theta uniformly from [-pi, pi) and theta' from [-1, 1).
func (p *Pendulum) Reset(obs []float32) {
	p.begin(obs)
	p.th = uniform(p.rng, -math.Pi, math.Pi)
	p.thDot = uniform(p.rng, -pdResetVel, pdResetVel)
	p.observe(obs)
}

// Step applies the torque.
func (p *Pendulum) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := p.check(obs, a); err != nil {
		return 0, false, false, err
	}
	u := float64(a.Vec[0])
	th := angleNormalize(p.th)
	cost := th*th + 0.1*p.thDot*p.thDot + 0.001*u*u
	newThDot := p.thDot + (3*pdGravity/(2*pdLength)*math.Sin(p.th)+3.0/(pdMass*pdLength*pdLength)*u)*pdDt
	newThDot = math.Min(math.Max(newThDot, -pdMaxSpeed), pdMaxSpeed)
	p.th += newThDot * pdDt
	p.thDot = newThDot
	truncated := p.end(false)
	p.observe(obs)
	return -cost, false, truncated, nil
}

func (p *Pendulum) observe(obs []float32) {
	obs[0] = float32(math.Cos(p.th))
	obs[1] = float32(math.Sin(p.th))
	obs[2] = float32(p.thDot)
}

// angleNormalize maps x into [-pi, pi) as ((x + pi) mod 2pi) - pi with
// Python's floored modulo (a non-negative remainder).
func angleNormalize(x float64) float64 {
	m := math.Mod(x+math.Pi, 2*math.Pi)
	if m < 0 {
		m += 2 * math.Pi
	}
	return m - math.Pi
}
