package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlxdev/rlx/core/env"
)

// envSpec returns the spec of environment id, or a FieldError listing the
// known environments.
func envSpec(id string) (*env.Spec, error) {
	if err := env.MissingMuJoCo(id); err != nil {
		return nil, &FieldError{"env", strconv.Quote(id), err.Error()}
	}
	s, err := env.SpecOf(id)
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
	{"Pong-workload", "Pong"},
}

// TableIIIEnv returns the name in 000 Table III of the environment run
// environment id stands in for, and whether it stands in for one: the one
// mapping rlx dse --env and the Table V experiment read.
func TableIIIEnv(id string) (string, bool) {
	id = env.StandIn(id) // Hopper-v4 is Table III's Hopper as its stand-in is
	for _, e := range tableIII {
		if e.id == id {
			return e.name, true
		}
	}
	return "", false
}
