// Package calibrate measures rlx's own primitives on the host and fits the
// CPU model of package hw to them, so that the simulated clock can be
// checked against the host clock (docs/models.md "Calibration"; the
// command is `rlx calibrate`).
//
// Run does a whole calibration: the host's CPU as the system reports it
// (ReadHostCPU), a dependent-load chase for the cache and memory latencies
// (MeasureLoadLatency, FitLatencies), the copy bandwidth
// (MeasureCopyBandwidth), the cost of a micro-kernel call
// (MeasureTileCall), of the activation kernels (MeasureActivations) and of
// a hand-off between two threads (MeasureHandoff), a busy core's clock
// and a large GEMM's rate on it (MeasureClock, MeasureGEMMRate: the
// efficiency docs/models.md carries to Table IV's CPU), then the real kernels
// in rounds: training steps of core/nn MLPs (MeasureTrainStep) and
// ConvNets (MeasureConvTrainStep), the off-policy learners' steps
// (MeasureLearnerStep), actor inference, the sum tree's sampling and
// update, replay insertion, GAE and environment steps (primitives.go).
// FitCPU fits the CPU model's free parameters (CPUFit: the sustained rate
// of one core on full GEMM tiles, the cost of a framework op, the
// bandwidth of cache-resident elementwise ops, the cost per element of a
// convolution's im2col) to some training steps, the measured costs held;
// every other point is predicted on the fitted CPU and reported beside its
// measurement. Result.PlatformYAML writes the
// calibrated platform, "host".
//
// Every figure is host wall clock, the median of rounds with their spread:
// the machines rlx runs on are shared and noisy, and measuring every probe
// once per round spreads a burst of other work over all of them. Nothing
// here runs unless asked; a quick calibration takes seconds and a full
// one under a minute (3 and 12 s on a 2-core machine).
//
// calibrate may import the core packages (core/agents describes the
// learner steps to hw as the engine does), hw and presets; nothing above
// them.
package calibrate
