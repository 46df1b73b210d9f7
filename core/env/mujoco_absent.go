//go:build !mujoco

package env

// MuJoCo reports whether this build has the MuJoCo physics environments
// (Hopper-v4, Humanoid-v4): true when built with -tags mujoco.
const MuJoCo = false
