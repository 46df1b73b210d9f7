package agents

import (
	"fmt"
	"slices"
	"strings"
)

// Algorithm is a training algorithm. Its text form, in YAML, JSON and on
// the command line, is the lower-case name, read in any case; the zero
// value is an algorithm not given.
type Algorithm string

// The algorithms.
const (
	DQN  Algorithm = "dqn"
	DDPG Algorithm = "ddpg"
	TD3  Algorithm = "td3"
	PPO  Algorithm = "ppo"
)

// All returns every algorithm, in the order a user is offered them.
func All() []Algorithm { return []Algorithm{DQN, DDPG, TD3, PPO} }

// Names returns every algorithm's text form, in All's order.
func Names() []string {
	var names []string
	for _, a := range All() {
		names = append(names, string(a))
	}
	return names
}

// UnknownError is the error of a name that is no algorithm.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("algorithm %q is not known: use one of %s", e.Name, strings.Join(Names(), ", "))
}

// Parse reads an algorithm's name, in any case; an unknown name is an
// *UnknownError.
func Parse(s string) (Algorithm, error) {
	a := Algorithm(strings.ToLower(s))
	if !a.Known() {
		return "", &UnknownError{s}
	}
	return a, nil
}

// Known reports whether a is one of All.
func (a Algorithm) Known() bool { return slices.Contains(All(), a) }

// MarshalText returns the text form.
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a), nil }

// UnmarshalText reads the text form (Parse); empty is the algorithm not
// given.
func (a *Algorithm) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*a = ""
		return nil
	}
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// OnPolicy reports whether the algorithm learns from fresh rollouts (PPO)
// rather than from a prioritized replay buffer (DQN, DDPG, TD3).
func (a Algorithm) OnPolicy() bool { return a == PPO }

// CheckOffPolicy returns nil for DQN, DDPG and TD3, and otherwise an error
// naming them.
func (a Algorithm) CheckOffPolicy() error {
	if !a.Known() || a.OnPolicy() {
		return fmt.Errorf("algorithm %q is not an off-policy one: use dqn, ddpg or td3", a)
	}
	return nil
}

// ActionsFit returns "" if the algorithm handles env's actions (discrete or
// not), or why not, naming the algorithms that do.
func (a Algorithm) ActionsFit(env string, discrete bool) string {
	switch {
	case a == DQN && !discrete:
		return fmt.Sprintf("%s has continuous actions: use ddpg, td3 or ppo", env)
	case (a == DDPG || a == TD3) && discrete:
		return fmt.Sprintf("%s has discrete actions: use dqn or ppo", env)
	}
	return ""
}
