package env

import (
	"math"
	"math/rand/v2"
)

// MountainCar-v0 and MountainCarContinuous-v0 constants, from Gymnasium's
// mountain_car.py and continuous_mountain_car.py (see docs/env.md).
const (
	mcMinPos     = -1.2
	mcMaxPos     = 0.6
	mcMaxSpeed   = 0.07
	mcGoalPos    = 0.5  // discrete
	mcGoalPosC   = 0.45 // continuous
	mcGoalVel    = 0.0
	mcForce      = 0.001  // discrete: per unit of (action - 1)
	mcPower      = 0.0015 // continuous: per unit of action
	mcGravity    = 0.0025
	mcResetLo    = -0.6
	mcResetHi    = -0.4
	mcGoalReward = 100.0
)

// MountainCar is Gymnasium's MountainCar-v0: an under-powered car in a
// valley, pushed left (0), not (1) or right (2). Per step
//
//	v = clip(v + (a-1)*0.001 - 0.0025*cos(3x), -0.07, 0.07)
//	x = clip(x + v, -1.2, 0.6); v = 0 if x hit -1.2 going left
//
// reward -1; terminated when x >= 0.5 and v >= 0; truncated at 200 steps.
// The observation is (x, v).
type MountainCar struct {
	episode
	rng      *rand.Rand
	pos, vel float64
}

func newMountainCar(rng *rand.Rand, o *options) *MountainCar {
	s := Spec{
		ID:              "MountainCar-v0",
		Obs:             box([]float32{mcMinPos, -mcMaxSpeed}, []float32{mcMaxPos, mcMaxSpeed}),
		Act:             ActionSpace{N: 3},
		MaxEpisodeSteps: 200,
		RewardThreshold: -110,
	}
	return &MountainCar{episode: newEpisode(s, o), rng: rng}
}

// Reset puts the car at rest at a position uniform in [-0.6, -0.4).
func (m *MountainCar) Reset(obs []float32) {
	m.begin(obs)
	m.pos, m.vel = uniform(m.rng, mcResetLo, mcResetHi), 0
	obs[0], obs[1] = float32(m.pos), float32(m.vel)
}

// Step applies the push and one step of the dynamics.
func (m *MountainCar) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := m.check(obs, a); err != nil {
		return 0, false, false, err
	}
	v := m.vel + float64(a.Index-1)*mcForce + math.Cos(3*m.pos)*(-mcGravity)
	v = math.Min(math.Max(v, -mcMaxSpeed), mcMaxSpeed)
	x := math.Min(math.Max(m.pos+v, mcMinPos), mcMaxPos)
	if x == mcMinPos && v < 0 {
		v = 0 // the left wall is inelastic
	}
	m.pos, m.vel = x, v
	terminated := x >= mcGoalPos && v >= mcGoalVel
	truncated := m.end(terminated)
	obs[0], obs[1] = float32(x), float32(v)
	return -1, terminated, truncated, nil
}

// MountainCarContinuous is Gymnasium's MountainCarContinuous-v0: the same
// valley with a force a in [-1, 1]:
//
//	v = clip(v + a*0.0015 - 0.0025*cos(3x), -0.07, 0.07)
//	x = clip(x + v, -1.2, 0.6); v = 0 if x hit -1.2 going left
//
// reward -0.1 a^2, plus 100 on reaching the goal; terminated when x >= 0.45
// and v >= 0; truncated at 999 steps. As in Gymnasium, the state is stored
// in float32 after every step. Gymnasium clips out-of-range forces; here
// they are an error (clip with Spec().Act.Clip first).
type MountainCarContinuous struct {
	episode
	rng      *rand.Rand
	pos, vel float64
}

func newMountainCarContinuous(rng *rand.Rand, o *options) *MountainCarContinuous {
	s := Spec{
		ID:              "MountainCarContinuous-v0",
		Obs:             box([]float32{mcMinPos, -mcMaxSpeed}, []float32{mcMaxPos, mcMaxSpeed}),
		Act:             ActionSpace{Low: []float32{-1}, High: []float32{1}},
		MaxEpisodeSteps: 999,
		RewardThreshold: 90,
	}
	return &MountainCarContinuous{episode: newEpisode(s, o), rng: rng}
}

// Reset puts the car at rest at a position uniform in [-0.6, -0.4).
func (m *MountainCarContinuous) Reset(obs []float32) {
	m.begin(obs)
	m.pos, m.vel = uniform(m.rng, mcResetLo, mcResetHi), 0
	obs[0], obs[1] = float32(m.pos), float32(m.vel)
}

// Step applies the force and one step of the dynamics.
func (m *MountainCarContinuous) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := m.check(obs, a); err != nil {
		return 0, false, false, err
	}
	force := float64(a.Vec[0])
	v := m.vel + force*mcPower - mcGravity*math.Cos(3*m.pos)
	v = math.Min(math.Max(v, -mcMaxSpeed), mcMaxSpeed)
	x := math.Min(math.Max(m.pos+v, mcMinPos), mcMaxPos)
	if x == mcMinPos && v < 0 {
		v = 0
	}
	terminated := x >= mcGoalPosC && v >= mcGoalVel
	reward := 0.0
	if terminated {
		reward = mcGoalReward
	}
	reward -= force * force * 0.1
	// Gymnasium keeps the state as a float32 array between steps.
	m.pos, m.vel = float64(float32(x)), float64(float32(v))
	truncated := m.end(terminated)
	obs[0], obs[1] = float32(x), float32(v)
	return reward, terminated, truncated, nil
}
