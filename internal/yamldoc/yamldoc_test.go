package yamldoc

import (
	"strings"
	"testing"
	"time"
)

type doc struct {
	Name  string   `yaml:"name"`
	Steps []string `yaml:"steps"`
	Sub   struct {
		Rates map[string]float64 `yaml:"rates"`
		Count int                `yaml:"count"`
		Sizes []int              `yaml:"sizes"`
		Caps  map[string]*uint   `yaml:"caps"`
		Seed  uint64             `yaml:"seed"`
		Steps int64              `yaml:"steps"`
		Wait  time.Duration      `yaml:"wait"`
	} `yaml:"sub"`
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		in      string
		fails   bool
		message string // part of the error, when it fails
	}{
		{in: "name: a\nsteps: [x, y]\nsub:\n  rates: {a: 1}\n"},
		{in: "name: a\nstep: [x]\n", fails: true, message: `unknown field "step"`},
		{in: "steps: 3\n", fails: true, message: "sequence is expected"},
		{in: "sub:\n  rates:\n    ! 00000000\nA:", fails: true, message: "mapping is expected"},
		// The decoder alone truncates a fraction into an int field.
		{in: "sub:\n  rates: {a: 1.5}\n  count: 2.0\n  sizes: [1, 2e3]\n"},
		{in: "sub:\n  count: 1.5\n", fails: true, message: "[2:10] 1.5 is not a whole number"},
		{in: "sub:\n  sizes: [1, 2.25]\n", fails: true, message: "2.25 is not a whole number"},
		{in: "sub:\n  caps: {a: 0.5}\n", fails: true, message: "0.5 is not a whole number"},
		// These made the decoder panic (goccy/go-yaml issue 735, an
		// unknown tag on a value that should be a list). Whether the error
		// comes from the recovered panic or, once the decoder is fixed,
		// from the decoder itself, it must be an error.
		{in: "name: a\nsteps: !x 0\n", fails: true},
		{in: "steps:\n    ! 00000000000000000000000000000000000000000000\nA:", fails: true},
		// A key written in quotes is the same key: its value is checked.
		{in: "sub:\n  \"count\": 1.5\n", fails: true, message: "[2:12] 1.5 is not a whole number"},
		// A key that is not a string made the decoder drop the whole
		// mapping, name and all, without a word.
		{in: "name: a\n7: x\n", fails: true, message: `[2:1] unknown field "7": use one of name, steps, sub`},
		{in: "name: a\ntrue: x\n", fails: true, message: `unknown field "true"`},
		// Whole numbers the field's type cannot hold: the decoder turned
		// 2^64 into 2^63 for a uint64 and 2^63 into -2^63 for an int64.
		{in: "sub:\n  seed: 18446744073709551615\n"},
		{in: "sub:\n  seed: 1.0e19\n"},
		{in: "sub:\n  seed: 18446744073709551616\n", fails: true, message: "[2:9] 18446744073709551616 is out of range: this field takes an integer 0..18446744073709551615"},
		{in: "sub:\n  seed: 1.8446744073709552e19\n", fails: true, message: "is out of range: this field takes an integer 0..18446744073709551615"},
		{in: "sub:\n  seed: -1\n", fails: true, message: "-1 is out of range"},
		{in: "sub:\n  steps: 9.3e18\n", fails: true, message: "9.3e18 is out of range: this field takes an integer -9223372036854775808..9223372036854775807"},
		{in: "sub:\n  count: 9223372036854775808\n", fails: true, message: "is out of range"},
		{in: "sub:\n  count: .inf\n", fails: true, message: "is out of range"},
		{in: "sub:\n  count: .nan\n", fails: true, message: "is not a whole number"},
		{in: "sub:\n  count: inf\n", fails: true, message: "inf is out of range"},
		{in: "sub:\n  count: 1e3\n"},
		// A number in quotes is a string; the decoder read it as the number.
		{in: "sub:\n  count: \"64\"\n", fails: true, message: `[2:10] "64" is a string: this field takes a number; write it without quotes`},
		{in: "sub:\n  count: '64'\n", fails: true, message: `"64" is a string`},
		{in: "sub:\n  count: !!str 64\n", fails: true, message: "64 is a string"},
		{in: "sub:\n  rates: {a: \"1.5\"}\n", fails: true, message: `"1.5" is a string`},
		{in: "name: \"64\"\n"},
		// Durations: a number with a unit; the decoder's own errors had
		// no position, or named Go types.
		{in: "sub:\n  wait: 90s\n"},
		{in: "sub:\n  wait: \"1h30m\"\n"},
		{in: "sub:\n  wait: ~\n"},
		{in: "sub:\n  wait: forever\n", fails: true, message: `[2:9] "forever" is not a duration: write a number with a unit, such as 90s, 2m or 1h30m`},
		{in: "sub:\n  wait: 5\n", fails: true, message: "[2:9] 5 is not a duration: give it a unit, as in 5s or 5m"},
		{in: "sub:\n  wait: [1]\n", fails: true, message: "is not a duration"},
		// A byte order mark, which some editors write, is not part of
		// the first key.
		{in: "\ufeffname: a\n"},
		// One document per file: the decoder dropped the others.
		{in: "name: a\n---\nname: b\n", fails: true, message: "[2:1] a second YAML document starts here, and a file holds one"},
		{in: "---\nname: a\n...\n"},
		{in: "name: a\n---\n"},
		// Merge keys merge fields, which are checked like the others.
		{in: "<<: {name: a}\nsteps: [x]\n"},
		{in: "<<: {nam: a}\n", fails: true, message: `unknown field "nam"`},
	} {
		var d doc
		err := Decode([]byte(c.in), &d)
		switch {
		case !c.fails && err != nil:
			t.Errorf("Decode(%q): %v", c.in, err)
		case c.fails && err == nil:
			t.Errorf("Decode(%q) succeeded, want an error", c.in)
		case c.fails && !strings.Contains(err.Error(), c.message):
			t.Errorf("Decode(%q) = %v, want an error containing %q", c.in, err, c.message)
		}
	}
}

// TestDecodeRecoversPanic checks that a panic inside the decoder becomes an
// error naming what went wrong, independently of which documents make
// today's decoder panic: a target whose UnmarshalYAML panics stands in.
func TestDecodeRecoversPanic(t *testing.T) {
	var v panicky
	err := Decode([]byte("x: 1\n"), &v)
	if err == nil || !strings.Contains(err.Error(), "YAML decoder failed") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Decode = %v, want the recovered panic as an error", err)
	}
}

type panicky struct{}

func (*panicky) UnmarshalYAML([]byte) error { panic("boom") }

// TestDecodeUnknownFieldIsTheFirst: a mapping with several unknown fields
// names the first in the file, on every run. The decoder names one in Go's
// map order, so the message for the same file changed from run to run.
func TestDecodeUnknownFieldIsTheFirst(t *testing.T) {
	in := "name: a\nzeta: 1\nalpha: 2\nmid: 3\nomega: 4\nsub:\n  nope: 1\n"
	for range 50 {
		var d doc
		err := Decode([]byte(in), &d)
		if err == nil || !strings.HasPrefix(err.Error(), `[2:1] unknown field "zeta"`) {
			t.Fatalf("Decode = %v, want the first unknown field, zeta at 2:1", err)
		}
	}
}

// TestDecodeByteOrderMark: a file that starts with a byte order mark
// decodes as without it, and TrimBOM drops only a leading one.
func TestDecodeByteOrderMark(t *testing.T) {
	var d doc
	if err := Decode([]byte("\ufeffname: a\nsteps: [x]\n"), &d); err != nil || d.Name != "a" {
		t.Errorf("Decode with a byte order mark = %+v, %v", d, err)
	}
	if got := string(TrimBOM([]byte("\ufeffa\ufeff"))); got != "a\ufeff" {
		t.Errorf("TrimBOM = %q", got)
	}
}
