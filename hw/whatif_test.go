package hw

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func tableIV(t *testing.T) ([]byte, *Platform) {
	t.Helper()
	data, err := os.ReadFile("../presets/devices/table-iv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlatform("table-iv.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return data, p
}

func knob(t *testing.T, path string) Knob {
	t.Helper()
	k, ok := FindKnob(path)
	if !ok {
		t.Fatalf("no knob %s", path)
	}
	return k
}

func TestKnobNext(t *testing.T) {
	for _, tc := range []struct {
		path string
		v    float64
		dir  int
		want float64
	}{
		{"link.gbs", 16, 1, 20},
		{"link.gbs", 16, -1, 12.5},
		{"link.gbs", 12.5, -1, 10},
		{"link.gbs", 0.315, -1, 0.25},
		{"link.gbs", 0.25, -1, 0.25}, // the minimum
		{"link.gbs", 250, 1, 256},    // kept in range
		{"gpu.peak_gflops", 12150, 1, 12500},
		{"gpu.peak_gflops", 12150, -1, 10000},
		{"cpu.cores", 56, 1, 63},
		{"cpu.cores", 56, -1, 50},
		{"cpu.cores", 2, -1, 1},
		{"cpu.cores", 2, 1, 3}, // 2.5 rounds to 3: whole numbers that differ
		{"link.latency_us", 5, -1, 4},
		{"link.latency_us", 4.5, 1, 5},
		{"link.latency_us", 0, -1, 0},
		{"fpga.clock_mhz", 300, 1, 325},
		{"fpga.slrs", 3, 1, 4},
		{"fpga.slrs", 4, 1, 4},
	} {
		if got := knob(t, tc.path).Next(tc.v, tc.dir); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s.Next(%g, %d) = %g, want %g", tc.path, tc.v, tc.dir, got, tc.want)
		}
	}
}

func TestKnobSet(t *testing.T) {
	_, p := tableIV(t)
	before := p.Clone()
	for _, tc := range []struct {
		path string
		v    float64
		want string // in the error; "" for none
	}{
		{"link.gbs", 1000, "link.gbs = 1000 is out of range: must be 0.25..256"},
		{"link.gbs", math.NaN(), "out of range"},
		{"fpga.slrs", 2.5, "fpga.slrs = 2.5 is not a whole number"},
		{"cpu.cores", 0, "cpu.cores = 0 is out of range: must be 1..512"},
	} {
		err := knob(t, tc.path).Set(p, tc.v)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %g) = %v, want an error with %q", tc.path, tc.v, err, tc.want)
		}
	}
	if !reflect.DeepEqual(p, before) {
		t.Fatal("refused values changed the platform")
	}

	// The threads follow a CPU with fewer cores; the RMM keeps at most
	// all SLRs but one.
	if err := knob(t, "cpu.cores").Set(p, 8); err != nil {
		t.Fatal(err)
	}
	if c := p.CPU; c.Cores != 8 || c.TrainThreads != 8 || c.RMMThreads != 1 || c.DerivedRate.PhysicalCores != 8 {
		t.Errorf("cores 8: cores %d, train threads %d, rmm threads %d, physical %d", c.Cores, c.TrainThreads, c.RMMThreads, c.DerivedRate.PhysicalCores)
	}
	if before.CPU.DerivedRate.PhysicalCores != 28 {
		t.Error("Set changed the platform it was cloned from")
	}
	if err := knob(t, "fpga.slrs").Set(p, 1); err != nil {
		t.Fatal(err)
	}
	if f := p.FPGA; len(f.SLRs) != 1 || f.RMMSLRs != 0 {
		t.Errorf("1 SLR: %d SLRs, %d for the RMM", len(f.SLRs), f.RMMSLRs)
	}
	if err := knob(t, "fpga.slrs").Set(p, 4); err != nil {
		t.Fatal(err)
	}
	if f := p.FPGA; len(f.SLRs) != 4 || f.SLRs[3] != before.FPGA.SLRs[0] {
		t.Errorf("4 SLRs: %+v", f.SLRs)
	}
}

// TestEditedYAML rewrites table-iv.yaml in place: the changed values get
// the new number and a comment saying so, the others keep theirs, and the
// file reads back as the edited platform.
func TestEditedYAML(t *testing.T) {
	data, p := tableIV(t)
	for path, v := range map[string]float64{"link.gbs": 4, "cpu.cores": 16, "fpga.slrs": 4} {
		if err := knob(t, path).Set(p, v); err != nil {
			t.Fatal(err)
		}
	}
	p.Name, p.Doc = "table-iv-edited", "Table IV, edited"
	out, err := EditedYAML(data, p, []string{"a test header"})
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"# a test header\n",
		`name: "table-iv-edited"`,
		"gbs: 4  # " + EditedNote + "; gbs was 16 (before: 000 §VII-A",
		"cores: 16  # " + EditedNote + "; cores was 56",
		"train_threads: 16          # 000 §VII-C", // unchanged: its comment kept
		"l1_latency_cycles: 4       # 7-cpu.com Skylake (000 ref [32])",
		EditedNote + ": SLR 3, a copy of SLR 2",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Written whole") {
		t.Error("table-iv.yaml was written whole, not edited in place")
	}
	consts, err := Constants(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range consts {
		if c.Path == "link.gbs" && c.Kind != Assumption {
			t.Errorf("the edited link.gbs reads as %s, want an assumption", c.Kind)
		}
	}

	// Fewer SLRs drop lines; a file whose SLRs share a line is written
	// whole, and reads back the same.
	if err := knob(t, "fpga.slrs").Set(p, 2); err != nil {
		t.Fatal(err)
	}
	if out, err = EditedYAML(data, p, nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "- {dsp:"); n != 2 {
		t.Errorf("2 SLRs: the file has %d SLR lines", n)
	}
	flow := strings.Replace(string(data), "  slrs:                      # XCU200 device totals (hw-anchors) split over 3 SLRs;\n", "  slrs: [", 1)
	flow = strings.Replace(flow, "    - {dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}   # SRAM: Table IV 35 MB / 3\n", "{dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}, ", 1)
	flow = strings.Replace(flow, "    - {dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}   # SLR 1 of 3, as SLR 0\n", "{dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}, ", 1)
	flow = strings.Replace(flow, "    - {dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}   # SLR 2 of 3, as SLR 0\n", "{dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67}]\n", 1)
	if _, err := ParsePlatform("flow.yaml", []byte(flow)); err != nil {
		t.Fatalf("the flow-style file does not load: %v", err)
	}
	out, err = EditedYAML([]byte(flow), p, []string{"whole"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "Written whole") {
		t.Error("a flow-style SLR list was edited in place")
	}
	q, err := ParsePlatform("whole.yaml", out)
	if err != nil || !reflect.DeepEqual(q, p) {
		t.Errorf("the file written whole reads back as %+v, %v", q, err)
	}
}

// TestKnobValue: every knob reads the value Set wrote, at its path, on a
// platform with its device; on one without, it is off and has no value.
func TestKnobValue(t *testing.T) {
	_, p := tableIV(t)
	for _, k := range Knobs() {
		v, ok := k.Value(p)
		if !ok || !k.On(p) {
			t.Fatalf("%s: no value on table-iv", k.Path)
		}
		next := k.Next(v, 1)
		if next == v {
			next = k.Next(v, -1)
		}
		if err := k.Set(p, next); err != nil {
			t.Fatalf("%s: Set(%g): %v", k.Path, next, err)
		}
		// Set writes through the knob's field, Value reads through its
		// YAML path (valueAt, what the saved file gets): they agree.
		if got, _ := k.Value(p); got != next {
			t.Errorf("%s: set %g, reads %g", k.Path, next, got)
		}
	}
	bare := p.Clone()
	bare.GPU, bare.FPGA, bare.Link = nil, nil, nil
	for _, k := range Knobs() {
		_, ok := k.Value(bare)
		if want := k.Device == "CPU"; ok != want || k.On(bare) != want {
			t.Errorf("%s on a CPU-only platform: value %v, on %v; want %v", k.Path, ok, k.On(bare), want)
		}
	}
	if (Knob{Path: "cpu.cores"}).On(nil) {
		t.Error("a knob is on a nil platform")
	}
}
