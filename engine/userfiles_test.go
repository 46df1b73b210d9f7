package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/internal/yamldoc"
	"github.com/rlxdev/rlx/presets"
)

// The tests of this file are about the files a user gives rlx: run
// configurations, presets directories and the device platforms they name.

// writeFiles writes the files of content, by name, into dir.
func writeFiles(t testing.TB, dir string, content map[string][]byte) {
	t.Helper()
	for name, data := range content {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// walkthroughOf returns a walkthrough preset of n steps, each changing
// the batch, as a program writing a long tour would: about 45 bytes a
// step.
func walkthroughOf(n int) []byte {
	var b strings.Builder
	b.WriteString("name: long\nsummary: s\nkind: walkthrough\nrun: {steps: 1000}\nsteps:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {title: t%d, text: t, set: {batch: %d}}\n", i, 1+i%100)
	}
	return []byte(b.String())
}

// TestParsePresetIsLinear: validating a walkthrough applies each step once
// to the configuration of the step before. It reapplied steps 0..i for
// step i, O(N^2): a preset of 20,000 steps took a minute to load. Each
// application allocates, so allocations per step that grow with the
// number of steps mean the quadratic loop is back; unlike a timing, the
// count does not depend on the machine.
func TestParsePresetIsLinear(t *testing.T) {
	perStep := func(n int) float64 {
		data := walkthroughOf(n)
		allocs := testing.AllocsPerRun(1, func() {
			if _, err := ParsePreset("long.yaml", data); err != nil {
				t.Fatal(err)
			}
		})
		return allocs / float64(n)
	}
	// Linear: about 515 allocations a step at either size. Quadratic: one
	// more per step for every step before it, 715 at 250 steps and 2,465
	// at 2,000. The 10% allow for the longer numbers of later steps.
	small, large := perStep(250), perStep(2000)
	if large > 1.1*small {
		t.Errorf("ParsePreset allocates %.0f a step for 2,000 steps, %.0f for 250: its cost grows faster than the number of steps", large, small)
	}
}

// TestLongWalkthroughLoads: the walkthrough of 20,000 steps of the audit
// (0.9 MB, under yamldoc.MaxFileSize) loads from a presets directory,
// every step's configuration in place.
func TestLongWalkthroughLoads(t *testing.T) {
	userDevices(t)
	dir := t.TempDir()
	data := walkthroughOf(20_000)
	if len(data) > yamldoc.MaxFileSize {
		t.Fatalf("the walkthrough is %d bytes, above the file limit %d", len(data), yamldoc.MaxFileSize)
	}
	writeFiles(t, dir, map[string][]byte{"long.yaml": data})
	p, err := findPreset("long", dir)
	if err != nil {
		t.Fatal(err)
	}
	cfgs := p.StepConfigs()
	if len(p.Steps) != 20_000 || len(cfgs) != 20_001 || cfgs[20_000].Batch != 1+19_999%100 {
		t.Errorf("%d steps, %d configurations, the last with batch %d", len(p.Steps), len(cfgs), cfgs[len(cfgs)-1].Batch)
	}
}

// TestStepConfigs: StepConfigs()[i+1] is StepConfig(i), for each step.
func TestStepConfigs(t *testing.T) {
	p, err := findPreset("why-kary")
	if err != nil {
		t.Fatal(err)
	}
	cfgs := p.StepConfigs()
	if len(cfgs) != len(p.Steps)+1 {
		t.Fatalf("%d configurations for %d steps", len(cfgs), len(p.Steps))
	}
	for i := -1; i < len(p.Steps); i++ {
		if cfgs[i+1] != p.StepConfig(i) {
			t.Errorf("StepConfigs()[%d] = %+v, StepConfig(%d) = %+v", i+1, cfgs[i+1], i, p.StepConfig(i))
		}
	}
}

// TestUserFileSizeLimit: a run configuration, a device platform and a
// preset of more than yamldoc.MaxFileSize bytes are refused with their
// size and the limit, before they are decoded (a 60 MB preset took 1.9 GB
// to decode).
func TestUserFileSizeLimit(t *testing.T) {
	userDevices(t)
	dir, presetsDir := t.TempDir(), t.TempDir()
	big := append([]byte("env: CartPole-v1\nname: big\nsummary: s\n# "), bytes.Repeat([]byte("x"), 2<<20)...)
	bigFile := filepath.Join(dir, "big.yaml")
	writeFiles(t, dir, map[string][]byte{"big.yaml": big})
	writeFiles(t, presetsDir, map[string][]byte{"big.yaml": big})
	wantSize := fmt.Sprintf("is %d bytes (2.0 MiB), more than the 1048576 bytes (1 MiB) a YAML file may hold", len(big))
	if _, err := LoadConfig(bigFile); err == nil || !strings.Contains(err.Error(), bigFile+" "+wantSize) {
		t.Errorf("LoadConfig(a 2 MiB file) = %v, want %q", err, wantSize)
	}
	if _, err := LoadPlatform(bigFile); err == nil || !strings.Contains(err.Error(), wantSize) {
		t.Errorf("LoadPlatform(a 2 MiB file) = %v, want %q", err, wantSize)
	}
	all, err := loadAll(presetsDir)
	if err == nil || !strings.Contains(err.Error(), wantSize) || !slices.ContainsFunc(all, isDefault) {
		t.Errorf("Presets(a directory with a 2 MiB file) = %d presets, %v; want the embedded ones and %q", len(all), err, wantSize)
	}
}

func isDefault(p Preset) bool { return p.Name == DefaultPreset }

// TestPresetsDirectoryBadFiles: a file in a presets directory that is not
// a valid preset (a device platform saved there, as guide.md suggests
// keeping them near; broken YAML; a bad value) is reported and skipped. It
// made every command fail, even with an embedded preset.
func TestPresetsDirectoryBadFiles(t *testing.T) {
	userDevices(t)
	dir := t.TempDir()
	device, err := presets.Device("table-iv")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string][]byte{
		"my-devices.yaml": device,
		"broken.yaml":     []byte("name: [broken\n"),
		"mine.yaml":       []byte("name: mine\nsummary: my run\nrun:\n  env: Acrobot-v1\n  algo: ppo\n"),
		"wanted.yaml":     []byte("name: wanted\nsummary: s\nrun: {batch: 70000}\n"),
		"nameless.yaml":   []byte("summary: s\n"),
	})
	want := []string{
		dir + `/broken.yaml:1:7:`,
		// The first unknown field in the file, on every run: the decoder
		// named one in Go's map order ("doc", "cpu", "gpu" or "link").
		dir + `/my-devices.yaml:5:1: unknown field "doc": use one of name, kind, summary, description, run, steps, report, mujoco`,
		dir + `/nameless.yaml: name "" is not allowed`,
		dir + `/wanted.yaml:3:14: batch 70000 is not allowed`,
	}
	for range 10 {
		all, err := loadAll(dir)
		if !slices.ContainsFunc(all, isDefault) || !slices.ContainsFunc(all, func(p Preset) bool { return p.Name == "mine" }) {
			t.Fatalf("Presets = %d presets, %v; want the embedded ones and mine", len(all), err)
		}
		var lines []string
		if err != nil {
			lines = strings.Split(err.Error(), "\n")
		}
		if len(lines) != len(want) {
			t.Fatalf("Presets reported %d files, want %d:\n%v", len(lines), len(want), err)
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Fatalf("skipped file %d: %s\nwant it to start %s", i+1, lines[i], w)
			}
		}
	}
	// The presets of other files and the embedded ones run; a preset
	// whose file is bad is that file's error.
	for _, name := range []string{DefaultPreset, "mine"} {
		if _, err := findPreset(name, dir); err != nil {
			t.Errorf("findPreset(%s) = %v", name, err)
		}
	}
	if _, err := findPreset("wanted", dir); err == nil || !strings.HasPrefix(err.Error(), want[3]) {
		t.Errorf("findPreset(wanted) = %v, want the file's error %s", err, want[3])
	}
	if _, err := findPreset("nameless", dir); err == nil || !strings.HasPrefix(err.Error(), want[2]) {
		t.Errorf("findPreset(nameless) = %v, want the file's error %s", err, want[2])
	}
	// A bad file meant to replace an embedded preset is not silently
	// passed over for the embedded one.
	writeFiles(t, dir, map[string][]byte{"ppo.yaml": []byte("name: cartpole-ppo\nsummary: s\nrun: {envv: 1}\n")})
	if _, err := findPreset("cartpole-ppo", dir); err == nil || !strings.Contains(err.Error(), `ppo.yaml:3:7: unknown field "envv"`) {
		t.Errorf("findPreset(cartpole-ppo) with a bad replacement = %v", err)
	}
	// ... unless a later directory replaces it again.
	later := t.TempDir()
	writeFiles(t, later, map[string][]byte{"ppo.yaml": []byte("name: cartpole-ppo\nsummary: s\nrun: {algo: ppo}\n")})
	if p, err := findPreset("cartpole-ppo", dir, later); err != nil || p.Source != filepath.Join(later, "ppo.yaml") {
		t.Errorf("findPreset(cartpole-ppo) replaced again = %+v, %v", p.Source, err)
	}
}

// TestPresetsDirectoryMustBeADirectory: a presets directory that is a
// file is refused like a missing one; it was ignored.
func TestPresetsDirectoryMustBeADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "passwd")
	writeFiles(t, filepath.Dir(file), map[string][]byte{"passwd": []byte("root:x:0:0::/root:/bin/sh\n")})
	if _, err := loadAll(file); err == nil || err.Error() != "presets directory "+file+" is not a directory: give a directory of preset YAML files" {
		t.Errorf("Presets(a file) = %v", err)
	}
	if _, err := loadAll(""); err == nil || !strings.Contains(err.Error(), "empty name") {
		t.Errorf("Presets(\"\") = %v", err)
	}
}

// TestPresetDevicesCheckedWhenLoaded: a step's device platform is loaded
// with the preset, not when the step starts: a walkthrough whose step 2
// names a missing devices file was listed, and headless, step 1 ran its
// whole budget before step 2 failed.
func TestPresetDevicesCheckedWhenLoaded(t *testing.T) {
	userDevices(t)
	dir := t.TempDir()
	brokenDevices := filepath.Join(t.TempDir(), "broken-devices.yaml")
	noFPGA := filepath.Join(filepath.Dir(brokenDevices), "no-fpga.yaml")
	writeFiles(t, filepath.Dir(noFPGA), map[string][]byte{"no-fpga.yaml": withoutFPGA(t)})
	writeFiles(t, filepath.Dir(brokenDevices), map[string][]byte{"broken-devices.yaml": []byte("name: x\ncpu: {cores: 0}\n")})
	head := "kind: walkthrough\nsummary: s\nrun:\n  env: CartPole-v1\nsteps:\n  - title: one\n    text: first\n  - title: two\n    text: second\n    set:\n      devices: "
	writeFiles(t, dir, map[string][]byte{
		"wmd.yaml":    []byte("name: wmd\n" + head + "/nonexistent/dev.yaml\n"),
		"broken.yaml": []byte("name: broken\n" + head + brokenDevices + "\n"),
		"run.yaml":    []byte("name: run-missing\nsummary: s\nrun:\n  devices: nope.yaml\n"),
		"host.yaml":   []byte("name: on-host\n" + head + "host\n"),
		"named.yaml":  []byte("name: named\n" + head + "table-iv\n"),
		// A platform that loads but lacks what the run's algorithm runs on.
		"fpga-only.yaml": []byte("name: fpga-only\n" + head + "heppo-zcu106\n"),
		"ppo-gpu.yaml": []byte("name: ppo-gpu\nkind: walkthrough\nsummary: s\nrun:\n  env: CartPole-v1\n  algo: ppo\nsteps:\n" +
			"  - title: one\n    text: first\n  - title: two\n    text: second\n    set:\n      devices: " + noFPGA + "\n"),
	})
	for name, want := range map[string]string{
		"wmd":         dir + `/wmd.yaml:12:16: step 2 (two): devices "/nonexistent/dev.yaml" is not allowed: name a device YAML file or one of heppo-zcu106, table-iv`,
		"broken":      dir + `/broken.yaml:12:16: step 2 (two): devices "` + brokenDevices + `" is not allowed: the platform does not load: ` + brokenDevices + ":",
		"run-missing": dir + `/run.yaml:4:12: devices "nope.yaml" is not allowed`,
		"fpga-only": dir + `/fpga-only.yaml:12:16: step 2 (two): devices "heppo-zcu106" is not allowed: a dqn run is placed by the mapping exploration, ` +
			`and platform "heppo-zcu106" has no cpu, gpu, link: the mapping exploration (000 §VI) needs a cpu, a gpu, an fpga and a link`,
	} {
		_, err := findPreset(name, dir)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("findPreset(%s) = %v\nwant one line starting %s", name, err, want)
		}
	}
	// No host platform yet is fine: the run measures this machine first.
	// PPO needs only a CPU: a platform without an FPGA carries it.
	for _, name := range []string{"on-host", "named", "ppo-gpu"} {
		if _, err := findPreset(name, dir); err != nil {
			t.Errorf("findPreset(%s) = %v", name, err)
		}
	}
	// A run configuration's platform likewise, at its line and column.
	cfg := filepath.Join(dir, "cfg.yml")
	writeFiles(t, dir, map[string][]byte{"cfg.yml": []byte("env: CartPole-v1\ndevices: /nonexistent/dev.yaml\n")})
	if _, err := LoadConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), cfg+`:2:10: devices "/nonexistent/dev.yaml" is not allowed`) {
		t.Errorf("LoadConfig with a missing platform = %v", err)
	}
}

// TestPresetTextsArePrintable: a preset's texts, which `rlx presets` and
// the explorer print, may not carry control characters: an escape
// sequence in a name or summary retitled the window or cleared the
// screen of whoever listed the presets.
func TestPresetTextsArePrintable(t *testing.T) {
	head := "name: x\nsummary: s\nrun:\n  env: CartPole-v1\n"
	walk := "name: x\nsummary: s\nkind: walkthrough\nsteps:\n  - title: t\n    text: look\n"
	for _, c := range []struct{ src, want string }{
		{"name: \"evil\\e]0;pwned\\aRED\"\nsummary: s\n", `x.yaml:1:7: name "evil\x1b]0;pwned\aRED" is not allowed: give the preset a name of printable characters without spaces or slashes`},
		{"name: x\nsummary: \"ok\\e[2J\"\n", `x.yaml:2:10: the summary holds \x1b, which a terminal does not print as written: use one line of printable characters`},
		{"name: x\nsummary: \"two\\nlines\"\n", `x.yaml:2:10: the summary holds \x0a`},
		{"name: x\nsummary: \"bidi \\u202e\"\n", `x.yaml:2:10: the summary holds \u202e`},
		{head + "description: \"a\\nb\\a\"\n", `x.yaml:5:14: the description holds \x07, which a terminal does not print as written: use printable characters and newlines`},
		{head[:len(head)-1] + "\n  name: \"r\\e[31m\"\n", `x.yaml:5:9: the run's name holds \x1b`},
		{walk + "  - title: \"u\\e[2J\"\n    text: t\n", `x.yaml:7:12: step 2's title holds \x1b`},
		{walk + "    expect: \"\\e]8;;http://x\\a\"\n", `x.yaml:7:13: step 1's expectation holds \x1b`},
	} {
		_, err := ParsePreset("x.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParsePreset(%q) = %v\nwant %s", c.src, err, c.want)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\x1b\a\n") {
			t.Errorf("the error carries a control character: %q", err)
		}
	}
	if _, err := ParsePreset("x.yaml", []byte(head+"description: |\n  two\n  lines\n")); err != nil {
		t.Errorf("a description of two lines: %v", err)
	}
	if _, err := ParseConfig("run.yaml", []byte("name: \"a\\eb\"\n")); err == nil || !strings.HasPrefix(err.Error(), `run.yaml:1:7: name "a\x1bb" is not allowed`) {
		t.Errorf("a run name with ESC: %v", err)
	}
	// The decoder's messages quote the file: escaped as well.
	if _, err := ParsePreset("x.yaml", []byte("\"na\\eme\": x\n")); err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("an unknown key with ESC: %q", err)
	}
}

// TestConfigValuesAreNotCoerced: values the decoder changed without a
// word, and errors it gave without a position, in run configurations and
// presets alike. Each is one line at the value's line and column.
func TestConfigValuesAreNotCoerced(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"env: CartPole-v1\nbatch: -0.5\n", "run.yaml:2:8: -0.5 is not a whole number: this field takes an integer"},
		{"env: CartPole-v1\nseed: 3.7\n", "run.yaml:2:7: 3.7 is not a whole number"},
		{"env: CartPole-v1\nseed: 18446744073709551616\n", "run.yaml:2:7: 18446744073709551616 is out of range: this field takes an integer 0..18446744073709551615"},
		{"env: CartPole-v1\nsteps: 9.3e18\n", "run.yaml:2:8: 9.3e18 is out of range"},
		{"env: CartPole-v1\nbatch: \"64\"\n", `run.yaml:2:8: "64" is a string: this field takes a number; write it without quotes`},
		{"env: CartPole-v1\nduration: forever\n", `run.yaml:2:11: "forever" is not a duration: write a number with a unit, such as 90s, 2m or 1h30m`},
		{"env: CartPole-v1\nduration: 5\n", "run.yaml:2:11: 5 is not a duration: give it a unit, as in 5s or 5m"},
		{"env: CartPole-v1\n---\nbatch: 77777\n", "run.yaml:2:1: a second YAML document starts here, and a file holds one"},
		{"env: Pendulum-v1\nalgo: td3\n7: x\n", `run.yaml:3:1: unknown field "7"`},
		{"\ufeffenv: CartPole-v1\nfanout: 1\n", "run.yaml:2:9: fanout 1 is not allowed"},
		{"\ufefffanout: 1\n", "run.yaml:1:9: fanout 1 is not allowed"},
	} {
		_, err := ParseConfig("run.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseConfig(%q) = %v\nwant one line starting %s", c.src, err, c.want)
		}
		// The same value in a preset's run.
		indented := "  " + strings.ReplaceAll(strings.TrimPrefix(c.src, "\ufeff"), "\n", "\n  ")
		if strings.Contains(c.src, "---") || strings.HasPrefix(c.src, "\ufeff") {
			continue
		}
		if _, err := ParsePreset("p.yaml", []byte("name: p\nsummary: s\nrun:\n"+indented)); err == nil {
			t.Errorf("ParsePreset with run %q succeeded", c.src)
		}
	}
	c, err := ParseConfig("run.yaml", []byte("\ufeffenv: Pendulum-v1\nalgo: td3\nbatch: 64\n"))
	if err != nil || c.Batch != 64 || c.Env != "Pendulum-v1" {
		t.Errorf("a file with a byte order mark: %+v, %v", c, err)
	}
	if _, err := ParsePreset("p.yaml", []byte("\ufeffname: p\nsummary: s\n---\nname: q\n")); err == nil || !strings.HasPrefix(err.Error(), "p.yaml:3:1: a second YAML document") {
		t.Errorf("a preset of two documents: %v", err)
	}
}

// TestPresetFileErrorUnwraps: a skipped file's error is a
// *PresetFileError that names the file and unwraps to the cause.
func TestPresetFileErrorUnwraps(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string][]byte{"d.yaml": []byte("name: d\nsummary: s\nrun: {batch: 0.5}\n")})
	set, err := LoadPresets(dir)
	if err != nil || len(set.Skipped) != 1 {
		t.Fatalf("LoadPresets = %+v, %v", set.Skipped, err)
	}
	var pe *PresetFileError
	if !errors.As(skippedError(set), &pe) || pe.File != filepath.Join(dir, "d.yaml") || pe.Name != "d" {
		t.Fatalf("skipped %+v", pe)
	}
	if pe.Err == nil || errors.Unwrap(pe) != pe.Err {
		t.Errorf("%v does not unwrap to its cause %v", pe, pe.Err)
	}
}
