// Package dse is the design-space exploration of rlx.
//
// It builds the primitive-platform performance table of seed 000 §VI-A3 from
// the hw cost models, runs the mapping algorithm (000 Algorithm 3: learner
// first, then the replay manager with the GPU-sharing pruning rule, then the
// data storage by least traffic), evaluates the throughput of every mapping,
// explores the FPGA architecture (000 §VI-A2: DP, PI, f and S under the SLR
// constraints), the systolic array of PPOAccel (003 §4, Eq. 9) and the GAE
// processing elements of HEPPO (004).
//
// Nothing here is fitted to a configuration: the published results must
// come out of the device specs (presets/devices) and the equations in hw.
// docs/dse.md lists what is reproduced and what is not.
//
// Cost: a Table V configuration takes well under a millisecond (the FPGA
// learner search dominates: O(log(batch) x 60 x n) stage evaluations).
package dse
