package engine

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/sim"
)

// hopperDDPG describes 000 Table III's Hopper DDPG learner (3-layer MLPs of
// 256) through real networks, as a run does.
func hopperDDPG(t *testing.T, batch int) hw.Workload {
	t.Helper()
	actor, err := nn.NewMLP([]int{11, 256, 256, 3}, nn.ReLU, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	critic, err := nn.NewMLP([]int{14, 256, 256, 1}, nn.ReLU, nn.Identity)
	if err != nil {
		t.Fatal(err)
	}
	w := hw.Workload{Name: "Hopper/DDPG", Batch: batch, Capacity: 1_000_000, Fanout: 2, Actors: 16,
		DataPointBytes: hw.TransitionBytes(11, 3)}
	hw.ActorCriticStep(HWLayers(actor.Shape()), HWLayers(critic.Shape()), false).Apply(&w)
	return w
}

func TestHWNetMatchesTheDSEsDescription(t *testing.T) {
	w := hopperDDPG(t, 256)
	env, err := dse.FindEnv("Hopper")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := dse.Workload(env, "DDPG", 256)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.TrainMACs(), ref.TrainMACs(); got != want {
		t.Errorf("training MACs per sample from nn shapes = %d, the DSE's Table III description gives %d", got, want)
	}
}

func TestPlace(t *testing.T) {
	p, err := LoadPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := sim.Place(p, hopperDDPG(t, 16384))
	if err != nil {
		t.Fatal(err)
	}
	clock, err := sim.NewOffPolicy(pl, 16384, 1, 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := remapOffPolicy(clock, AutoMapping); err != nil {
		t.Fatal(err)
	}
	// 000 Table V: Hopper at B = 16384 maps to G-F-G.
	if got := pl.Mapping.String(); got != "G-F-G" {
		t.Errorf("auto mapping = %s, want G-F-G", got)
	}
	v := placementView(pl, AutoMapping)
	if v.Chosen != "G-F-G" || v.PredictedGPS != pl.Eval.GPS || len(v.Table) != 3 || len(v.All) != 9 || v.All[0].GPS < v.All[8].GPS {
		t.Errorf("view %+v", v)
	}
	if err := remapOffPolicy(clock, MustMapping("C-C-C")); err != nil || pl.Mapping.String() != "C-C-C" || pl.Eval.GPS >= v.PredictedGPS {
		t.Errorf("manual C-C-C: %v, %s at %v GPS", err, pl.Mapping, pl.Eval.GPS)
	}
	if v := placementView(pl, MustMapping("C-C-C")); v.Note != "mapping set by hand" {
		t.Errorf("a mapping set by hand is noted %q", v.Note)
	}
	var fe *FieldError
	if _, err := ParseMapping("X-Y-Z"); !errors.As(err, &fe) || fe.Field != "mapping" {
		t.Errorf("ParseMapping(X-Y-Z) = %v", err)
	}
	if _, err := LoadPlatform("/nonexistent/devices.yaml"); err == nil || !strings.Contains(err.Error(), "table-iv") {
		t.Errorf("LoadPlatform(missing) = %v, want an error listing the embedded presets", err)
	}
}
