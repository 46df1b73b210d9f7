// Package calibrate measures rlx's own primitives on the host and fits the
// CPU model of package hw to them, so that the simulated clock can be
// checked against the host clock (docs/models.md "Calibration").
//
// What it has so far: the host's CPU as the system reports it (ReadHostCPU:
// cores, clock, caches from /proc and sysfs, each value with where it was
// read), a dependent-load chase for the cache and memory latencies
// (MeasureLoadLatency, FitLatencies), the copy bandwidth
// (MeasureCopyBandwidth), and the training step of core/nn's MLPs
// (MeasureTrainStep) with the fit of hw's CPU training-step model to it
// (FitTrainStep: the sustained rate of one core and the cost per framework
// op) and its prediction for shapes the fit did not see (PredictTrainStep).
//
// Every figure is host wall clock, the median of repeats with their spread:
// the machines rlx runs on are shared and noisy. Nothing here runs unless
// asked; a full calibration takes seconds to minutes.
//
// calibrate may import the core packages and hw; nothing above them.
package calibrate
