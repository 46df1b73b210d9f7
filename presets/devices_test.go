package presets

import (
	"strings"
	"testing"
)

func TestDevices(t *testing.T) {
	names := DeviceNames()
	if len(names) < 2 || names[0] != "heppo-zcu106" || names[1] != DefaultDevices {
		t.Fatalf("DeviceNames() = %v", names)
	}
	for _, n := range names {
		b, err := Device(n)
		if err != nil || !strings.Contains(string(b), "name: "+n) {
			t.Errorf("Device(%q): %v, name line missing", n, err)
		}
	}
	if _, err := Device("nope"); err == nil || !strings.Contains(err.Error(), DefaultDevices) {
		t.Errorf("unknown preset error should list the known ones: %v", err)
	}
}
