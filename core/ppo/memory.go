package ppo

import "github.com/rlxdev/rlx/core/env"

// Bytes estimates the memory a Trainer of c on an environment of spec s
// allocates, from the sizes New gives every buffer (New allocates them all
// up front, so an iteration adds nothing): the rollout of N*T samples, the
// gathered copy of a chunk of a minibatch, the networks with their gradients, Adam's
// moments and the activations of a chunk (chunkSize), the GAE outputs and
// the N environments' observations. A test holds it against what New
// allocates. c must be valid.
func (c Config) Bytes(s *env.Spec) int64 {
	b, mb, n := int64(c.BatchSize()), int64(c.MinibatchSize()), int64(c.NumEnvs)
	od, ad := int64(s.Obs.Dim()), int64(s.Act.Dim())
	const f = 4   // float32
	act := ad * f // a continuous action vector
	if s.Act.Discrete() {
		act = 8 // an int index
	}
	// Per sample of the rollout: the observation, log-prob, value, next
	// value, reward, old value, advantage and return, two end flags, the
	// action and its place in the shuffled order.
	rollout := b * (od*f + 7*f + 2 + act + 8)
	params, floats, chunk := trainerNets(append(append([]int{int(od)}, c.Hidden...), int(ad)), int(mb))
	// Per sample of a chunk of a minibatch: the gathered observation,
	// actions, the network outputs and their gradients, and eight
	// per-sample values.
	minibatch := int64(chunk) * (od*f + act + 2*ad*f + 8*f)
	// Actor and critic: parameters, gradients and two Adam moments, and
	// the activations of max(chunk, N) samples.
	nets := 4*int64(params)*f + max(int64(chunk), n)*int64(floats)*f
	gae := 2 * b * f
	envs := 4 * n * od * f
	return rollout + minibatch + nets + gae + envs
}
