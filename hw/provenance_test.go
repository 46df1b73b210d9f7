package hw

import (
	"strings"
	"testing"
)

const provenanceDoc = `name: t  # a name is not a constant
cpu:
  cores: 4                  # 000 §VII-A
  op_overhead_us: 5         # assumption, no anchor
  train_threads: 3          # Assumption: capitalised
  rmm_threads: 1
fpga:
  rmm_lut_per_stage: 141    # fitted: 000 Table VI
  slrs:
    - {dsp: 10, lut: 20}    # one SLR
`

func TestConstantsReadEachValueAndItsSource(t *testing.T) {
	cs, err := Constants([]byte(provenanceDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		path string
		v    float64
		kind SourceKind
		line int
	}{
		{"cpu.cores", 4, Sourced, 3},
		{"cpu.op_overhead_us", 5, Assumption, 4},
		{"cpu.train_threads", 3, Assumption, 5},
		{"cpu.rmm_threads", 1, Unsourced, 6},
		{"fpga.rmm_lut_per_stage", 141, Fitted, 8},
		{"fpga.slrs[0].dsp", 10, Sourced, 10},
		{"fpga.slrs[0].lut", 20, Sourced, 10},
	}
	if len(cs) != len(want) {
		t.Fatalf("got %d constants %+v, want %d", len(cs), cs, len(want))
	}
	for i, w := range want {
		c := cs[i]
		if c.Path != w.path || c.Value != w.v || c.Kind != w.kind || c.Line != w.line || !c.Integer {
			t.Errorf("constant %d = %+v, want %s = %g (%s) on line %d", i, c, w.path, w.v, w.kind, w.line)
		}
	}
	if cs[1].Source != "assumption, no anchor" {
		t.Errorf("source of %s = %q", cs[1].Path, cs[1].Source)
	}
}

func TestScaleConstantKeepsTheFileAndTheFieldType(t *testing.T) {
	data := readPreset(t, "table-iv")
	cs, err := Constants(data)
	if err != nil {
		t.Fatal(err)
	}
	find := func(path string) Constant {
		for _, c := range cs {
			if c.Path == path {
				return c
			}
		}
		t.Fatalf("no constant %s", path)
		return Constant{}
	}
	for _, tc := range []struct {
		path   string
		factor float64
		want   float64 // what the platform then has
	}{
		{"cpu.op_overhead_us", 0.5, 2.5}, // written "5", a float field: exact
		{"cpu.op_overhead_us", 2, 10},
		{"link.latency_us", 2, 10},
		{"cpu.rmm_threads", 0.5, 1}, // an int field: 0.5 rounds back to 1
		{"cpu.train_threads", 0.5, 8},
		{"fpga.slrs[1].dsp", 0.5, 1140},
	} {
		c := find(tc.path)
		out, v, err := ScaleConstant(data, c, tc.factor)
		if err != nil {
			t.Fatalf("%s x %g: %v", tc.path, tc.factor, err)
		}
		if v != tc.want {
			t.Errorf("%s x %g wrote %g, want %g", tc.path, tc.factor, v, tc.want)
		}
		p, err := ParsePlatform("scaled", out)
		if err != nil {
			t.Fatalf("%s x %g: %v", tc.path, tc.factor, err)
		}
		got := map[string]float64{
			"cpu.op_overhead_us": p.CPU.OpOverheadUS, "link.latency_us": p.Link.LatencyUS,
			"cpu.rmm_threads": float64(p.CPU.RMMThreads), "cpu.train_threads": float64(p.CPU.TrainThreads),
			"fpga.slrs[1].dsp": float64(p.FPGA.SLRs[1].DSP),
		}[tc.path]
		if got != tc.want {
			t.Errorf("%s x %g: the platform has %g, want %g", tc.path, tc.factor, got, tc.want)
		}
		// Only the value changed: same lines, same comments, and every
		// other constant as it was.
		after, err := Constants(out)
		if err != nil || len(after) != len(cs) {
			t.Fatalf("%s x %g: %d constants (%v), want %d", tc.path, tc.factor, len(after), err, len(cs))
		}
		for i, a := range after {
			b := cs[i]
			if a.Path != b.Path || a.Source != b.Source || a.Line != b.Line || (a.Path != tc.path && a.Value != b.Value) {
				t.Errorf("%s x %g changed %+v into %+v", tc.path, tc.factor, b, a)
			}
		}
		if strings.Count(string(out), "\n") != strings.Count(string(data), "\n") {
			t.Errorf("%s x %g changed the line count", tc.path, tc.factor)
		}
	}
}

// TestShippedPlatformsSourceEveryConstant keeps docs/models.md's promise
// that every value of a shipped device file says where it comes from, in
// the form Constants reads.
func TestShippedPlatformsSourceEveryConstant(t *testing.T) {
	for _, name := range []string{"table-iv", "heppo-zcu106"} {
		cs, err := Constants(readPreset(t, name))
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[SourceKind][]string{}
		for _, c := range cs {
			if c.Kind == Unsourced {
				t.Errorf("%s.yaml:%d:%d: %s = %g has no comment naming its source", name, c.Line, c.Column, c.Path, c.Value)
			}
			kinds[c.Kind] = append(kinds[c.Kind], c.Path)
		}
		t.Logf("%s: %d assumptions %v; %d fitted %v", name, len(kinds[Assumption]), kinds[Assumption], len(kinds[Fitted]), kinds[Fitted])
	}
}
