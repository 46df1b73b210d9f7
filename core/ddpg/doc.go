// Package ddpg is DDPG (Lillicrap et al. 2016) and TD3 (Fujimoto et al.
// 2018) with prioritized replay for the actor-learner runtime
// (core/runtime), with CleanRL's ddpg_continuous_action.py and
// td3_continuous_action.py as the reference for defaults, networks and
// losses.
//
// # What it computes
//
// For a batch of transitions (s, a, r, s', terminated) with importance
// weights w, the critics Q_j (one for DDPG, two for TD3) regress on
//
//	a'   = clip(actor_T(s') scale + bias + eps, low, high)
//	       eps = clip(N(0, PolicyNoise), -NoiseClip, NoiseClip) scale   (TD3 only)
//	y    = r + gamma (1 - terminated) min_j Q_j,T(s', a')
//	L_Q  = sum_j (1/B) sum_i w_i (Q_j(s_i, a_i) - y_i)^2
//
// and every PolicyFrequency steps the actor follows the deterministic policy
// gradient of L_pi = -(1/B) sum_i Q_1(s_i, actor(s_i) scale + bias), after
// which every target moves by Polyak averaging with rate Tau. The new
// priorities are max_j |Q_j(s_i, a_i) - y_i| + eps. Actors add Gaussian
// noise of ExplorationNoise scale to the actor's action, after RandomSteps
// uniformly random steps.
//
// The learner also runs as an SPO local learner (001 §5.2.2.2: targets
// fixed between averagings, the deferred Polyak updates applied after
// each) and as a data-parallel ApeX local learner (two gradient phases on
// actor steps: the critics, then the actor through the averaged critics).
//
// # Cost
//
// A TD3 step of batch B costs five forward passes of B (target actor, two
// target critics, two critics), two critic backward passes and one Adam
// step; an actor step adds one actor and one critic forward, a critic input
// gradient and an actor backward pass. Nothing allocates once the learner
// has seen the batch size. (Adam flushes moments below 1e-30 to 0, see
// core/nn/kernel.Adam, so that float32 subnormals do not slow it down.)
package ddpg
