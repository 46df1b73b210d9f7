package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/core/env"
)

// envSpec returns the spec of environment id, or a FieldError listing the
// known environments.
func envSpec(id string) (*env.Spec, error) {
	s, err := env.SpecOf(id)
	if errors.Is(err, env.ErrNoMuJoCo) {
		return nil, &FieldError{"env", id, "it runs on MuJoCo, and " + env.ErrNoMuJoCo.Error()}
	}
	if err != nil {
		return nil, &FieldError{"env", fmt.Sprintf("%q", id), "use one of " + strings.Join(env.IDs(), ", ")}
	}
	return s, nil
}

// Environments lists the environment ids a run can use.
func Environments() []string { return env.IDs() }

// tableIII maps the id of each environment a run can use that stands in
// for one of 000 Table III's to that environment's name there (dse.Env),
// in the order of dse.Environments. The others (Acrobot-v1, Pendulum-v1,
// Ant-workload, ...) have none.
var tableIII = []struct{ id, name string }{
	{"CartPole-v1", "CartPole"},
	{"Hopper-workload", "Hopper"},
	{"Hopper-v4", "Hopper"}, // the real one, where the build has MuJoCo
	{"Pong-workload", "Pong"},
}

// TableIIIEnv returns the name in 000 Table III of the environment run
// environment id stands in for, and whether it stands in for one: the one
// mapping rlx dse --env and the Table V experiment read.
func TableIIIEnv(id string) (string, bool) {
	for _, e := range tableIII {
		if e.id == id {
			return e.name, true
		}
	}
	return "", false
}
