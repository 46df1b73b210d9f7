package env

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSpecOf: SpecOf returns what a built environment reports, once per id
// (the same *Spec after the first call), and Make's error for an unknown
// id.
func TestSpecOf(t *testing.T) {
	for _, id := range IDs() {
		s, err := SpecOf(id)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Make(id, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		want := e.Spec()
		if s.ID != want.ID || s.Obs.Dim() != want.Obs.Dim() || s.Act.Dim() != want.Act.Dim() || s.Act.Discrete() != want.Act.Discrete() || s.Workload != want.Workload || s.StepCost != want.StepCost {
			t.Errorf("%s: SpecOf %+v, the environment's %+v", id, s, want)
		}
		if again, _ := SpecOf(id); again != s {
			t.Errorf("%s: a second SpecOf built the spec again", id)
		}
	}
	if _, err := SpecOf("Walker"); err == nil || !strings.Contains(err.Error(), "unknown environment") {
		t.Errorf("SpecOf(Walker) = %v", err)
	}
}
