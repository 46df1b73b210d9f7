// Package machine describes the machine a figure was measured on: the
// operating system and architecture, the CPUs, GOMAXPROCS and the Go
// release. run.json, the benchmark reports and the experiment reports all
// record it with this one type, so the same fact has the same JSON names
// and the same printed form everywhere.
//
// It imports nothing of the module, so any layer may use it.
package machine
