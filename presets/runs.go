package presets

import "embed"

//go:embed runs/*.yaml
var runFS embed.FS

// mujocoFS holds the run presets of the MuJoCo environments (Hopper-v4,
// Humanoid-v4). They are embedded in every build; a build without MuJoCo
// cannot run them, and the engine, which knows the build, decides whether
// they are listed (engine.LoadPresets) or refused with the way to get them.
//
//go:embed mujoco/*.yaml
var mujocoFS embed.FS

// RunNames returns the names of the embedded run presets, walkthroughs and
// experiments that every build runs, sorted (file names without ".yaml").
func RunNames() []string { return names(runFS, "runs") }

// MuJoCoRunNames returns the names of the embedded presets that need the
// MuJoCo build, sorted.
func MuJoCoRunNames() []string { return names(mujocoFS, "mujoco") }

// Run returns the YAML of the named run preset, of either kind.
func Run(name string) ([]byte, error) {
	if b, err := mujocoFS.ReadFile("mujoco/" + name + ".yaml"); err == nil {
		return b, nil
	}
	return read(runFS, "runs", name, "preset")
}
