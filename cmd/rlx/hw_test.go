package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

func TestHWSystolicJSON(t *testing.T) {
	out, err := execute(t, newHWCmd(), "systolic", "--m", "64", "--k", "64", "--n", "64", "--p", "16", "--dataflow", "ws", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Schema      string  `json:"schema"`
		Cycles      int64   `json:"cycles"`
		Folds       int     `json:"folds"`
		Utilization float64 `json:"utilization"`
		Eq5         int64   `json:"eq5_cycles"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	// WS: ceil(b/P) ceil(a/P) c + 2P - 1 = 4 * 4 * 64 + 31.
	if j.Schema != hwSystolicSchema || j.Cycles != 1055 || j.Eq5 != 1055 || j.Folds != 16 || j.Utilization <= 0 || j.Utilization > 1 {
		t.Errorf("%+v", j)
	}
}

// TestHWSystolicDimensionOrder: --m is the batch (c), --n the outputs (a);
// swapping them exchanges WS and IS.
func TestHWSystolicDimensionOrder(t *testing.T) {
	cycles := func(args ...string) int64 {
		out, err := execute(t, newHWCmd(), append([]string{"systolic", "--json", "--p", "8"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var j struct{ Cycles int64 }
		json.Unmarshal([]byte(out), &j)
		return j.Cycles
	}
	ws := cycles("--m", "8", "--k", "40", "--n", "64", "--dataflow", "ws")
	if want := hw.Eq5Cycles(hw.GEMMDims{A: 64, B: 40, C: 8}, 8, hw.WS); ws != want {
		t.Errorf("WS with M=8 N=64: %d cycles, want Eq. 5 with a=64, c=8: %d", ws, want)
	}
	is := cycles("--m", "64", "--k", "40", "--n", "8", "--dataflow", "is")
	if is != ws {
		t.Errorf("IS with M and N swapped: %d, want %d", is, ws)
	}
}

func TestHWSystolicSeparateFolds(t *testing.T) {
	out, err := execute(t, newHWCmd(), "systolic", "--m", "32", "--k", "32", "--n", "32", "--p", "16", "--dataflow", "is", "--separate-folds")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "separate folds") || !strings.Contains(out, "row0") {
		t.Errorf("output:\n%s", out)
	}
}

// TestHWSystolicScaleSimJSON: --scalesim --json reports mode "scalesim"
// and SCALE-Sim v2's count, here the Hopper 11 -> 64 layer at batch 64 on
// WS, whose folds use 11 of 16 rows but are charged whole.
func TestHWSystolicScaleSimJSON(t *testing.T) {
	out, err := execute(t, newHWCmd(), "systolic", "--m", "64", "--k", "11", "--n", "64", "--p", "16", "--dataflow", "ws", "--scalesim", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Schema      string  `json:"schema"`
		Mode        string  `json:"mode"`
		Dataflow    string  `json:"dataflow"`
		Cycles      int64   `json:"cycles"`
		Folds       int     `json:"folds"`
		Utilization float64 `json:"utilization"`
		Eq5         int64   `json:"eq5_cycles"`
		Rows        []struct {
			BusyCycles int64 `json:"busy_cycles"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	// ceil(11/16) ceil(64/16) folds of T + 3P - 2 = 64 + 46, minus 1.
	if j.Schema != hwSystolicSchema || j.Mode != "scalesim" || j.Dataflow != "WS" || j.Cycles != 4*110-1 || j.Folds != 4 ||
		j.Eq5 != 4*64+31 || j.Utilization <= 0 || j.Utilization > 1 || len(j.Rows) != 16 || j.Rows[11].BusyCycles != 0 {
		t.Errorf("%+v", j)
	}
	if want := hw.ScaleSimCycles(hw.GEMMDims{A: 64, B: 11, C: 64}, 16, hw.WS); j.Cycles != want {
		t.Errorf("cycles %d, ScaleSimCycles %d", j.Cycles, want)
	}
	// Hopper 64 -> 3, NS: 4 folds of 3 used rows, each b + 2P - 2 = 94.
	out, err = execute(t, newHWCmd(), "systolic", "--m", "64", "--k", "64", "--n", "3", "--p", "16", "--scalesim")
	if err != nil || !strings.Contains(out, "SCALE-Sim v2") || !strings.Contains(out, "cycles 375 ") {
		t.Errorf("text output: %v\n%s", err, out)
	}
}

func TestHWGAE(t *testing.T) {
	out, err := execute(t, newHWCmd(), "gae", "--t", "1024", "--n", "64", "--pes", "64", "--lookahead", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Schema   string  `json:"schema"`
		Interval int     `json:"interval"`
		Cycles   int64   `json:"cycles"`
		EPS      float64 `json:"elements_per_second"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if j.Schema != hwGAESchema || j.Interval != 1 || j.Cycles != 1030 || j.EPS < 1.8e10 {
		t.Errorf("%+v", j)
	}
	out, err = execute(t, newHWCmd(), "gae", "--t", "16", "--n", "4", "--pes", "2", "--lookahead", "1")
	if err != nil || !strings.Contains(out, "every 2 cycle") {
		t.Errorf("k=1 should show bubbles: %v\n%s", err, out)
	}
}

func TestHWUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"systolic", "--m", "0", "--k", "4", "--n", "4"},
		{"systolic", "--m", "4", "--k", "4", "--n", "4", "--p", "0"},
		{"systolic", "--m", "4", "--k", "4", "--n", "4", "--dataflow", "xs"},
		{"gae", "--t", "0", "--n", "4"},
		{"gae", "--t", "4", "--n", "4", "--lookahead", "0"},
		{"gae", "--t", "4", "--n", "4", "--clock-mhz", "-1"},
		{"systolic", "--m", "x"},
		{"systolic", "--m", "4", "--k", "4", "--n", "4", "--separate-folds", "--scalesim"},
	} {
		_, err := execute(t, newHWCmd(), args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v is not a usage error", args, err)
		}
	}
}

// TestHWGAEClockNotANumber: NaN and Inf are no clock. A comparison such as
// v <= 0 || v > 2000 is false for NaN, which printed "NaN elements/s" with
// exit 0, and with --json failed to encode with exit 1.
func TestHWGAEClockNotANumber(t *testing.T) {
	for _, clock := range []string{"NaN", "Inf", "-Inf", "0", "2001"} {
		for _, asJSON := range []bool{false, true} {
			args := []string{"hw", "gae", "--t", "4", "--n", "4", "--clock-mhz", clock}
			if asJSON {
				args = append(args, "--json")
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), "--clock-mhz") || !strings.Contains(stderr.String(), "(0, 2000]") {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 naming --clock-mhz and (0, 2000]", args, code, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("%v: wrote %q", args, stdout.String())
			}
		}
	}
}

// TestHWDefaults: without flags, rlx hw systolic and rlx hw gae run the
// papers' design points their help names.
func TestHWDefaults(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hw", "systolic"}, "GEMM M=64 K=64 N=64 on 16x16 NS"},
		{[]string{"hw", "gae"}, "GAE T=1024 N=64 on 64 PEs, 2-step lookahead"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s\nwant exit 0 and %q", tt.args, code, stderr.String(), stdout.String(), tt.want)
		}
	}
}

// TestHWErrorsNameTheFlag: a value out of range is refused naming the flag
// as typed, not the model's letter for it (003 Eq. 5's a is --n).
func TestHWErrorsNameTheFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"hw", "systolic", "--n", "0"}, "--n 0 is out of range: it must be 1..4194304"},
		{[]string{"hw", "systolic", "--m", "-3"}, "--m -3 is out of range"},
		{[]string{"hw", "systolic", "--p", "2048"}, "--p 2048 is out of range: it must be 1..1024"},
		{[]string{"hw", "gae", "--pes", "0"}, "--pes 0 is out of range: it must be 1..65536"},
		{[]string{"hw", "gae", "--loop-latency", "65"}, "--loop-latency 65 is out of range: it must be 1..64"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), "dimension") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestHWFlagRangesAreTheModels: the flags' ranges are exactly what
// hw.CheckSystolic and hw.GAECycles accept, each flag alone at its ends
// and one past them.
func TestHWFlagRangesAreTheModels(t *testing.T) {
	systolic := func(name string, v int) error {
		d, p := hw.GEMMDims{A: 1, B: 1, C: 1}, 1
		switch name {
		case "m":
			d.C = v
		case "k":
			d.B = v
		case "n":
			d.A = v
		case "p":
			p = v
		default:
			t.Fatalf("no flag --%s in the test", name)
		}
		return hw.CheckSystolic(d, p)
	}
	gae := func(name string, v int) error {
		a := map[string]int{"t": 1, "n": 1, "pes": 1, "lookahead": 1, "loop-latency": 1}
		if _, ok := a[name]; !ok {
			t.Fatalf("no flag --%s in the test", name)
		}
		a[name] = v
		_, err := hw.GAECycles(a["t"], a["n"], a["pes"], a["lookahead"], a["loop-latency"])
		return err
	}
	for _, tt := range []struct {
		flags []intFlag
		check func(string, int) error
	}{{systolicFlags, systolic}, {gaeFlags, gae}} {
		for _, f := range tt.flags {
			for v, ok := range map[int]bool{f.lo - 1: false, f.lo: true, f.hi: true, f.hi + 1: false} {
				if err := tt.check(f.name, v); (err == nil) != ok {
					t.Errorf("--%s %d: the flag's range %d..%d says %v, the model says %v", f.name, v, f.lo, f.hi, ok, err)
				}
			}
		}
	}
}

// TestHWSystolicTooManyMACs: three dimensions at their limit make 2^66
// MACs, which overflowed the model's int64 count, passed its 2^40 bound
// and simulated for hours; they are refused at once.
func TestHWSystolicTooManyMACs(t *testing.T) {
	const max = "4194304"
	code, _, stderr := runWithin(t, "hw", "systolic", "--m", max, "--k", max, "--n", max)
	if code != exitUsage || !strings.Contains(stderr, "at most 2^40") || !strings.Contains(stderr, "--m 4194304 --k 4194304 --n 4194304") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the flags and the 2^40 bound", code, stderr)
	}
}
