//go:build !race

package gae

const raceEnabled = false
