package engine

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/hw"
)

func TestParseMapping(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "" for an error
	}{
		{"auto", "auto"}, {"AUTO", "auto"}, {"", "auto"},
		{"G-F-G", "G-F-G"}, {"c-f-c", "C-F-C"},
		{"G-X-G", ""}, {"G-F", ""}, {"GFG", ""}, {"automatic", ""},
	} {
		m, err := ParseMapping(c.in)
		if c.want == "" {
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "mapping" || !strings.Contains(err.Error(), "Learner-RMM-Storage") {
				t.Errorf("ParseMapping(%q) = %v, %v; want a mapping error saying what is accepted", c.in, m, err)
			}
			continue
		}
		if err != nil || m.String() != c.want {
			t.Errorf("ParseMapping(%q) = %v, %v; want %s", c.in, m, err, c.want)
		}
	}
	if m, ok := MustMapping("G-F-G").Fixed(); !ok || m != (hw.Mapping{Learner: hw.GPU, RMM: hw.FPGA, Storage: hw.GPU}) {
		t.Errorf("Fixed() = %v, %v", m, ok)
	}
	if _, ok := AutoMapping.Fixed(); ok || !AutoMapping.Auto() || !(Mapping{}).Auto() {
		t.Error("auto, or the mapping not given, is not auto")
	}
	// A step that says "mapping: auto" switches a fixed mapping back.
	if c := (Config{Mapping: MustMapping("G-G-G")}).With(Config{Mapping: AutoMapping}); !c.Mapping.Auto() {
		t.Errorf("With(auto) kept %v", c.Mapping)
	}
	if c := (Config{Mapping: MustMapping("G-G-G")}).With(Config{}); c.Mapping.String() != "G-G-G" {
		t.Errorf("With(nothing) changed the mapping to %v", c.Mapping)
	}
}

// TestMappingInFiles: YAML and JSON keep today's spellings, "auto" and
// "G-F-G", and a bad mapping in a file is refused at its place.
func TestMappingInFiles(t *testing.T) {
	for _, text := range []string{"auto", "G-G-G"} {
		c, err := ParseConfig("run.yaml", []byte("env: CartPole-v1\nmapping: "+text+"\n"))
		if err != nil || c.Mapping.String() != text {
			t.Errorf("mapping: %s read as %v, %v", text, c.Mapping, err)
		}
		b, err := json.Marshal(c)
		if err != nil || !strings.Contains(string(b), `"mapping":"`+text+`"`) {
			t.Errorf("JSON %s, %v", b, err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil || back.Mapping != c.Mapping {
			t.Errorf("JSON read back as %v, %v", back.Mapping, err)
		}
	}
	_, err := ParseConfig("run.yaml", []byte("env: CartPole-v1\nmapping: G-X-G\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `run.yaml:2:10: mapping "G-X-G" is not allowed`) {
		t.Errorf("mapping: G-X-G gave %v", err)
	}
}
