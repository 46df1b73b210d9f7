package agents

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Algorithm
	}{{"dqn", DQN}, {"DDPG", DDPG}, {"Td3", TD3}, {"ppo", PPO}} {
		if got, err := Parse(c.in); err != nil || got != c.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	var ue *UnknownError
	if _, err := Parse("sac"); !errors.As(err, &ue) || err.Error() != `algorithm "sac" is not known: use one of dqn, ddpg, td3, ppo` {
		t.Errorf("Parse(sac) = %v", err)
	}
	var a Algorithm
	if err := json.Unmarshal([]byte(`"TD3"`), &a); err != nil || a != TD3 {
		t.Errorf("JSON TD3 read as %q, %v", a, err)
	}
	if b, err := json.Marshal(PPO); err != nil || string(b) != `"ppo"` {
		t.Errorf("JSON of PPO: %s, %v", b, err)
	}
	if !PPO.OnPolicy() || DQN.OnPolicy() || DQN.ActionsFit("Pendulum-v1", false) == "" || PPO.ActionsFit("Pendulum-v1", false) != "" {
		t.Error("OnPolicy or ActionsFit is wrong")
	}
}

// TestOffPolicy: the recipe builds each off-policy algorithm with its
// networks, sets the budget, the seed and the learning start, and refuses
// PPO and an environment whose actions the algorithm cannot take.
func TestOffPolicy(t *testing.T) {
	dq, err := OffPolicy(DQN, "CartPole-v1", 20_000, 1000, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(dq.Q.Layers) == 0 || len(dq.Actor.Layers) != 0 || dq.Runtime.TotalSteps != 20_000 ||
		dq.Runtime.LearningStarts != 1000 || dq.Runtime.Seed != 3 || dq.Runtime.Env != "CartPole-v1" {
		t.Errorf("DQN: %+v", dq.Runtime)
	}
	td, err := OffPolicy(TD3, "Pendulum-v1", 50_000, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !td.TwinCritics || len(td.Actor.Layers) == 0 || len(td.Critic.Layers) == 0 || td.Runtime.LearningStarts != 5000 {
		t.Errorf("TD3: twin %v, learning starts %d (want a tenth of the budget, 5000)", td.TwinCritics, td.Runtime.LearningStarts)
	}
	dd, err := OffPolicy(DDPG, "Pendulum-v1", 1_000_000, -1, 1)
	if err != nil || dd.TwinCritics || dd.Runtime.LearningStarts != 25_000 {
		t.Errorf("DDPG: %v, twin %v, learning starts %d (want CleanRL's 25000)", err, dd != nil && dd.TwinCritics, dd.Runtime.LearningStarts)
	}
	for _, c := range []struct {
		a    Algorithm
		env  string
		want string
	}{
		{PPO, "CartPole-v1", "not an off-policy one"},
		{DQN, "Pendulum-v1", "continuous actions"},
		{TD3, "CartPole-v1", "discrete actions"},
		{DQN, "Walker", "unknown environment"},
	} {
		if _, err := OffPolicy(c.a, c.env, 1000, -1, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("OffPolicy(%s, %s) = %v, want an error about %q", c.a, c.env, err, c.want)
		}
	}
}
