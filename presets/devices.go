// Package presets embeds the YAML files of rlx: device platforms, run,
// walkthrough and experiment presets, and the seed papers' tables. It
// imports nothing of rlx; callers parse what it returns (hw.ParsePlatform
// for a device file, engine.ParsePreset for a preset).
package presets

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed devices/*.yaml
var deviceFS embed.FS

// DefaultDevices is the platform of seed 000 Table IV.
const DefaultDevices = "table-iv"

// HostDevices names the user platform rlx calibrate measures on this
// machine; it is not embedded (engine.PlatformFile finds it).
const HostDevices = "host"

// DeviceNames returns the names of the embedded device platforms, sorted
// (file names without ".yaml").
func DeviceNames() []string { return names(deviceFS, "devices") }

// Device returns the YAML of the named device platform, ready to copy to a
// file and edit.
func Device(name string) ([]byte, error) {
	return read(deviceFS, "devices", name, "device preset")
}

// names lists the YAML files of directory dir of fsys without their
// extension, sorted.
func names(fsys embed.FS, dir string) []string {
	entries, _ := fs.ReadDir(fsys, dir)
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// read returns the file name.yaml of directory dir of fsys, or an error
// that lists the known names; what names the kind of preset.
func read(fsys embed.FS, dir, name, what string) ([]byte, error) {
	b, err := fsys.ReadFile(path.Join(dir, name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("%s %q not found: known presets are %s", what, name, strings.Join(names(fsys, dir), ", "))
	}
	return b, nil
}
