// Package agents names the training algorithms rlx runs and builds the
// off-policy ones as rlx trains them.
//
// Algorithm is the one vocabulary of algorithms (DQN, DDPG and TD3 with
// prioritized replay, 000; PPO with GAE, 003/004): its text form, whether
// it learns on-policy, which action spaces it handles. OffPolicy builds a
// DQN, DDPG or TD3 agent with CleanRL's hyperparameters (dqn.py,
// ddpg_continuous_action.py, td3_continuous_action.py) and its actor-learner
// runtime configuration: the recipe the live run (engine) and the host
// benchmarks (bench) both start from, each then setting its own sizes.
// PPO's recipe is core/ppo's Defaults.
//
// HWLayers and OffPolicyAgent.LearnerStep describe the networks and a
// gradient step to the hardware models, for the live run (engine) and the
// host calibration (calibrate) alike.
//
// Imports: core/env, core/nn, core/runtime, core/dqn, core/ddpg and hw of
// rlx, nothing else of it.
package agents
