package engine

import (
	"strings"
	"testing"
	"time"
)

func TestParseConfig(t *testing.T) {
	good := "name: hopper\nenv: Hopper-workload\nalgo: ddpg\nbatch: 16384\ncapacity: 1000000\nmapping: auto\nduration: 30s\n"
	c, err := ParseConfig("hopper.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if c.Env != "Hopper-workload" || c.Batch != 16384 || c.Duration != 30*time.Second {
		t.Errorf("parsed %+v", c)
	}
	bad := []struct{ src, want string }{
		{"env: CartPole-v1\nbatchh: 3\n", `run.yaml:2:1: unknown field "batchh"`},
		{"env: CartPole-v1\nbatch: three\n", "run.yaml:2:8: cannot unmarshal"},
		{"env: [CartPole\n", "run.yaml:1:6:"},
		{"env: CartPole-v1\nfanout: 1\n", "run.yaml:2:9: fanout 1 is not allowed: sum-tree fanout K must be 2..1024"},
		{"env: Nope\n", `run.yaml:1:6: env "Nope" is not allowed`},
		{"mapping: G-G\n", `run.yaml:1:10: mapping "G-G" is not allowed`},
		// A setting the run's algorithm does not use changed nothing.
		{"algo: dqn\ngae: 3\n", "run.yaml:2:6: gae 3 is not allowed: gae is a PPO setting, and this run's algorithm is dqn: remove it"},
		{"env: CartPole-v1\nenvs: 1000\n", "run.yaml:2:7: envs 1000 is not allowed: envs is a PPO setting, and this run's algorithm is dqn"},
		{"algo: ppo\ndepth: 4\n", "run.yaml:2:8: depth 4 is not allowed: depth is an off-policy (DQN, DDPG, TD3) setting, and this run's algorithm is ppo"},
	}
	for _, b := range bad {
		_, err := ParseConfig("run.yaml", []byte(b.src))
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseConfig(%q) = %v, want one line containing %q", b.src, err, b.want)
		}
	}
	if _, err := LoadConfig("/nonexistent.yaml"); err == nil {
		t.Error("LoadConfig of a missing file succeeded")
	}
}

// TestParseConfigAlgorithm: the algorithm reads in any case, and an unknown
// one is refused at its place in the file, with the accepted names.
func TestParseConfigAlgorithm(t *testing.T) {
	c, err := ParseConfig("run.yaml", []byte("env: CartPole-v1\nalgo: PPO\n"))
	if err != nil || c.Algo != PPO {
		t.Errorf("algo: PPO read as %q, %v", c.Algo, err)
	}
	_, err = ParseConfig("run.yaml", []byte("env: CartPole-v1\nalgo: sac\n"))
	if want := `run.yaml:2:7: algo "sac" is not allowed: use one of dqn, ddpg, td3, ppo`; err == nil || err.Error() != want {
		t.Errorf("algo: sac gave %v, want %s", err, want)
	}
}
