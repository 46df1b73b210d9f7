package engine

import (
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/hw"
)

// Mapping is the device mapping a run asks for: auto asks the design-space
// exploration (000 §VI; for PPO the mapping whose whole iteration the model
// predicts shortest, sim.PPO.Auto), a fixed hw.Mapping is set by hand. Its text form, in YAML, JSON and
// on the command line, is "auto" or the letters, e.g. "G-F-G" (off-policy
// Learner-RMM-Storage, PPO Learner-GAE-Storage).
//
// The zero value is a mapping not given, which means auto (Config.Defaults
// makes it AutoMapping); a walkthrough step's "mapping: auto" is given, so
// it switches a fixed mapping back (Config.With).
type Mapping struct {
	fixed hw.Mapping
	kind  mappingKind
}

type mappingKind uint8

const (
	mappingUnset mappingKind = iota
	mappingAuto
	mappingFixed
)

// AutoMapping is the mapping the design-space exploration chooses.
var AutoMapping = Mapping{kind: mappingAuto}

// FixedMapping is the mapping m, set by hand.
func FixedMapping(m hw.Mapping) Mapping { return Mapping{fixed: m, kind: mappingFixed} }

// ParseMapping reads the text form: "auto", or three device letters in any
// case (hw.ParseMapping); empty is the mapping not given. Anything else is
// a *FieldError that says what is accepted.
func ParseMapping(s string) (Mapping, error) {
	if s == "" {
		return Mapping{}, nil
	}
	if strings.EqualFold(s, "auto") {
		return AutoMapping, nil
	}
	m, err := hw.ParseMapping(s)
	if err != nil {
		return AutoMapping, &FieldError{"mapping", fmt.Sprintf("%q", s), `use "auto" or Learner-RMM-Storage devices from C, G, F, e.g. "G-F-G"`}
	}
	return FixedMapping(m), nil
}

// Auto reports whether the exploration chooses the mapping (also when it
// was not given).
func (m Mapping) Auto() bool { return m.kind != mappingFixed }

// Fixed returns the mapping set by hand, and false for auto.
func (m Mapping) Fixed() (hw.Mapping, bool) { return m.fixed, m.kind == mappingFixed }

// String returns "auto" or the letters, e.g. "G-F-G".
func (m Mapping) String() string {
	if m.kind != mappingFixed {
		return "auto"
	}
	return m.fixed.String()
}

// MarshalText returns the text form.
func (m Mapping) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads the text form (ParseMapping).
func (m *Mapping) UnmarshalText(b []byte) error {
	v, err := ParseMapping(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Device is a device a mapping places work on: its letter in the text
// form ("G") and its name ("GPU").
type Device struct{ Letter, Name string }

// Devices returns the devices a mapping chooses from, in table order.
func Devices() []Device {
	out := make([]Device, 0, hw.NumKinds)
	for _, k := range hw.Kinds {
		out = append(out, Device{Letter: string(k.Letter()), Name: k.String()})
	}
	return out
}

// MustMapping is ParseMapping for mappings written in code: it panics on a
// malformed one.
func MustMapping(s string) Mapping {
	m, err := ParseMapping(s)
	if err != nil || s == "" {
		panic(fmt.Sprintf("engine: MustMapping(%q): %v", s, err))
	}
	return m
}
