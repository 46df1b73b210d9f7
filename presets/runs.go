package presets

import "embed"

//go:embed runs/*.yaml
var runFS embed.FS

// RunNames returns the names of the embedded run presets, walkthroughs and
// experiments, sorted (file names without ".yaml").
func RunNames() []string { return names(runFS, "runs") }

// Run returns the YAML of the named run preset.
func Run(name string) ([]byte, error) { return read(runFS, "runs", name, "preset") }
