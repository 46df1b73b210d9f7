package yamldoc

import (
	"strings"
	"testing"
)

type doc struct {
	Name  string   `yaml:"name"`
	Steps []string `yaml:"steps"`
	Sub   struct {
		Rates map[string]float64 `yaml:"rates"`
		Count int                `yaml:"count"`
		Sizes []int              `yaml:"sizes"`
		Caps  map[string]*uint   `yaml:"caps"`
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
