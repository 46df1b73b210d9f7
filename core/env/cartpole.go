package env

import (
	"math"
	"math/rand/v2"
)

// CartPole-v1 constants, from Gymnasium's cartpole.py (see docs/env.md).
const (
	cpGravity   = 9.8
	cpMassCart  = 1.0
	cpMassPole  = 0.1
	cpTotalMass = cpMassPole + cpMassCart
	cpLength    = 0.5 // half the pole's length
	cpPoleMassL = cpMassPole * cpLength
	cpForceMag  = 10.0
	cpTau       = 0.02 // seconds per step
	cpXLimit    = 2.4
)

// cpThetaLimit is 12 degrees in radians, written as Gymnasium writes it.
var cpThetaLimit = 12 * 2 * math.Pi / 360

// CartPole is Gymnasium's CartPole-v1: a pole hinged on a cart, pushed left
// (action 0) or right (action 1) with 10 N. Explicit Euler integration with
// tau = 0.02 s; reward 1 on every step, the terminating one included;
// terminated when |x| > 2.4 or |theta| > 12 degrees; truncated at 500 steps.
// The state is float64, the observation (x, x', theta, theta') float32.
type CartPole struct {
	episode
	rng   *rand.Rand
	state [4]float64
}

func newCartPole(rng *rand.Rand, o *options) *CartPole {
	maxF := float32(math.MaxFloat32)
	th2 := float32(cpThetaLimit * 2)
	s := Spec{
		ID:              "CartPole-v1",
		Obs:             box([]float32{-2 * cpXLimit, -maxF, -th2, -maxF}, []float32{2 * cpXLimit, maxF, th2, maxF}),
		Act:             ActionSpace{N: 2},
		MaxEpisodeSteps: 500,
		RewardThreshold: 475,
	}
	return &CartPole{episode: newEpisode(s, o), rng: rng}
}

// Reset draws every state variable uniformly from [-0.05, 0.05).
func (c *CartPole) Reset(obs []float32) {
	c.begin(obs)
	for i := range c.state {
		c.state[i] = uniform(c.rng, -0.05, 0.05)
	}
	c.observe(obs)
}

// Step pushes the cart and integrates one Euler step.
func (c *CartPole) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := c.check(obs, a); err != nil {
		return 0, false, false, err
	}
	x, xDot, theta, thetaDot := c.state[0], c.state[1], c.state[2], c.state[3]
	force := -cpForceMag
	if a.Index == 1 {
		force = cpForceMag
	}
	cos, sin := math.Cos(theta), math.Sin(theta)
	// Florian (2007), "Correct equations for the dynamics of the cart-pole
	// system", with the friction terms dropped, as Gymnasium does.
	temp := (force + cpPoleMassL*thetaDot*thetaDot*sin) / cpTotalMass
	thetaAcc := (cpGravity*sin - cos*temp) / (cpLength * (4.0/3.0 - cpMassPole*cos*cos/cpTotalMass))
	xAcc := temp - cpPoleMassL*thetaAcc*cos/cpTotalMass
	// Explicit Euler: positions advance with the old velocities.
	x += cpTau * xDot
	xDot += cpTau * xAcc
	theta += cpTau * thetaDot
	thetaDot += cpTau * thetaAcc
	c.state = [4]float64{x, xDot, theta, thetaDot}
	terminated := x < -cpXLimit || x > cpXLimit || theta < -cpThetaLimit || theta > cpThetaLimit
	truncated := c.end(terminated)
	c.observe(obs)
	return 1, terminated, truncated, nil
}

func (c *CartPole) observe(obs []float32) {
	for i, v := range c.state {
		obs[i] = float32(v)
	}
}
