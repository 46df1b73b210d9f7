package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	p, err := FindPreset("mine", dir)
	if err != nil || p.Run.Env != "Acrobot-v1" || p.Source != filepath.Join(dir, "mine.yaml") {
		t.Fatalf("FindPreset(mine) = %+v, %v", p, err)
	}
	if _, err := FindPreset("nope", dir); err == nil || !strings.Contains(err.Error(), "use one of") || !strings.Contains(err.Error(), "mine") {
		t.Errorf("FindPreset(nope) = %v", err)
	}
	bad := []struct{ src, want string }{
		{"name: x\nsummary: s\nrun:\n  env: CartPole-v1\n  batch: 0\n  fanout: 9000\n", "bad.yaml:6:11: fanout 9000 is not allowed"},
		{"name: x\nsummary: s\nrun:\n  envv: CartPole-v1\n", `bad.yaml:4:3: unknown field "envv"`},
		{"name: two words\nsummary: s\n", `bad.yaml:1:7: name "two words" is not allowed`},
		{"name: x\nrun:\n  env: CartPole-v1\n", "preset x has no summary"},
	}
	for _, b := range bad {
		os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte(b.src), 0o644)
		if _, err := Presets(dir); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Presets with %q = %v, want %q", b.src, err, b.want)
		}
	}
	if _, err := Presets(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing presets directory is not an error")
	}
}
