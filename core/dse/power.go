package dse

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/hw"
)

// SystemPower is the modelled electrical power of the platform running one
// mapping, and its power efficiency (000 §VII-E, Table VII).
type SystemPower struct {
	Mapping hw.Mapping
	// Watts is the total; Device the part of each kind, 0 for a device
	// that is not counted (hw.Mapping.Devices).
	Watts  float64
	Device [hw.NumKinds]float64
	// GPSPerWatt is gradient steps per second per watt (Table VII's
	// "GPS/Watt").
	GPSPerWatt float64
}

// MappingPower returns the power of platform p running mapping m at gps
// gradient steps per second, with busy[k] the fraction of the time the
// device of kind k works (in [0, 1]; the caller derives it from the
// mapping's stage times). Each counted device draws
// idle + (active - idle) x busy (hw.Platform.Watts), except the CPU: 000
// charges the CPU and its DDR at their operating TDP, so the CPU is
// charged busy all of the time and busy[hw.CPU] is not read.
//
// The devices counted are those the mapping uses (hw.Mapping.Devices):
// the CPU with its DDR always, since the actors and the host threads that
// keep the queues run there (000 §IV-A, §V-B), and each accelerator the
// mapping places the learner, the RMM or the storage on. An accelerator
// the mapping leaves unused adds nothing: 000 takes the FPGA's figure from
// Vivado's report of the placed design and the GPU's from the profiler of
// the running program, and explains its higher Hopper power by "the
// additional FPGA component compared with RLlib mapping" (docs/models.md
// "Power").
//
// It returns an error when gps is negative or not finite, or when
// hw.Platform.Watts does (a counted device without power figures, a busy
// fraction out of range).
func MappingPower(p *hw.Platform, m hw.Mapping, gps float64, busy [hw.NumKinds]float64) (SystemPower, error) {
	if math.IsNaN(gps) || math.IsInf(gps, 0) || gps < 0 {
		return SystemPower{}, fmt.Errorf("gradient steps per second = %g is out of range: must be finite and >= 0", gps)
	}
	busy[hw.CPU] = 1
	total, per, err := p.Watts(m.Devices(), busy)
	if err != nil {
		return SystemPower{}, fmt.Errorf("power of %s: %w", m, err)
	}
	return SystemPower{Mapping: m, Watts: total, Device: per, GPSPerWatt: gps / total}, nil
}
