package engine

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/presets"
)

func TestDeviceChoices(t *testing.T) {
	dir := userDevices(t)
	var want []DeviceChoice
	for _, name := range presets.DeviceNames() {
		want = append(want, DeviceChoice{Name: name})
	}
	if got := DeviceChoices(); !slices.Equal(got, want) {
		t.Errorf("without platforms of yours: %v, want the embedded ones %v", got, want)
	}

	// host as rlx calibrate writes it, another of yours, and one that an
	// embedded platform shadows.
	testenv.PlatformCopy(t, filepath.Join(dir, HostDevices+".yaml"), HostDevices)
	testenv.PlatformCopy(t, filepath.Join(dir, "lab.yaml"), "lab")
	testenv.PlatformCopy(t, filepath.Join(dir, DefaultDevices+".yaml"), DefaultDevices)
	want = append(want, DeviceChoice{Name: HostDevices, Yours: true}, DeviceChoice{Name: "lab", Yours: true})
	got := DeviceChoices()
	if !slices.Equal(got, want) {
		t.Errorf("DeviceChoices() = %v, want %v", got, want)
	}
	// Every choice is a platform that loads.
	for _, c := range got {
		if err := CheckPlatform(c.Name); err != nil {
			t.Errorf("choice %q does not load: %v", c.Name, err)
		}
	}
}
