package dse

import (
	"context"
	"strings"

	"github.com/rlxdev/rlx/hw"
)

// Config is one column of 000 Table V: an environment, its algorithm
// (Table III) and a batch size.
type Config struct {
	Env   string
	Algo  string
	Batch int
}

// TableVGrid is the grid of 000 Table V (the configurations only; the
// mappings come out of Explore).
var TableVGrid = []Config{
	{"CartPole", "DDPG", 32}, {"CartPole", "DDPG", 256}, {"CartPole", "DDPG", 2048}, {"CartPole", "DDPG", 16384},
	{"Hopper", "DDPG", 32}, {"Hopper", "DDPG", 256}, {"Hopper", "DDPG", 2048}, {"Hopper", "DDPG", 16384},
	{"Pong", "DQN", 32}, {"Pong", "DQN", 64}, {"Pong", "DQN", 256},
}

// TableVConfig returns the configuration of TableVGrid for env (in any
// case) at batch, and whether the grid has one.
func TableVConfig(env string, batch int) (Config, bool) {
	for _, c := range TableVGrid {
		if strings.EqualFold(c.Env, env) && c.Batch == batch {
			return c, true
		}
	}
	return Config{}, false
}

// ExploreConfig builds the workload of c and explores it on p.
func ExploreConfig(p *hw.Platform, c Config) (*Result, error) {
	env, err := FindEnv(c.Env)
	if err != nil {
		return nil, err
	}
	w, err := Workload(env, c.Algo, c.Batch)
	if err != nil {
		return nil, err
	}
	return Explore(p, &w)
}

// Sweep explores every configuration in order; it stops early when ctx is
// done and returns what it has with ctx's error.
func Sweep(ctx context.Context, p *hw.Platform, grid []Config) ([]*Result, error) {
	out := make([]*Result, 0, len(grid))
	for _, c := range grid {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r, err := ExploreConfig(p, c)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}
