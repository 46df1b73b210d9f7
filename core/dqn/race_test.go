//go:build race

package dqn

// raceEnabled: the race detector slows training 10-20x; learning runs are
// skipped under it.
const raceEnabled = true
