package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/presets"
)

func TestEmbeddedPresetsAreValid(t *testing.T) {
	all, err := Presets()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 5 {
		t.Fatalf("%d presets", len(all))
	}
	names := map[string]bool{}
	for _, p := range all {
		names[p.Name] = true
		if p.Source != "embedded" || p.Run.Name != p.Name {
			t.Errorf("preset %+v", p)
		}
	}
	for _, want := range []string{DefaultPreset, "cartpole-ppo", "hopper-ddpg-16384", "pendulum-td3", "pong-dqn"} {
		if !names[want] {
			t.Errorf("preset %s missing", want)
		}
	}
}

func TestUserPresets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "mine.yaml"), []byte("name: mine\nsummary: my run\nrun:\n  env: Acrobot-v1\n  algo: ppo\n"), 0o644)
	p, err := findPreset("mine", dir)
	if err != nil || p.Run.Env != "Acrobot-v1" || p.Source != filepath.Join(dir, "mine.yaml") {
		t.Fatalf("findPreset(mine) = %+v, %v", p, err)
	}
	if _, err := findPreset("nope", dir); err == nil || !strings.Contains(err.Error(), "use one of") || !strings.Contains(err.Error(), "mine") {
		t.Errorf("findPreset(nope) = %v", err)
	}
	bad := []struct{ src, want string }{
		{"name: x\nsummary: s\nrun:\n  env: CartPole-v1\n  batch: 0\n  fanout: 9000\n", "bad.yaml:6:11: fanout 9000 is not allowed"},
		{"name: x\nsummary: s\nrun:\n  envv: CartPole-v1\n", `bad.yaml:4:3: unknown field "envv"`},
		{"name: two words\nsummary: s\n", `bad.yaml:1:7: name "two words" is not allowed`},
		{"name: x\nrun:\n  env: CartPole-v1\n", "preset x has no summary"},
	}
	for _, b := range bad {
		os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(b.src), 0o644)
		if _, err := loadAll(dir); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Presets with %q = %v, want %q", b.src, err, b.want)
		}
	}
	if _, err := loadAll(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing presets directory is not an error")
	}
}

func TestWalkthroughSteps(t *testing.T) {
	src := `name: tour
kind: walkthrough
summary: a tour
run:
  env: CartPole-v1
  algo: dqn
  batch: 64
steps:
  - title: binary
    text: a binary tree
    panes: [tree]
    set:
      fanout: 2
  - title: wide
    text: sixteen children
    set:
      fanout: 16
      mapping: C-C-C
  - title: bigger batch
    text: the same tree, larger batches
    panes: [pipeline, mapping]
    set:
      batch: 256
`
	p, err := ParsePreset("tour.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindWalkthrough || len(p.Steps) != 3 {
		t.Fatalf("parsed %+v", p)
	}
	for i, want := range []struct {
		fanout, batch int
		mapping       string
	}{{0, 64, "auto"}, {2, 64, "auto"}, {16, 64, "C-C-C"}, {16, 256, "C-C-C"}} {
		c := p.StepConfig(i - 1)
		if c.Fanout != want.fanout || c.Batch != want.batch || c.Mapping.String() != want.mapping || c.Env != "CartPole-v1" {
			t.Errorf("StepConfig(%d) = %+v, want fanout %d batch %d mapping %q", i-1, c, want.fanout, want.batch, want.mapping)
		}
	}
}

func TestPresetSchemaErrors(t *testing.T) {
	head := "name: x\nsummary: s\nrun:\n  env: CartPole-v1\n"
	step := "steps:\n  - title: t\n    text: look\n"
	for _, c := range []struct{ src, want string }{
		{head + "kind: tour\n", `x.yaml:5:7: kind "tour" is not allowed: use run, walkthrough or experiment`},
		{head + step, "x.yaml:6:3: a preset of kind run has no steps"},
		{head + "kind: walkthrough\n", "walkthrough x has no steps"},
		{head + "kind: experiment\n" + step, "experiment x names no report"},
		{head + "kind: walkthrough\nreport: table5\n" + step, "x.yaml:6:9: only an experiment writes a report"},
		{head + "kind: walkthrough\nsteps:\n  - text: look\n", "step 1 has no title"},
		{head + "kind: walkthrough\nsteps:\n  - title: t\n", "step 1 (t) has no text"},
		{head + "kind: walkthrough\n" + step + "    panes: [tree, graph]\n", `x.yaml:9:19: pane "graph" is not known: use tree, pipeline, charts, mapping, config`},
		{head + "kind: walkthrough\n" + step + "  - title: u\n    text: more\n    set:\n      batch: 70000\n",
			"x.yaml:12:14: step 2 (u): batch 70000 is not allowed: learner batch size B must be 1..65536"},
		{head + "kind: walkthrough\n" + step + "    set:\n      algo: ddpg\n", "step 1 (t): algo \"ddpg\" is not allowed"},
		// The YAML decoder panicked on this (an unknown tag on a list).
		{head + "kind: walkthrough\nsteps: !x 0\n", "x.yaml:"},
	} {
		_, err := ParsePreset("x.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParsePreset(%q) = %v, want %q", c.src, err, c.want)
		}
	}
}

func TestConfigWith(t *testing.T) {
	base := Config{Env: "CartPole-v1", Algo: "dqn", Batch: 64, Fanout: 2, Seed: 3}
	got := base.With(Config{Fanout: 16, Mapping: MustMapping("G-F-G"), Duration: time.Second})
	want := Config{Env: "CartPole-v1", Algo: "dqn", Batch: 64, Fanout: 16, Seed: 3, Mapping: MustMapping("G-F-G"), Duration: time.Second}
	if got != want {
		t.Errorf("With = %+v, want %+v", got, want)
	}
	if base.With(Config{}) != base {
		t.Error("an empty patch changed the configuration")
	}
}

// findPreset is LoadPresets(dirs...), then Find.
func findPreset(name string, dirs ...string) (Preset, error) {
	set, err := LoadPresets(dirs...)
	if err != nil {
		return Preset{}, err
	}
	return set.Find(name)
}

// loadAll is LoadPresets(dirs...)'s presets with the errors of the files
// it skipped, joined one a line (skippedError).
func loadAll(dirs ...string) ([]Preset, error) {
	set, err := LoadPresets(dirs...)
	if err != nil {
		return nil, err
	}
	return set.Presets, skippedError(set)
}

// skippedError joins the errors of the files set skipped, or nil.
func skippedError(set PresetSet) error {
	errs := make([]error, len(set.Skipped))
	for i, pe := range set.Skipped {
		errs[i] = pe
	}
	return errors.Join(errs...)
}

// withoutFPGA returns the table-iv platform without its FPGA: a CPU and a
// GPU joined by the link.
func withoutFPGA(t testing.TB) []byte {
	t.Helper()
	data, err := presets.Device("table-iv")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, "\nfpga:"), strings.Index(s, "\nlink:")
	if i < 0 || j < i {
		t.Fatal("table-iv.yaml has no fpga section before its link")
	}
	return []byte(s[:i] + s[j:])
}

// TestCheckConfigPlatform: the platform must hold what the run's algorithm
// runs on. An off-policy run is placed by the mapping exploration (a CPU,
// a GPU, an FPGA and the link); PPO needs a CPU, so it runs without an
// FPGA, where DQN is refused, and neither runs on an FPGA alone.
func TestCheckConfigPlatform(t *testing.T) {
	noFPGA := filepath.Join(t.TempDir(), "no-fpga.yaml")
	if err := os.WriteFile(noFPGA, withoutFPGA(t), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		c    Config
		want string // "" when accepted
	}{
		{Config{Devices: "table-iv"}, ""},
		{Config{Algo: PPO, Devices: "table-iv"}, ""},
		{Config{Algo: PPO, Devices: noFPGA}, ""},
		{Config{Algo: DQN, Devices: noFPGA}, `a dqn run is placed by the mapping exploration, and platform "table-iv" has no fpga`},
		{Config{Algo: TD3, Devices: "heppo-zcu106"}, `a td3 run is placed by the mapping exploration, and platform "heppo-zcu106" has no cpu, gpu, link`},
		{Config{Algo: PPO, Devices: "heppo-zcu106"}, `devices "heppo-zcu106" is not allowed: platform "heppo-zcu106" has no cpu: PPO steps its environments on the CPU's cores`},
	} {
		err := CheckConfigPlatform(tt.c)
		var fe *FieldError
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s on %s: %v", tt.c.Algo, tt.c.Devices, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &fe) || fe.Field != "devices"):
			t.Errorf("%s on %s: %v, want a devices error saying %q", tt.c.Algo, tt.c.Devices, err, tt.want)
		}
	}
}
