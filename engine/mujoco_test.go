package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/env"
)

// TestMuJoCoPresets: the MuJoCo presets are listed exactly where the build
// has MuJoCo, and refused with the way to get it elsewhere; the
// walkthroughs marked mujoco run Hopper-v4 there and the Hopper workload
// elsewhere.
func TestMuJoCoPresets(t *testing.T) {
	set, err := LoadPresets()
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(set.Presets))
	for i, p := range set.Presets {
		names[i] = p.Name
	}
	hopper := "Hopper-workload"
	if env.MuJoCo {
		hopper = "Hopper-v4"
	}
	for _, name := range []string{"hopper-ppo", "hopper-td3", "humanoid-ppo"} {
		_, err := set.Find(name)
		if listed := slices.Contains(names, name); listed != env.MuJoCo {
			t.Errorf("%s listed: %v, with MuJoCo: %v", name, listed, env.MuJoCo)
		}
		if env.MuJoCo != (err == nil) || (err != nil && (!errors.Is(err, env.ErrNoMuJoCo) || !strings.Contains(err.Error(), name))) {
			t.Errorf("Find(%s) with MuJoCo %v: %v", name, env.MuJoCo, err)
		}
	}
	for _, name := range []string{"where-rmm", "table5"} {
		p, err := set.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		envs := map[string]bool{}
		for _, c := range p.StepConfigs() {
			envs[c.Env] = true
		}
		if !envs[hopper] || envs["Hopper-workload"] && hopper != "Hopper-workload" {
			t.Errorf("%s runs %v, want %s for Hopper", name, envs, hopper)
		}
	}
	if name, ok := TableIIIEnv(hopper); !ok || name != "Hopper" {
		t.Errorf("TableIIIEnv(%s) = %q, %v", hopper, name, ok)
	}
	var c Config
	err = c.Set("env", "Hopper-v4")
	if env.MuJoCo != (err == nil) || (err != nil && !strings.Contains(err.Error(), "-tags mujoco")) {
		t.Errorf("env=Hopper-v4 with MuJoCo %v: %v", env.MuJoCo, err)
	}
}
