package engine

import (
	"strings"
	"testing"

	"github.com/rlxdev/rlx/presets"
)

// FuzzParsePreset feeds ParsePreset arbitrary documents, seeded with the
// embedded presets: whatever the input, it returns a preset or an error
// that names the file, and never panics.
func FuzzParsePreset(f *testing.F) {
	for _, name := range presets.RunNames() {
		data, err := presets.Run(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("name: x\nsummary: s\nkind: walkthrough\nsteps: !x 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePreset("f.yaml", data)
		if rejected(t, err) {
			return
		}
		if p.Name == "" {
			t.Fatalf("accepted a preset without a name: %+v", p)
		}
	})
}

// FuzzParseConfig does the same for run configurations: an accepted
// configuration passes Validate.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("name: hopper\nenv: Hopper-workload\nalgo: ddpg\nbatch: 16384\ncapacity: 1000000\nmapping: auto\nduration: 30s\n"))
	f.Add([]byte("env: CartPole-v1\nfanout: 1\n"))
	f.Add([]byte("env: !x 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("f.yaml", data)
		if rejected(t, err) {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted a configuration that does not validate: %v", err)
		}
	})
}

// rejected reports whether the fuzzed document f.yaml was rejected, and
// fails the test if the error does not name the file.
func rejected(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && !strings.HasPrefix(err.Error(), "f.yaml") {
		t.Fatalf("error %q does not name the file", err)
	}
	return err != nil
}
