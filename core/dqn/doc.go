// Package dqn is deep Q-learning (Mnih et al. 2015) with prioritized
// replay for the actor-learner runtime (core/runtime), with CleanRL's
// dqn.py as the reference for its defaults, network and loss.
//
// # What it computes
//
// For a batch of transitions (s, a, r, s', terminated) sampled with
// importance weights w (core/replay), one gradient step is
//
//	y_i  = r_i + gamma (1 - terminated_i) max_a' Q_T(s'_i, a')
//	loss = (1/B) sum_i w_i (Q(s_i, a_i) - y_i)^2                (002 Eq. 3)
//
// followed by Adam; the new priorities are |Q(s_i, a_i) - y_i| + eps. The
// double-DQN option takes the target Q_T(s', argmax_a' Q(s', a')). The
// target network is copied (or Polyak-averaged with Tau < 1) every
// TargetEvery gradient steps. Actors act epsilon-greedily with epsilon
// decaying linearly from StartE to EndE.
//
// The learner also runs as an SPO local learner (001 Algorithm 7: target
// updates only after weight averaging; double DQN selects next actions
// with the last averaged network, 001 §5.2.2.3) and as a data-parallel
// ApeX local learner (gradients of a sub-batch, averaged by the central
// learner).
//
// # Cost
//
// A step of batch B costs two forward passes of B (the online network on
// s, the target network on s'; three with double DQN), one backward pass
// and one Adam step over the parameters. Nothing allocates once the
// learner has seen the batch size. (Adam flushes moments below 1e-30 to 0,
// so that the weights of dead units do not slow the step down with float32
// subnormals; see core/nn/kernel.Adam.)
package dqn
