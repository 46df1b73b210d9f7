//go:build !race

package ddpg

const raceEnabled = false
