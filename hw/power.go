package hw

import (
	"fmt"
	"math"
	"strings"
)

// The power model (000 §VII-E; docs/models.md "Power"). A device busy a
// fraction u of the time draws
//
//	P = idle + (active - idle) x u,
//
// with idle and active the figures of its PowerSpec, and a platform draws
// the sum over the devices that are counted. Which devices count is the
// caller's reading of 000 (core/dse.MappingPower); hw only adds up.

// WattsAt returns the power, in watts, of the device when it is busy a
// fraction busy of the time: IdleW at 0, ActiveW at 1, linear between. It
// does not clamp busy; Platform.Watts checks it.
func (s PowerSpec) WattsAt(busy float64) float64 {
	return s.IdleW + (s.ActiveW-s.IdleW)*busy
}

// powerPaths lists, per device kind, the YAML paths of the sections that
// hold its power figures: the CPU's sockets and DIMMs, the GPU's and the
// FPGA's board. powerSpecs returns the sections in the same order.
var powerPaths = [NumKinds][]string{CPU: {"cpu.power", "cpu.memory_power"}, GPU: {"gpu.power"}, FPGA: {"fpga.power"}}

// powerSpecs returns the power sections of p's device of kind k in the
// order of powerPaths[k], nil where one is left out; none when p has no
// such device.
func (p *Platform) powerSpecs(k Kind) []*PowerSpec {
	switch {
	case k == CPU && p.CPU != nil:
		return []*PowerSpec{p.CPU.Power, p.CPU.MemoryPower}
	case k == GPU && p.GPU != nil:
		return []*PowerSpec{p.GPU.Power}
	case k == FPGA && p.FPGA != nil:
		return []*PowerSpec{p.FPGA.Power}
	}
	return nil
}

// DevicePower returns the power figures of the device of kind k, its
// sections added up: for the CPU, those of its sockets and of its DRAM
// modules. ok is false when the platform has no such device or leaves a
// section out.
func (p *Platform) DevicePower(k Kind) (s PowerSpec, ok bool) {
	specs := p.powerSpecs(k)
	for _, x := range specs {
		if x == nil {
			return PowerSpec{}, false
		}
		s.IdleW += x.IdleW
		s.ActiveW += x.ActiveW
	}
	return s, len(specs) > 0
}

// Watts returns the electrical power of the platform in watts, in total and
// per device kind. A device with used[k] false is not counted: it adds 0
// and its busy[k] is not read. A used device of kind k, busy a fraction
// busy[k] of the time, adds DevicePower(k).WattsAt(busy[k]); the total is
// the sum in Kinds order.
//
// It returns an error when a used device is absent from the platform or
// has no power figures, or when its busy fraction is not in [0, 1].
func (p *Platform) Watts(used [NumKinds]bool, busy [NumKinds]float64) (total float64, per [NumKinds]float64, err error) {
	for _, k := range Kinds {
		if !used[k] {
			continue
		}
		s, ok := p.DevicePower(k)
		if !ok {
			return 0, [NumKinds]float64{}, fmt.Errorf("platform %q gives no power figures for the %s: add %s (idle_w, active_w) to its device file", p.Name, k, strings.Join(powerPaths[k], " and "))
		}
		u := busy[k]
		if math.IsNaN(u) || u < 0 || u > 1 {
			return 0, [NumKinds]float64{}, fmt.Errorf("%s busy fraction = %g is out of range: must be 0..1", k, u)
		}
		per[k] = s.WattsAt(u)
		total += per[k]
	}
	return total, per, nil
}

// validatePower checks the power sections of the devices. They are
// optional, but a platform that gives any must give them for every device
// it has (the CPU both power and memory_power), each with idle_w and
// active_w in watts, idle_w > 0 and active_w >= idle_w. A missing section
// is reported at its device, a missing figure at its section.
func (p *Platform) validatePower(c *checker) {
	given := ""
	for _, k := range Kinds {
		for i, s := range p.powerSpecs(k) {
			if s != nil && given == "" {
				given = powerPaths[k][i]
			}
		}
	}
	if given == "" {
		return
	}
	for _, k := range Kinds {
		for i, s := range p.powerSpecs(k) {
			if s == nil {
				c.add(strings.ToLower(k.String()), "%s is missing: the platform gives %s, so every device needs its power figures (idle_w and active_w in watts)", powerPaths[k][i], given)
				continue
			}
			s.validate(c, powerPaths[k][i])
		}
	}
}

// maxWatts bounds a single power figure; no device of a platform draws
// 100 kW.
const maxWatts = 1e5

func (s *PowerSpec) validate(c *checker, at string) {
	figure := func(name string, v float64) bool {
		if v == 0 {
			// A powered device never draws 0 W: 0 is a figure left out.
			c.add(at, "%s.%s is missing or 0: give the figure in watts (> 0), with its source", at, name)
			return false
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > maxWatts {
			c.add(at+"."+name, "%s.%s = %g is out of range: must be > 0 and at most %g", at, name, v, float64(maxWatts))
			return false
		}
		return true
	}
	idleOK := figure("idle_w", s.IdleW)
	activeOK := figure("active_w", s.ActiveW)
	if idleOK && activeOK && s.ActiveW < s.IdleW {
		c.add(at+".active_w", "%s.active_w = %g is below idle_w = %g: a busy device draws at least its idle power", at, s.ActiveW, s.IdleW)
	}
}
