//go:build mujoco

package env

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
)

func init() {
	registry["Hopper-v4"] = func(r *rand.Rand, o *options) Env { return newHopper(r, o) }
	registry["Humanoid-v4"] = func(r *rand.Rand, o *options) Env { return newHumanoid(r, o) }
}

// body is what the two MuJoCo environments share: the episode, the
// simulation state, the frame skip and the reset noise.
type body struct {
	episode
	rng        *rand.Rand
	sim        *mjData
	frameSkip  int
	resetNoise float64
	dt         float64 // seconds per Step: timestep * frameSkip
}

func newBody(s Spec, o *options, rng *rand.Rand, m *mjModel, frameSkip int, resetNoise float64) body {
	s.Obs.Low, s.Obs.High = unbounded(s.Obs.Dim())
	// Each copy gets its own bounds: a caller that edits its Spec must
	// not edit every other copy's, or the model's.
	s.Act = ActionSpace{Low: slices.Clone(m.ctrlLow), High: slices.Clone(m.ctrlHigh)}
	return body{episode: newEpisode(s, o), rng: rng, sim: newData(m), frameSkip: frameSkip,
		resetNoise: resetNoise, dt: m.timestep * float64(frameSkip)}
}

func unbounded(n int) (low, high []float32) {
	low, high = make([]float32, n), make([]float32, n)
	for i := range low {
		low[i], high[i] = -inf32, inf32
	}
	return low, high
}

// restart begins an episode as Gymnasium's MujocoEnv.reset does: the
// reference configuration with every position and then every velocity
// perturbed by U(-noise, noise), and the derived quantities recomputed.
func (b *body) restart(obs []float32) {
	b.begin(obs)
	b.sim.reset()
	n := b.resetNoise
	for i, q := range b.sim.model.qpos0 {
		b.sim.qpos[i] = q + uniform(b.rng, -n, n)
	}
	for i := range b.sim.qvel {
		b.sim.qvel[i] = uniform(b.rng, -n, n)
	}
	b.sim.forward()
}

// actuate writes the action to the controls and advances frameSkip
// physics steps.
func (b *body) actuate(a []float32) (ctrlSquares float64) {
	for i, v := range a {
		b.sim.ctrl[i] = float64(v)
		ctrlSquares += float64(v) * float64(v)
	}
	b.sim.step(b.frameSkip)
	return ctrlSquares
}

// Hopper-v4 constants, Gymnasium's defaults (hopper_v4.py; docs/env.md).
const (
	hopperFrameSkip     = 4
	hopperForwardWeight = 1.0
	hopperCtrlWeight    = 1e-3
	hopperHealthyReward = 1.0
	hopperMinZ          = 0.7
	hopperMaxAngle      = 0.2   // |torso pitch| below it, radians
	hopperMaxState      = 100.0 // |each state value but x and z| below it
	hopperResetNoise    = 5e-3
	hopperVelocityClip  = 10.0
)

// Hopper is Gymnasium's Hopper-v4 on MuJoCo: a planar one-legged robot
// (torso, thigh, leg, foot; mjcf/hopper.xml) that is paid to hop forward.
// The state is qpos = (x, z, pitch, thigh, leg, foot) and its velocities
// qvel. A Step sets the three motor controls (each in [-1, 1], gear 200)
// and advances 4 physics steps of 2 ms (RK4), dt = 8 ms, then
//
//	reward     = 1 + (x' - x)/dt - 0.001 |a|^2
//	terminated = not healthy: z > 0.7, |pitch| < 0.2 and |s| < 100 for
//	             every other state value s (qpos[2:] and qvel)
//
// (healthy_reward 1 is paid on every step, as v4 does when
// terminate_when_unhealthy is set). The observation is qpos without x (5)
// then qvel clipped to ±10 (6): 11 values. Truncated at 1000 steps.
// Reset perturbs every qpos and qvel value by U(-0.005, 0.005).
type Hopper struct{ body }

func newHopper(rng *rand.Rand, o *options) *Hopper {
	m := loadModel("hopper.xml", hopperXML)
	s := Spec{ID: "Hopper-v4", Obs: Box{Shape: []int{11}}, MaxEpisodeSteps: 1000, RewardThreshold: 3800}
	return &Hopper{newBody(s, o, rng, m, hopperFrameSkip, hopperResetNoise)}
}

// Reset starts an episode near the standing pose.
func (h *Hopper) Reset(obs []float32) {
	h.restart(obs)
	h.observe(obs)
	runtime.KeepAlive(h.sim)
}

// Step applies the three torques for dt.
func (h *Hopper) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := h.check(obs, a); err != nil {
		return 0, false, false, err
	}
	x := h.sim.qpos[0]
	ctrl := h.actuate(a.Vec)
	velocity := (h.sim.qpos[0] - x) / h.dt
	reward := hopperHealthyReward + hopperForwardWeight*velocity - hopperCtrlWeight*ctrl
	terminated := !h.healthy()
	truncated := h.end(terminated)
	h.observe(obs)
	runtime.KeepAlive(h.sim)
	return reward, terminated, truncated, nil
}

// healthy is Gymnasium's is_healthy; every comparison is strict and fails
// on NaN, so a state that blew up is unhealthy.
func (h *Hopper) healthy() bool {
	q, v := h.sim.qpos, h.sim.qvel
	if !(q[1] > hopperMinZ) || !(math.Abs(q[2]) < hopperMaxAngle) {
		return false
	}
	for _, s := range q[2:] {
		if !(math.Abs(s) < hopperMaxState) {
			return false
		}
	}
	for _, s := range v {
		if !(math.Abs(s) < hopperMaxState) {
			return false
		}
	}
	return true
}

func (h *Hopper) observe(obs []float32) {
	q, v := h.sim.qpos, h.sim.qvel
	for i, x := range q[1:] {
		obs[i] = float32(x)
	}
	for i, x := range v {
		obs[len(q)-1+i] = float32(min(max(x, -hopperVelocityClip), hopperVelocityClip))
	}
}

// Humanoid-v4 constants, Gymnasium's defaults (humanoid_v4.py; docs/env.md).
const (
	humanoidFrameSkip     = 5
	humanoidForwardWeight = 1.25
	humanoidCtrlWeight    = 0.1
	humanoidHealthyReward = 5.0
	humanoidMinZ          = 1.0
	humanoidMaxZ          = 2.0
	humanoidResetNoise    = 1e-2
)

// Humanoid is Gymnasium's Humanoid-v4 on MuJoCo: a 3D biped of 13 bodies
// on a free joint (mjcf/humanoid.xml) paid to walk forward. qpos has 24
// values (the root's position and quaternion, then 17 hinge angles), qvel
// 23. A Step sets the 17 motor controls (each in [-0.4, 0.4]) and advances
// 5 physics steps of 3 ms (RK4, Newton solver), dt = 15 ms, then
//
//	reward     = 5 + 1.25 (c' - c)/dt - 0.1 |a|^2
//	terminated = not healthy: 1 < z < 2 for the torso's height z = qpos[2]
//
// where c is the x of the whole body's centre of mass. v4 charges no
// contact cost. The observation is qpos without the root's x and y (22),
// qvel (23), then per body, the world included, cinert (14*10), cvel
// (14*6), qfrc_actuator (23) and cfrc_ext (14*6): 376 values, unclipped.
// Truncated at 1000 steps. Reset perturbs every qpos and qvel value by
// U(-0.01, 0.01).
type Humanoid struct{ body }

func newHumanoid(rng *rand.Rand, o *options) *Humanoid {
	m := loadModel("humanoid.xml", humanoidXML)
	s := Spec{ID: "Humanoid-v4", Obs: Box{Shape: []int{376}}, MaxEpisodeSteps: 1000, RewardThreshold: math.NaN()}
	return &Humanoid{newBody(s, o, rng, m, humanoidFrameSkip, humanoidResetNoise)}
}

// Reset starts an episode standing, slightly perturbed.
func (h *Humanoid) Reset(obs []float32) {
	h.restart(obs)
	h.observe(obs)
	runtime.KeepAlive(h.sim)
}

// Step applies the 17 torques for dt.
func (h *Humanoid) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := h.check(obs, a); err != nil {
		return 0, false, false, err
	}
	c := h.sim.massCenterX()
	ctrl := h.actuate(a.Vec)
	velocity := (h.sim.massCenterX() - c) / h.dt
	reward := humanoidHealthyReward + humanoidForwardWeight*velocity - humanoidCtrlWeight*ctrl
	z := h.sim.qpos[2]
	terminated := !(z > humanoidMinZ && z < humanoidMaxZ)
	truncated := h.end(terminated)
	h.observe(obs)
	runtime.KeepAlive(h.sim)
	return reward, terminated, truncated, nil
}

func (h *Humanoid) observe(obs []float32) {
	i := 0
	for _, part := range [][]float64{h.sim.qpos[2:], h.sim.qvel, h.sim.cinert, h.sim.cvel, h.sim.qfrcActuator, h.sim.cfrcExt} {
		for _, x := range part {
			obs[i] = float32(x)
			i++
		}
	}
}
