// Package presets embeds the YAML presets of rlx: device platforms now, run
// presets later. It imports nothing of rlx; callers parse what it returns
// (hw.ParsePlatform for a device file).
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

// DeviceNames returns the names of the embedded device platforms, sorted
// (file names without ".yaml").
func DeviceNames() []string {
	entries, _ := fs.ReadDir(deviceFS, "devices")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(names)
	return names
}

// Device returns the YAML of the named device platform, ready to copy to a
// file and edit.
func Device(name string) ([]byte, error) {
	b, err := deviceFS.ReadFile(path.Join("devices", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("device preset %q not found: known presets are %s", name, strings.Join(DeviceNames(), ", "))
	}
	return b, nil
}
