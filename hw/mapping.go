package hw

import (
	"fmt"
	"strings"
)

// Mapping places the three parts of a training step on devices. Its text
// form names the devices by letter, in order, joined by dashes: "G-F-G"
// (000 Table V's Learner-RMM-Storage).
//
// Off-policy runs (000) place the learner, the replay manager (RMM) and the
// data storage. PPO runs (003, 004) have no replay manager: the middle
// place holds the advantage estimation, so a PPO mapping reads
// Learner-GAE-Storage; GAE names that place for readers of PPO code.
type Mapping struct {
	Learner, RMM, Storage Kind
}

// GAE is the device of a PPO run's advantage estimation: the middle place,
// which off-policy runs give the RMM.
func (m Mapping) GAE() Kind { return m.RMM }

// String returns the mapping as letters, e.g. "G-F-G".
func (m Mapping) String() string {
	return string([]byte{m.Learner.Letter(), '-', m.RMM.Letter(), '-', m.Storage.Letter()})
}

// ParseMapping parses the text form: three device letters (C, G, F, either
// case) joined by dashes, e.g. "G-F-G". It is the one parser of mappings;
// the error says what is accepted.
func ParseMapping(s string) (Mapping, error) {
	bad := fmt.Errorf("mapping %q is not three devices from C, G, F joined by dashes, e.g. G-F-G (learner, RMM or GAE, storage)", s)
	parts := strings.Split(s, "-")
	if len(parts) != 3 {
		return Mapping{}, bad
	}
	var k [3]Kind
	for i, p := range parts {
		if len(p) != 1 {
			return Mapping{}, bad
		}
		var err error
		if k[i], err = KindFromLetter(p[0]); err != nil {
			return Mapping{}, bad
		}
	}
	return Mapping{k[0], k[1], k[2]}, nil
}

// MarshalText returns the text form, for YAML and JSON.
func (m Mapping) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText parses the text form (ParseMapping).
func (m *Mapping) UnmarshalText(b []byte) error {
	v, err := ParseMapping(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Devices reports which devices the mapping uses: the learner's, the
// RMM's and the storage's, and the CPU always, since the actors run there
// (000 §IV-A).
func (m Mapping) Devices() (used [NumKinds]bool) {
	used[CPU], used[m.Learner], used[m.RMM], used[m.Storage] = true, true, true, true
	return used
}

// DeviceCount returns how many distinct devices the mapping uses (Devices).
func (m Mapping) DeviceCount() int {
	n := 0
	for _, u := range m.Devices() {
		if u {
			n++
		}
	}
	return n
}

// Links returns the PCIe links that data moving from device a to device b
// crosses, named by the accelerator at their far end: none on one device,
// that accelerator's link between the CPU and an accelerator, and both
// links between two accelerators, since the data goes through the host:
// PCIe connects the CPU with the GPU and the CPU with the FPGA (000
// §VII-A), and every processing unit's queues are kept by a host thread
// (000 §V-B). It is the one home of that routing rule; the result must not
// be modified.
func Links(a, b Kind) []Kind {
	if a >= NumKinds || b >= NumKinds {
		panic(fmt.Sprintf("hw: Links(%v, %v): not a device", a, b))
	}
	return routes[a][b]
}

// routes[a][b] is Links(a, b), computed once so that Links allocates
// nothing on the simulated clock's hot path.
var routes = func() (r [NumKinds][NumKinds][]Kind) {
	for _, a := range Kinds {
		for _, b := range Kinds {
			if a == b {
				continue
			}
			for _, k := range []Kind{a, b} {
				if k != CPU {
					r[a][b] = append(r[a][b], k)
				}
			}
		}
	}
	return r
}()
