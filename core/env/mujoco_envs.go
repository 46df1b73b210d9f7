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

// locomotion is what tells the two MuJoCo tasks apart: Gymnasium's v4
// reward and termination are the same shape for both,
//
//	reward     = healthyReward + forwardWeight * (x' - x)/dt - ctrlWeight |a|^2
//	terminated = !healthy(state after the step)
//
// with x the task's measure of progress, the frame skip and reset noise,
// and how a state is observed.
type locomotion struct {
	frameSkip                                int
	resetNoise                               float64
	forwardWeight, ctrlWeight, healthyReward float64
	progress                                 func(*mjData) float64 // x: how far forward
	healthy                                  func(*mjData) bool
	observe                                  func(d *mjData, obs []float32)
}

// body is one MuJoCo environment: the episode, the simulation state and
// its task. Hopper and Humanoid are bodies with their own task.
type body struct {
	episode
	task locomotion
	rng  *rand.Rand
	sim  *mjData
	dt   float64 // seconds per Step: timestep * frameSkip
}

func newBody(s Spec, o *options, rng *rand.Rand, m *mjModel, task locomotion) body {
	s.Obs.Low, s.Obs.High = unbounded(s.Obs.Dim())
	// Each copy gets its own bounds: a caller that edits its Spec must
	// not edit every other copy's, or the model's.
	s.Act = ActionSpace{Low: slices.Clone(m.ctrlLow), High: slices.Clone(m.ctrlHigh)}
	return body{episode: newEpisode(s, o), task: task, rng: rng, sim: newData(m),
		dt: m.timestep * float64(task.frameSkip)}
}

func unbounded(n int) (low, high []float32) {
	low, high = make([]float32, n), make([]float32, n)
	for i := range low {
		low[i], high[i] = -inf32, inf32
	}
	return low, high
}

// Reset begins an episode as Gymnasium's MujocoEnv.reset does: the
// reference configuration with every position and then every velocity
// perturbed by U(-noise, noise), and the derived quantities recomputed.
func (b *body) Reset(obs []float32) {
	b.begin(obs)
	b.sim.reset()
	n := b.task.resetNoise
	for i, q := range b.sim.model.qpos0 {
		b.sim.qpos[i] = q + uniform(b.rng, -n, n)
	}
	for i := range b.sim.qvel {
		b.sim.qvel[i] = uniform(b.rng, -n, n)
	}
	b.sim.forward()
	b.task.observe(b.sim, obs)
	runtime.KeepAlive(b.sim)
}

// Step writes the action to the controls, advances the frame skip's
// physics steps, and pays the task's reward.
func (b *body) Step(obs []float32, a Action) (float64, bool, bool, error) {
	if err := b.check(obs, a); err != nil {
		return 0, false, false, err
	}
	t := &b.task
	x := t.progress(b.sim)
	ctrl := 0.0
	for i, v := range a.Vec {
		b.sim.ctrl[i] = float64(v)
		ctrl += float64(v) * float64(v)
	}
	b.sim.step(t.frameSkip)
	velocity := (t.progress(b.sim) - x) / b.dt
	reward := t.healthyReward + t.forwardWeight*velocity - t.ctrlWeight*ctrl
	terminated := !t.healthy(b.sim)
	truncated := b.end(terminated)
	t.observe(b.sim, obs)
	runtime.KeepAlive(b.sim)
	return reward, terminated, truncated, nil
}

// Hopper-v4 constants, Gymnasium's defaults (hopper_v4.py; docs/env.md).
const (
	hopperMinZ         = 0.7
	hopperMaxAngle     = 0.2   // |torso pitch| below it, radians
	hopperMaxState     = 100.0 // |each state value but x and z| below it
	hopperVelocityClip = 10.0
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

var hopperTask = locomotion{
	frameSkip: 4, resetNoise: 5e-3,
	forwardWeight: 1, ctrlWeight: 1e-3, healthyReward: 1,
	progress: func(d *mjData) float64 { return d.qpos[0] },
	healthy:  hopperHealthy,
	observe:  hopperObserve,
}

func newHopper(rng *rand.Rand, o *options) *Hopper {
	m := loadModel("hopper.xml", hopperXML)
	s := Spec{ID: "Hopper-v4", Obs: Box{Shape: []int{11}}, MaxEpisodeSteps: 1000, RewardThreshold: 3800}
	return &Hopper{newBody(s, o, rng, m, hopperTask)}
}

// hopperHealthy is Gymnasium's is_healthy; every comparison is strict and
// fails on NaN.
func hopperHealthy(d *mjData) bool {
	q, v := d.qpos, d.qvel
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

func hopperObserve(d *mjData, obs []float32) {
	q, v := d.qpos, d.qvel
	for i, x := range q[1:] {
		obs[i] = float32(x)
	}
	for i, x := range v {
		obs[len(q)-1+i] = float32(min(max(x, -hopperVelocityClip), hopperVelocityClip))
	}
}

// Humanoid-v4 constants, Gymnasium's defaults (humanoid_v4.py; docs/env.md).
const (
	humanoidMinZ = 1.0
	humanoidMaxZ = 2.0
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

var humanoidTask = locomotion{
	frameSkip: 5, resetNoise: 1e-2,
	forwardWeight: 1.25, ctrlWeight: 0.1, healthyReward: 5,
	progress: (*mjData).massCenterX,
	healthy: func(d *mjData) bool {
		z := d.qpos[2]
		return z > humanoidMinZ && z < humanoidMaxZ
	},
	observe: humanoidObserve,
}

func newHumanoid(rng *rand.Rand, o *options) *Humanoid {
	m := loadModel("humanoid.xml", humanoidXML)
	s := Spec{ID: "Humanoid-v4", Obs: Box{Shape: []int{376}}, MaxEpisodeSteps: 1000, RewardThreshold: math.NaN()}
	return &Humanoid{newBody(s, o, rng, m, humanoidTask)}
}

func humanoidObserve(d *mjData, obs []float32) {
	i := 0
	for _, part := range [...][]float64{d.qpos[2:], d.qvel, d.cinert, d.cvel, d.qfrcActuator, d.cfrcExt} {
		for _, x := range part {
			obs[i] = float32(x)
			i++
		}
	}
}
