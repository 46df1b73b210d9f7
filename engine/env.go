package engine

import (
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/core/env"
)

// envSpec returns the spec of environment id, or a FieldError listing the
// known environments.
func envSpec(id string) (*env.Spec, error) {
	s, err := env.SpecOf(id)
	if err != nil {
		return nil, &FieldError{"env", fmt.Sprintf("%q", id), "use one of " + strings.Join(env.IDs(), ", ")}
	}
	return s, nil
}

// Environments lists the environment ids a run can use.
func Environments() []string { return env.IDs() }
