// Package env provides the environments rlx trains on: Gymnasium's classic
// control tasks, reimplemented from their published dynamics, and synthetic
// workload environments that stand in for the papers' heavy benchmarks; and
// Vec, a runner of N copies with automatic reset.
//
// # Classic control
//
// CartPole-v1, Acrobot-v1, MountainCar-v0, MountainCarContinuous-v0 and
// Pendulum-v1 follow Gymnasium's equations, constants, integrators (Euler,
// RK4 for Acrobot with the "book" dynamics), termination rules, time limits,
// observation bounds and reset distributions; docs/env.md names the source
// of every constant. State is float64 where Gymnasium's is; observations are
// float32. The random draws differ from NumPy's (rlx uses math/rand/v2), so
// trajectories match Gymnasium's in distribution, not bit for bit.
//
// Two deliberate differences: an action outside the action space is an
// error (*ActionError naming the value and the range) where Gymnasium clips
// a continuous one or asserts on a discrete one (clip with ActionSpace.Clip
// first, as CleanRL's ClipAction wrapper does); and Step after the end of an
// episode returns ErrNeedsReset where Gymnasium warns and goes on.
//
// # MuJoCo (build tag mujoco)
//
// Built with -tags mujoco, Hopper-v4 and Humanoid-v4 are Gymnasium's v4
// environments on MuJoCo physics: Debian's libmujoco-dev through cgo, the
// models (mjcf/*.xml, written for rlx from the published geometry)
// embedded, each copy a MuJoCo state over one shared compiled model. The
// observations, rewards, healthy ranges, frame skips, reset noise and time
// limits are v4's defaults (docs/env.md). Without the tag they are absent
// from IDs, and Make names the way to get them (ErrNoMuJoCo); MuJoCo says
// which build this is; Physical and StandIn map a workload environment to
// its MuJoCo counterpart and back, from one table; MissingMuJoCo says why an
// id cannot be made in this build.
//
// # Workload environments
//
// Hopper-workload (obs 11, 3 actions in [-1, 1]), Ant-workload (27, 8),
// Humanoid-workload (376, 17 in [-0.4, 0.4]) and Pong-workload (4×84×84
// frames, 6 actions) produce data of the real benchmarks' shapes, with
// plausible statistics and episode lengths, and carry a per-step cost
// (Spec.StepCost; BusyWait spends it on the host too) so that replay,
// training and GAE run at the sizes the papers measure. THEIR RETURNS MEAN
// NOTHING: there is no physics behind them. Spec.Workload marks them.
//
// # Interface
//
// An Env writes observations into caller-owned slices and takes an Action
// (an index or a vector), so Step allocates nothing. Step reports
// terminated (a terminal state: do not bootstrap) and truncated (the time
// limit: bootstrap) separately. Randomness comes from the *rand.Rand given
// to Make, never from a global source. Spec exposes the spaces a network is
// sized from: Obs.Dim() inputs, Act.Dim() outputs.
//
// Vec steps N copies in lock step; when a copy's episode ends it keeps the
// last observation (FinalObs), resets the copy at once (Obs holds the new
// episode's first observation) and records the episode's return and length
// (Recent is a window of the last 100 returns). Vec.Step validates every
// action before stepping any copy and allocates nothing.
//
// Costs: a classic-control step is 40-450 ns (Acrobot's RK4 is the
// dearest); a MuJoCo step about 60 µs (Hopper) and 300 µs (Humanoid); a
// workload step is 0.1-6 µs of host work plus its simulated StepCost.
//
// Imports: nothing of rlx. With the mujoco tag, cgo and libmujoco.
package env
