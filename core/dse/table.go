package dse

import (
	"fmt"

	"github.com/rlxdev/rlx/hw"
)

// Column of the primitive-platform table.
type Column uint8

// The two columns of 000 §VI-A3.
const (
	Learner Column = iota
	RMM
)

// Table is the primitive-platform performance table of 000 §VI-A3: for the
// learner and the RMM on each device, the time of one gradient step's work
// and the throughput TP = B / T in samples per second. A device that cannot
// run a primitive (the FPGA learner does not fit) has TP 0.
type Table struct {
	Batch int
	// Seconds[c][k] and TP[c][k] are indexed by Column and hw.Kind.
	Seconds [2][hw.NumKinds]float64
	TP      [2][hw.NumKinds]float64
}

// BuildTable fills the table from the estimator's models.
func BuildTable(e *hw.Estimator, batch int) (Table, error) {
	t := Table{Batch: batch}
	for _, k := range hw.Kinds {
		ls, err := e.Seconds(k, hw.TrainStep, batch)
		if err == nil {
			t.Seconds[Learner][k] = ls
			t.TP[Learner][k] = float64(batch) / ls
		} else if err != hw.ErrUnsupported {
			return t, err
		}
		rs, err := e.RMMSeconds(k, batch)
		if err == nil {
			t.Seconds[RMM][k] = rs
			t.TP[RMM][k] = float64(batch) / rs
		} else if err != hw.ErrUnsupported {
			return t, err
		}
	}
	return t, nil
}

// String renders the table with times in microseconds.
func (t Table) String() string {
	s := fmt.Sprintf("%-8s %14s %14s\n", "device", "learner (us)", "RMM (us)")
	for _, k := range hw.Kinds {
		s += fmt.Sprintf("%-8s %14.2f %14.2f\n", k, 1e6*t.Seconds[Learner][k], 1e6*t.Seconds[RMM][k])
	}
	return s
}
