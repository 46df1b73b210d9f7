package papers

import (
	"slices"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/presets"
)

func embedded(t *testing.T) *Tables {
	t.Helper()
	s, err := Parse(presets.SeedTables())
	if err != nil {
		t.Fatalf("%s: %v", presets.SeedTablesFile, err)
	}
	return s
}

func TestParseEmbedded(t *testing.T) {
	s := embedded(t)
	if n := len(s.Heterogeneous.OptimalMapping); n != 11 {
		t.Errorf("%d Table V mappings, want 11", n)
	}
	if b, ok := s.Baseline("Pong", 256); !ok || b.SecondBest != "G-G-G" || b.Speedup != 1.93 || b.Worst != "C-C-C" || b.WorstSpeedup != 197.6 {
		t.Errorf("Baseline(Pong, 256) = %+v, %v", b, ok)
	}
	if _, ok := s.Baseline("Pong", 128); ok {
		t.Error("Baseline(Pong, 128): Table V has no such column")
	}
	if w, ok := s.PPOAccel.Networks["Hopper"].Widths(); !ok || !slices.Equal(w, []int{11, 64, 64, 3}) {
		t.Errorf("Hopper widths %v, %v", w, ok)
	}
	if w, ok := s.PPOAccel.Networks["Pong"].Widths(); ok {
		t.Errorf("Pong's ConvNet is a description, not widths: %v", w)
	}
	for net, want := range map[string][2]float64{"Hopper": {696, 926}, "Humanoid": {638, 2160}, "Pong": {3745, 3745}} {
		if lo, hi, err := s.BRAMRange(net); err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("BRAMRange(%s) = %g..%g, %v; want %g..%g", net, lo, hi, err, want[0], want[1])
		}
	}
	if _, _, err := s.BRAMRange("Walker"); err == nil || !strings.Contains(err.Error(), "has no Walker") {
		t.Errorf("BRAMRange(Walker): %v", err)
	}
}

// TestIPSRows checks the expansion of 003 Table 2: every configuration
// once, the fixed parameters in the order the sweep's key names them.
func TestIPSRows(t *testing.T) {
	rows, err := embedded(t).IPSRows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 30 {
		t.Fatalf("%d rows, want 30", len(rows))
	}
	for _, want := range []IPSRow{
		{Network: "Hopper", Vary: "M", N: 16, T: 512, M: 64, K: 10, C: 509, CG: 539, CF: 13800},
		{Network: "Humanoid", Vary: "N", N: 16, T: 512, M: 512, K: 10, C: 1900, CG: 2000, CF: 7600},
		{Network: "Pong", Vary: "T", N: 8, T: 512, M: 128, K: 3, C: 488, CG: 776, CF: 998},
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("no row %+v", want)
		}
	}
	if rows[0].Network != "Hopper" || rows[0].Vary != "M" || rows[0].Value() != 64 || rows[len(rows)-1].Network != "Pong" || rows[len(rows)-1].Value() != 512 {
		t.Errorf("rows out of order: first %+v, last %+v", rows[0], rows[len(rows)-1])
	}
	for _, r := range rows {
		if v := map[string]int{"M": r.M, "N": r.N, "T": r.T}[r.Vary]; r.Value() != v {
			t.Errorf("%+v: Value() = %d, want %d", r, r.Value(), v)
		}
	}
}

func TestIPSRowsErrors(t *testing.T) {
	good := IPSSweep{NTK: []int{16, 512, 10}, M: []int{64, 128}, C: []float64{1, 2}, CG: []float64{1, 2}, CF: []float64{1, 2}}
	for _, tt := range []struct {
		name  string
		vary  string
		sweep IPSSweep
		want  string
	}{
		{"unknown sweep", "vary_K", good, `ips_table2.hopper_spinningup.vary_K: sweep "vary_K" is not known`},
		{"two fixed", "vary_M", IPSSweep{NTK: []int{16, 512}, M: good.M, C: good.C, CG: good.CG, CF: good.CF}, "2 fixed parameters, want 3"},
		{"a CF short", "vary_M", IPSSweep{NTK: good.NTK, M: good.M, C: good.C, CG: good.CG, CF: []float64{1}}, "2 values with 1 CF, 2 C, 2 CG figures"},
		{"no values", "vary_M", IPSSweep{NTK: good.NTK}, "0 values"},
	} {
		var s Tables
		s.PPOAccel.IPS = map[string]map[string]IPSSweep{"hopper_spinningup": {tt.vary: tt.sweep}}
		if _, err := s.IPSRows(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one with %q", tt.name, err, tt.want)
		}
	}
	if _, err := new(Tables).IPSRows(); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("no Table 2: %v", err)
	}
}

func TestParseError(t *testing.T) {
	if _, err := Parse([]byte("heterogeneous_mapping: [")); err == nil {
		t.Error("malformed YAML parsed")
	}
	if _, err := Parse([]byte("heterogeneous_mapping:\n  optimal_mapping: {env: 1}\n")); err == nil {
		t.Error("a map where a list belongs parsed")
	}
}
