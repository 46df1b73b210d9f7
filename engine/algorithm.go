package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/core/agents"
)

// Algorithm is a training algorithm a run can use: DQN, DDPG or TD3 with
// prioritized replay (000), or PPO with GAE (003, 004). It is
// agents.Algorithm, the one vocabulary of algorithms; its text form, in
// YAML, JSON and --set, is the lower-case name, and the zero value means
// the default, DQN (Config.Defaults).
type Algorithm = agents.Algorithm

// The algorithms.
const (
	DQN  = agents.DQN
	DDPG = agents.DDPG
	TD3  = agents.TD3
	PPO  = agents.PPO
)

// ParseAlgorithm reads an algorithm's name, in any case. An unknown name
// is a *FieldError that lists the accepted ones.
func ParseAlgorithm(s string) (Algorithm, error) {
	a, err := agents.Parse(s)
	return a, algorithmError(err)
}

// algorithmError turns agents' error for an unknown name into the
// *FieldError the configuration reports; other errors pass as they are.
func algorithmError(err error) error {
	var ue *agents.UnknownError
	if errors.As(err, &ue) {
		return &FieldError{"algo", fmt.Sprintf("%q", ue.Name), "use one of " + strings.Join(agents.Names(), ", ")}
	}
	return err
}

// algorithmFits checks that algorithm a handles env's actions.
func algorithmFits(a Algorithm, env string, discrete bool) error {
	if why := a.ActionsFit(env, discrete); why != "" {
		return &FieldError{"algo", fmt.Sprintf("%q", a), why}
	}
	return nil
}

// OffPolicyFor returns the off-policy algorithm that handles env's
// actions, DQN for discrete ones and TD3 for continuous ones: the
// algorithm rlx dse explores a run environment with when none is named.
func OffPolicyFor(env string) (Algorithm, error) {
	spec, err := envSpec(env)
	if err != nil {
		return "", err
	}
	if spec.Act.Discrete() {
		return DQN, nil
	}
	return TD3, nil
}
