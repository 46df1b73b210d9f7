//go:build !race

package sumtree

// raceEnabled reports a build with the race detector.
const raceEnabled = false
