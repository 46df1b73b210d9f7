package engine

import (
	"fmt"
	"strings"
)

// Algorithm is a training algorithm a run can use: DQN, DDPG or TD3 with
// prioritized replay (000), or PPO with GAE (003, 004). Its text form, in
// YAML, JSON and on the command line, is the lower-case name; the zero
// value means the default, DQN (Config.Defaults).
type Algorithm string

// The algorithms.
const (
	DQN  Algorithm = "dqn"
	DDPG Algorithm = "ddpg"
	TD3  Algorithm = "td3"
	PPO  Algorithm = "ppo"
)

// Algorithms returns every algorithm, in the order the explorer offers them.
func Algorithms() []Algorithm { return []Algorithm{DQN, DDPG, TD3, PPO} }

// ParseAlgorithm reads an algorithm's name, in any case. An unknown name
// is a *FieldError that lists the accepted ones.
func ParseAlgorithm(s string) (Algorithm, error) {
	a := Algorithm(strings.ToLower(s))
	if !a.known() {
		return "", a.unknown(s)
	}
	return a, nil
}

func (a Algorithm) known() bool {
	switch a {
	case DQN, DDPG, TD3, PPO:
		return true
	}
	return false
}

func (a Algorithm) unknown(as string) error {
	names := make([]string, 0, 4)
	for _, b := range Algorithms() {
		names = append(names, string(b))
	}
	return &FieldError{"algo", fmt.Sprintf("%q", as), "use one of " + strings.Join(names, ", ")}
}

// UnmarshalText reads the text form (ParseAlgorithm).
func (a *Algorithm) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*a = ""
		return nil
	}
	v, err := ParseAlgorithm(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// OnPolicy reports whether the algorithm learns from fresh rollouts (PPO)
// rather than from a prioritized replay buffer (DQN, DDPG, TD3): it decides
// which of the configuration's fields a run uses, which rates it reports
// (IPS or GPS) and what its mapping's middle place holds (GAE or RMM).
func (a Algorithm) OnPolicy() bool { return a == PPO }

// Actions says which action spaces the algorithm handles: an error naming
// the algorithms that fit when env's actions (discrete or not) do not.
func (a Algorithm) Actions(env string, discrete bool) error {
	switch {
	case a == DQN && !discrete:
		return &FieldError{"algo", fmt.Sprintf("%q", a), fmt.Sprintf("%s has continuous actions: use ddpg, td3 or ppo", env)}
	case (a == DDPG || a == TD3) && discrete:
		return &FieldError{"algo", fmt.Sprintf("%q", a), fmt.Sprintf("%s has discrete actions: use dqn or ppo", env)}
	}
	return nil
}
