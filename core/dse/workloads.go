package dse

import (
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/hw"
)

// Env names a benchmark environment of 000 Table III.
type Env struct {
	Name string
	// Obs is the observation shape: one dimension for a vector, three
	// (frames, height, width) for stacked frames.
	Obs []int
	// Actions is the action dimension (continuous) or count (discrete).
	Actions int
	// Hidden is the width of the two hidden layers of the 3-layer MLP;
	// 0 selects the Nature DQN ConvNet.
	Hidden int
	// Algos are the algorithms the environment supports here.
	Algos []string
	// DataQueue is the Data Queue's size in batches (000 §VII-A: 200 for
	// Pong, 10 for Hopper). 000 gives none for CartPole; it takes
	// Hopper's, and at CartPole's 44-byte samples the queue decides no
	// placement (16384 x 10 x 44 B = 7.2 MB).
	DataQueue int
}

// Environments are the benchmarks of 000 Table III.
var Environments = []Env{
	{Name: "CartPole", Obs: []int{4}, Actions: 1, Hidden: 8, Algos: []string{"DDPG", "TD3", "DQN"}, DataQueue: 10},
	{Name: "Hopper", Obs: []int{11}, Actions: 3, Hidden: 256, Algos: []string{"DDPG", "TD3"}, DataQueue: 10},
	{Name: "Pong", Obs: []int{4, 84, 84}, Actions: 6, Hidden: 0, Algos: []string{"DQN"}, DataQueue: 200},
}

// Replay and actor settings shared by every Table V configuration.
const (
	// TableVCapacity is the replay capacity: "a typical Prioritized Replay
	// Buffer contains 1 million data points" (000 §IV-C4).
	TableVCapacity = 1_000_000
	// TableVFanout is K (000 §VII-A: 2).
	TableVFanout = 2
	// TableVActors is the number of actors (000 §VII-A: 16).
	TableVActors = 16
	// TableVDepth is D, the batches sampled ahead (000 §VII-B: "we set
	// D=50 for all the three environments").
	TableVDepth = 50
)

// FindEnv returns the environment named name (case-insensitive).
func FindEnv(name string) (Env, error) {
	names := make([]string, 0, len(Environments))
	for _, e := range Environments {
		if strings.EqualFold(e.Name, name) {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return Env{}, fmt.Errorf("environment %q is not known: use one of %s", name, strings.Join(names, ", "))
}

// natureDQN returns the ConvNet of Mnih et al. 2015 (000 Table III, [14]):
// ReLU after every layer but the output.
func natureDQN(frames, h, w, actions int) []hw.Layer {
	c1 := hw.Layer{Kind: hw.Conv, In: frames, Out: 32, Kernel: 8, Stride: 4, InH: h, InW: w, Act: hw.ActReLU}
	h1, w1 := c1.OutHW()
	c2 := hw.Layer{Kind: hw.Conv, In: 32, Out: 64, Kernel: 4, Stride: 2, InH: h1, InW: w1, Act: hw.ActReLU}
	h2, w2 := c2.OutHW()
	c3 := hw.Layer{Kind: hw.Conv, In: 64, Out: 64, Kernel: 3, Stride: 1, InH: h2, InW: w2, Act: hw.ActReLU}
	h3, w3 := c3.OutHW()
	return []hw.Layer{c1, c2, c3,
		{Kind: hw.Dense, In: 64 * h3 * w3, Out: 512, Act: hw.ActReLU},
		{Kind: hw.Dense, In: 512, Out: actions},
	}
}

// Workload returns the learner workload of env trained by algo at batch
// (000 Table III). The nets and their passes per gradient step follow the
// algorithm (hw.DQNStep, hw.ActorCriticStep).
//
// Data points are float32 transitions (s, a, r, s', done); Pong stores each
// 84x84 frame once as bytes and the learner reads s and s' as stacks of 4,
// the replay layout of Mnih et al. 2015. A sample in the Data Queue is the
// learner's input, fp32 throughout (Table III's nets are fp32).
func Workload(env Env, algo string, batch int) (hw.Workload, error) {
	algo = strings.ToUpper(algo)
	ok := false
	for _, a := range env.Algos {
		ok = ok || a == algo
	}
	if !ok {
		return hw.Workload{}, fmt.Errorf("algorithm %q is not available for %s: use one of %s", algo, env.Name, strings.Join(env.Algos, ", "))
	}
	w := hw.Workload{
		Name: env.Name + "/" + algo, Batch: batch, Capacity: TableVCapacity,
		Fanout: TableVFanout, Actors: TableVActors, Depth: TableVDepth, DataQueue: env.DataQueue,
	}
	obs := 1
	for _, d := range env.Obs {
		obs *= d
	}
	act := env.Actions
	if algo == "DQN" {
		act = 1
	}
	w.QueueSampleBytes = hw.TransitionBytes(obs, act)
	if env.Hidden == 0 {
		f, h, wd := env.Obs[0], env.Obs[1], env.Obs[2]
		w.DataPointBytes = h*wd + 4 + 4 + 1
		w.SampleBytes = 2*f*h*wd + 4 + 4 + 1
	} else {
		w.DataPointBytes = hw.TransitionBytes(obs, act)
	}
	switch algo {
	case "DQN":
		var layers []hw.Layer
		if env.Hidden == 0 {
			layers = natureDQN(env.Obs[0], env.Obs[1], env.Obs[2], env.Actions)
		} else {
			layers = hw.MLPLayers(obs, env.Hidden, env.Hidden, max(env.Actions, 2))
		}
		hw.DQNStep(layers).Apply(&w)
	case "DDPG", "TD3":
		actor := hw.MLPLayers(obs, env.Hidden, env.Hidden, env.Actions)
		critic := hw.MLPLayers(obs+env.Actions, env.Hidden, env.Hidden, 1)
		hw.ActorCriticStep(actor, critic, algo == "TD3").Apply(&w)
	}
	return w, w.Validate()
}
