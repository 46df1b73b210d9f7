//go:build race

package sumtree

// raceEnabled reports a build with the race detector, which makes long
// single-goroutine tests about 20 times slower without checking more.
const raceEnabled = true
