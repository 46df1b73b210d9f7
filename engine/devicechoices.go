package engine

import (
	"slices"

	"github.com/rlxdev/rlx/presets"
)

// DeviceChoice is a platform a run's devices field can name without a
// path.
type DeviceChoice struct {
	Name  string // the value of the devices field
	Yours bool   // a platform of yours in UserDevicesDir, not an embedded one
}

// DeviceChoices returns the platforms the devices field can name by name:
// the embedded device presets, sorted, then your platforms in
// UserDevicesDir (UserDeviceNames), sorted; HostDevices is among yours
// once rlx calibrate has measured this machine. A platform of yours with
// the name of an embedded one is left out: that name loads the embedded
// platform (PlatformFile), so listing it twice would offer one platform
// under two entries. A YAML file by path is the other way to name a
// platform, and is not listed.
func DeviceChoices() []DeviceChoice {
	embedded := presets.DeviceNames()
	out := make([]DeviceChoice, 0, len(embedded))
	for _, name := range embedded {
		out = append(out, DeviceChoice{Name: name})
	}
	for _, name := range UserDeviceNames() {
		if !slices.Contains(embedded, name) {
			out = append(out, DeviceChoice{Name: name, Yours: true})
		}
	}
	return out
}
