package experiment

import (
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// platform returns the embedded device platform called name
// (presets/devices): the models of every report run on it, so their
// results are the same on every machine.
func platform(name string) (*hw.Platform, error) {
	data, err := presets.Device(name)
	if err != nil {
		return nil, err
	}
	return hw.ParsePlatform(name, data)
}
