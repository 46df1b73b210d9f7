//go:build !mujoco

package env

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMuJoCoNeedsTheTag: without -tags mujoco, asking for a MuJoCo
// environment is an error that says how to get it and names the stand-in;
// the list of environments does not offer it.
func TestMuJoCoNeedsTheTag(t *testing.T) {
	for _, c := range []struct{ id, workload string }{{"Hopper-v4", "Hopper-workload"}, {"Humanoid-v4", "Humanoid-workload"}} {
		_, err := Make(c.id, rand.New(rand.NewPCG(1, 0)))
		if !errors.Is(err, ErrNoMuJoCo) {
			t.Fatalf("Make(%s): %v, want ErrNoMuJoCo", c.id, err)
		}
		for _, want := range []string{c.id, "libmujoco-dev", "-tags mujoco", c.workload} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Make(%s): %q does not say %q", c.id, err, want)
			}
		}
		if slices.Contains(IDs(), c.id) {
			t.Errorf("IDs() offers %s in a build without MuJoCo", c.id)
		}
		if p := Physical(c.workload); p != c.workload {
			t.Errorf("Physical(%s) = %s without MuJoCo, want the workload itself", c.workload, p)
		}
		if s := StandIn(c.id); s != c.workload {
			t.Errorf("StandIn(%s) = %s, want %s", c.id, s, c.workload)
		}
		if err := MissingMuJoCo(c.id); !errors.Is(err, ErrNoMuJoCo) || !strings.Contains(err.Error(), c.workload) {
			t.Errorf("MissingMuJoCo(%s) = %v, want ErrNoMuJoCo naming %s", c.id, err, c.workload)
		}
	}
	if err := MissingMuJoCo("CartPole-v1"); err != nil {
		t.Errorf("MissingMuJoCo(CartPole-v1) = %v, want nil", err)
	}
}
