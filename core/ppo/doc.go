// Package ppo trains policies with proximal policy optimization (PPO-clip),
// as CleanRL's ppo.py (discrete actions) and ppo_continuous_action.py
// (continuous actions) do, on the environments of core/env with the
// networks of core/nn and the GAE of core/gae, and reports the host time of
// every primitive it executes so that a caller can charge it to a simulated
// device.
//
// # What it computes
//
// An iteration (004 §I, Algorithm 1; 003 §2.1) collects T steps of N
// environment copies with the current policy, computes advantages and
// returns by GAE (core/gae, with the numerics of 004 §II selected per run:
// Config.GAE, Experiment), then makes K epochs of minibatch updates, each
// epoch a new random split of the N*T samples into minibatches of M. A
// minibatch minimizes
//
//	L = L_clip - EntCoef * mean(entropy) + VFCoef * L_V
//	L_clip = mean(max(-A r, -A clamp(r, 1-eps, 1+eps))),  r = pi(a|s)/pi_old(a|s)
//	L_V    = 1/2 mean(max((V-R)^2, (V_old + clamp(V-V_old, -eps, eps) - R)^2))
//
// (ClippedSurrogate, ValueLoss; the unclipped L_V without ClipVLoss) with
// the advantages A standardized per minibatch (NormalizeAdvantages), the
// global gradient norm clipped to MaxGradNorm and one Adam step; the
// learning rate decays linearly over the run; an optional target KL ends an
// iteration's epochs early. The actor (logits, or the means of a diagonal
// Gaussian with a state-independent log-std) and the critic are separate
// MLPs, initialized as CleanRL's layer_init. For continuous actions the
// wrappers of ppo_continuous_action.py are available: the action clip,
// running observation and reward normalization (NormObs, NormReward).
// Episodes cut by a time limit may bootstrap from the value of their final
// observation (BootstrapTruncated); CleanRL treats them as terminal.
//
// # Phases, the observer and IPS
//
// Every primitive is timed on the host clock and attributed to a Phase, the
// rows of 004 Table I: environment run, DNN inference, storing
// trajectories, GAE, loss calculation, backpropagation, plus the optimizer
// step. IterStats.Phases holds their sums per iteration and IPS is 003
// §5.3.1's samples per second of a whole iteration, N*T / Wall. An Observer
// set with SetObserver receives each primitive as an Event (phase, item
// count, iteration/step/epoch/minibatch, host start and end) right after it
// ran, on the Trainer's goroutine; an EpisodeObserver also receives every
// finished episode. This package knows nothing of devices: the engine maps
// phases to them.
//
// # Invariants
//
// A run is deterministic under Config.Seed: environment copy i draws from
// PCG(Seed, i); network initialization, action sampling and minibatch
// shuffling draw from their own PCG streams of Seed, so the same Config
// gives the same losses bit for bit on the same machine and kernel (the
// GEMM kernels of core/nn differ in rounding between AVX2 and pure Go).
// Observers do not change the computation. The rollout is time-major
// (element (t, i) at t*N+i), as core/gae expects.
//
// # Errors and cancellation
//
// New returns an error naming any Config field out of range. Iterate checks
// its context before every environment step and every minibatch and returns
// ctx.Err() when it is done, leaving the Trainer usable; a non-finite
// gradient norm stops the iteration before the optimizer step with an
// error, so the networks are never overwritten with NaN. Misuse of the loss
// functions (mismatched lengths) panics with a "ppo: " message.
//
// # Cost and allocation
//
// An iteration costs T inferences of batch N, T steps of N environments,
// O(N*T) GAE and bookkeeping, and K*N*T/M minibatch steps, each a forward
// and a backward pass of both networks on M samples and an Adam step over
// every parameter: about N*T*(1 + 3K) times the multiply-adds of one
// sample's forward pass through actor and critic (Net.Shape().MACs). New allocates every buffer; Iterate allocates nothing. With
// CleanRL's CartPole settings an iteration (512 steps) takes about 3 ms on
// one core of the development machine, 80% of it in the GEMM and tanh
// kernels of core/nn (docs/ppo.md).
//
// See docs/ppo.md for the defaults, the phase table, the HEPPO experiments
// and the measured learning curves.
package ppo
