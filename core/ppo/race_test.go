//go:build race

package ppo

// raceEnabled reports a build with the race detector, which allocates and
// runs several times slower.
const raceEnabled = true
