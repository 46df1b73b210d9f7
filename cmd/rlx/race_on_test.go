//go:build race

package main

// raceEnabled: the race detector slows the training core ten-fold, so the
// tests that run every preset run a sample of them.
const raceEnabled = true
