package engine

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/internal/yamldoc"
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
// configuration passes Validate, and writing each of its fields as --set
// does (Get) and reading them back (Set) gives the same run: the YAML
// decoder and the field table agree on every value the decoder lets in.
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
		var back, zero Config
		for _, name := range FieldNames() {
			v := c.Get(name)
			if v == zero.Get(name) {
				continue // the default, which Set does not take for every field
			}
			if err := back.Set(name, v); err != nil {
				t.Fatalf("field %s = %q, as Get writes it, does not read back: %v", name, v, err)
			}
		}
		if got, want := back.Defaults(), c.Defaults(); got != want {
			t.Fatalf("read back through Get and Set:\n%+v\nwant\n%+v", got, want)
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

// FuzzPresetsDir writes three fuzzed files and a generated walkthrough of
// up to 512 steps into a presets directory, seeded with valid presets, a
// device platform, broken YAML, escape sequences and missing platforms.
// Whatever the files, LoadPresets returns every embedded preset, and it
// skips exactly the files that ParsePreset or CheckPresetPlatforms refuse
// (or that are above the size limit), each reported in one printable line
// that starts with the file.
func FuzzPresetsDir(f *testing.F) {
	// No platforms of yours and no host platform: the same answers on
	// every machine.
	testenv.UserConfig(f)
	embedded, err := LoadPresets()
	if err != nil {
		f.Fatal(err)
	}
	// The head of a device platform and a small walkthrough: the fuzzer
	// shrinks each new input it keeps, byte by byte, and with the whole
	// files as seeds that took the minute of a run.
	device, err := presets.Device("table-iv")
	if err != nil {
		f.Fatal(err)
	}
	device, _, _ = bytes.Cut(device, []byte("\n  derived_rate"))
	tour := []byte("name: tour\nkind: walkthrough\nsummary: s\nrun: {env: CartPole-v1, algo: dqn}\nsteps:\n" +
		"  - title: one\n    text: look\n    panes: [tree]\n    set: {fanout: 2, devices: table-iv}\n" +
		"  - title: two\n    text: more\n    set: {mapping: C-C-C}\n")
	f.Add(tour, device, []byte("name: [x\n"), uint16(10))
	f.Add([]byte("name: \"e\\e]0;t\\a\"\nsummary: s\n"), []byte("name: x\nsummary: \"\\e[2J\"\n"),
		[]byte("name: w\nkind: walkthrough\nsummary: s\nsteps:\n  - {title: t, text: t, set: {devices: /nonexistent.yaml}}\n"), uint16(512))
	f.Add([]byte("name: cartpole-ppo\nsummary: s\nrun: {envv: 1}\n"), []byte("name: s\nsummary: s\nkind: walkthrough\nsteps: !x 0\n"),
		[]byte("\ufeffname: b\nsummary: s\n---\nx: 1\n"), uint16(0))
	f.Add([]byte("name: long\nsummary: mine\n"), []byte("name: h\nsummary: s\nrun: {devices: host, seed: 18446744073709551616}\n"), []byte{}, uint16(511))
	f.Fuzz(func(t *testing.T, a, b, c []byte, steps uint16) {
		if len(a)+len(b)+len(c) > 16<<10 {
			return // the size limit has its own tests; large inputs only slow the fuzzer
		}
		dir := t.TempDir()
		n := int(steps % 513)
		files := map[string][]byte{"a.yaml": a, "b.yaml": b, "c.yaml": c, "long.yaml": walkthroughOf(n)}
		writeFiles(t, dir, files)
		set, err := LoadPresets(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range embedded.Presets {
			if _, err := set.Find(e.Name); err != nil && !slices.ContainsFunc(set.Skipped, func(pe *PresetFileError) bool { return pe.Name == e.Name }) {
				t.Fatalf("embedded preset %s is gone: %v", e.Name, err)
			}
			if !slices.ContainsFunc(set.Presets, func(p Preset) bool { return p.Name == e.Name }) {
				t.Fatalf("embedded preset %s is not listed", e.Name)
			}
		}
		bad := 0
		for name, data := range files {
			path := filepath.Join(dir, name)
			refused := len(data) > yamldoc.MaxFileSize
			switch {
			case name == "long.yaml":
				// Generated: valid unless it has no steps. Parsing it
				// again would take most of the time of an execution.
				refused = n == 0
			case !refused:
				p, err := ParsePreset(path, data)
				if err == nil {
					err = CheckPresetPlatforms(path, data, p)
				}
				refused = err != nil
			}
			i := slices.IndexFunc(set.Skipped, func(pe *PresetFileError) bool { return pe.File == path })
			switch {
			case refused && i < 0:
				t.Fatalf("%s is not a valid preset and was not reported", name)
			case !refused && i >= 0:
				t.Fatalf("%s is a valid preset and was skipped: %v", name, set.Skipped[i])
			case refused:
				bad++
				msg := set.Skipped[i].Error()
				if _, found := yamldoc.Unprintable(msg, false); found || !strings.HasPrefix(msg, path) {
					t.Fatalf("the report of %s is not one printable line starting with the file: %q", name, msg)
				}
			}
		}
		if len(set.Skipped) != bad {
			t.Fatalf("%d files skipped, %d bad", len(set.Skipped), bad)
		}
	})
}
