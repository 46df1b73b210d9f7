// Package engine runs one live training run of rlx: it builds the
// environment, the agent and the replay buffer from a Config, runs the real
// actors and learners, executes every primitive on the host and charges it
// to the simulated device it is mapped to (CPU, GPU or FPGA, with PCIe
// transfers between them), and publishes what happens.
//
// A run keeps two clocks: the host wall clock, on which the primitives
// really execute, and the simulated platform clock, on which each primitive
// costs what the hw models say it costs on its device, with the overlap the
// relaxed dependency of 000 §V allows. Every rate in a Snapshot says which
// clock it is on.
//
// Viewers read the latest Snapshot (lossy: the training never waits for a
// viewer) and receive must-deliver Events (started, finished, failed, ...)
// on a channel. The terminal explorer (package tui) and the headless batch
// mode are two such viewers.
//
// The simulated platform clock itself is package sim: the engine drives it
// and turns its traces into views.
//
// engine imports core/*, hw, core/dse, sim, presets, internal/yamldoc,
// internal/units and internal/machine (the memory a run may use); it never
// imports tui or cmd.
package engine
