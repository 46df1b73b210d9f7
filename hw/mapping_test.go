package hw

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestParseMapping(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Mapping
		ok   bool
	}{
		{"G-F-G", Mapping{Learner: GPU, RMM: FPGA, Storage: GPU}, true},
		{"c-c-f", Mapping{Learner: CPU, RMM: CPU, Storage: FPGA}, true},
		{"G-F", Mapping{}, false},
		{"G-F-G-G", Mapping{}, false},
		{"GG-F-G", Mapping{}, false},
		{"G-X-G", Mapping{}, false},
		{"G_F_G", Mapping{}, false},
		{"auto", Mapping{}, false},
		{"", Mapping{}, false},
	} {
		got, err := ParseMapping(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseMapping(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestMappingText(t *testing.T) {
	for _, m := range []Mapping{{GPU, FPGA, GPU}, {CPU, CPU, CPU}, {FPGA, GPU, CPU}} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Mapping
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Errorf("%v: JSON %s read back as %v, %v", m, b, back, err)
		}
	}
	var m Mapping
	if err := json.Unmarshal([]byte(`"G-Q-G"`), &m); err == nil {
		t.Error("a mapping with an unknown device letter was read")
	}
}

// TestLinks: the routing rule, against the cases spelled out.
func TestLinks(t *testing.T) {
	for _, c := range []struct {
		a, b Kind
		want []Kind
	}{
		{CPU, CPU, nil}, {GPU, GPU, nil}, {FPGA, FPGA, nil},
		{CPU, GPU, []Kind{GPU}}, {GPU, CPU, []Kind{GPU}},
		{CPU, FPGA, []Kind{FPGA}}, {FPGA, CPU, []Kind{FPGA}},
		{GPU, FPGA, []Kind{GPU, FPGA}}, {FPGA, GPU, []Kind{FPGA, GPU}},
	} {
		if got := Links(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("Links(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = Links(GPU, FPGA) }); n != 0 {
		t.Errorf("Links allocates %v times per call", n)
	}
}

func TestDeviceCount(t *testing.T) {
	for _, c := range []struct {
		m    Mapping
		want int
	}{
		{Mapping{CPU, CPU, CPU}, 1}, {Mapping{GPU, GPU, GPU}, 2}, {Mapping{GPU, FPGA, GPU}, 3}, {Mapping{FPGA, CPU, FPGA}, 2},
	} {
		if got := c.m.DeviceCount(); got != c.want {
			t.Errorf("%s uses %d devices, want %d (the actors' CPU counts)", c.m, got, c.want)
		}
		if used := c.m.Devices(); !used[CPU] || !used[c.m.Learner] || !used[c.m.RMM] || !used[c.m.Storage] {
			t.Errorf("%s: devices %v leave out the CPU or a placed part", c.m, used)
		}
	}
}
