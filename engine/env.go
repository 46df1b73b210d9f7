package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/rlxdev/rlx/core/env"
)

// envSpec returns the spec of environment id, or a FieldError listing the
// known environments.
func envSpec(id string) (*env.Spec, error) {
	e, err := env.Make(id, rand.New(rand.NewPCG(0, 0)))
	if err != nil {
		return nil, &FieldError{"env", fmt.Sprintf("%q", id), "use one of " + strings.Join(env.IDs(), ", ")}
	}
	return e.Spec(), nil
}

// Environments lists the environment ids a run can use.
func Environments() []string { return env.IDs() }
