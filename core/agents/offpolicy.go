package agents

import (
	"fmt"

	"github.com/rlxdev/rlx/core/ddpg"
	"github.com/rlxdev/rlx/core/dqn"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/runtime"
)

// OffPolicyAgent is an off-policy agent as rlx trains it: the agent, the
// actor-learner runtime's configuration for it (CleanRL's, with the
// environment, seed, budget and learning start set; the caller sets its
// sizes), the environment's spec and the learner's networks.
type OffPolicyAgent struct {
	Agent   runtime.Agent
	Runtime runtime.Config
	Spec    *env.Spec
	// Q is DQN's Q-network; Actor and Critic are DDPG's and TD3's (TD3
	// has a second critic of Critic's shape, TwinCritics).
	Q, Actor, Critic nn.Shape
	TwinCritics      bool
}

// OffPolicy builds algorithm a (DQN, DDPG or TD3) on environment envID
// with CleanRL's hyperparameters and prioritized replay, for a budget of
// totalSteps environment steps with learning from step learningStarts on
// (a negative learningStarts keeps CleanRL's), seeded with seed.
func OffPolicy(a Algorithm, envID string, totalSteps, learningStarts int, seed uint64) (*OffPolicyAgent, error) {
	if err := a.CheckOffPolicy(); err != nil {
		return nil, fmt.Errorf("agents: %w", err)
	}
	spec, err := env.SpecOf(envID)
	if err != nil {
		return nil, err
	}
	out := &OffPolicyAgent{Spec: spec}
	if why := a.ActionsFit(envID, out.Spec.Act.Discrete()); why != "" {
		return nil, fmt.Errorf("agents: %s", why)
	}
	if a == DQN {
		c, rc := dqn.CleanRL(totalSteps)
		ag, err := dqn.New(out.Spec, c, seed)
		if err != nil {
			return nil, err
		}
		l, err := ag.Learner()
		if err != nil {
			return nil, err
		}
		out.Agent, out.Runtime, out.Q = ag, rc, l.Q().Shape()
	} else {
		alg := ddpg.DDPG
		if a == TD3 {
			alg = ddpg.TD3
		}
		starts := learningStarts
		if starts < 0 {
			starts = min(25_000, totalSteps/10)
		}
		c, rc := ddpg.CleanRL(alg, envID, totalSteps, starts)
		ag, err := ddpg.New(out.Spec, c, seed)
		if err != nil {
			return nil, err
		}
		l, err := ag.Learner()
		if err != nil {
			return nil, err
		}
		out.Agent, out.Runtime = ag, rc
		out.Actor, out.Critic, out.TwinCritics = l.Actor().Shape(), l.Critic().Shape(), a == TD3
	}
	out.Runtime.Env, out.Runtime.Seed, out.Runtime.TotalSteps = envID, seed, totalSteps
	if learningStarts >= 0 {
		out.Runtime.LearningStarts = learningStarts
	}
	return out, nil
}
