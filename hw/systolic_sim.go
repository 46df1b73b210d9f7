package hw

import "fmt"

// FoldMode says how consecutive folds (P x P tiles) of a GEMM share the
// array.
type FoldMode uint8

// Fold modes.
const (
	// Streamed feeds the next fold right behind the current one, with the
	// next stationary block preloaded into shadow registers: PPOAccel's
	// design, whose closed form is 003 Eq. 5.
	Streamed FoldMode = iota
	// Separate runs each fold alone: it preloads its stationary block (WS,
	// IS: one row per cycle), fills, streams and drains before the next
	// starts, as common systolic-array simulators count.
	Separate
)

// String returns "streamed" or "separate".
func (m FoldMode) String() string {
	if m == Separate {
		return "separate"
	}
	return "streamed"
}

// SystolicResult is the outcome of one GEMM on a P x P array.
type SystolicResult struct {
	Dims     GEMMDims
	P        int
	Dataflow Dataflow
	Mode     FoldMode
	Cycles   int64
	Folds    int
	MACs     int64
	// Utilization is MACs / (P^2 x Cycles).
	Utilization float64
	// Eq5 is 003 Eq. 5 for the same GEMM.
	Eq5 int64
	// Timeline has one stage per PE row: the cycles in which any PE of the
	// row performs a MAC.
	Timeline Timeline
}

// CheckSystolic validates GEMM dimensions and the array edge.
func CheckSystolic(d GEMMDims, p int) error {
	const maxDim = 1 << 22
	for _, v := range []struct {
		name string
		n    int
	}{{"a (output features)", d.A}, {"b (reduction)", d.B}, {"c (batch x pixels)", d.C}} {
		if v.n < 1 || v.n > maxDim {
			return fmt.Errorf("GEMM dimension %s = %d is out of range: must be 1..%d", v.name, v.n, maxDim)
		}
	}
	if p < 1 || p > 1024 {
		return fmt.Errorf("array size P = %d is out of range: must be 1..1024", p)
	}
	if d.MACs() > 1<<40 {
		return fmt.Errorf("GEMM %s has %d MACs: at most 2^40 are simulated", d, d.MACs())
	}
	return nil
}

// foldSpan is one fold: its start cycle, used rows and cols.
type foldSpan struct {
	start      int64
	rows, cols int
}

// forEachFold visits the folds of a GEMM in issue order (row blocks outer,
// column blocks inner) with their start cycles, and returns the total
// cycles. In a fold, PE (r, q) performs its MACs in [start+r+q,
// start+r+q+T) (operands skewed by one cycle per row and column), and the
// fold completes one cycle after its last MAC, at start+T+R+C-1.
func forEachFold(d GEMMDims, p int, df Dataflow, mode FoldMode, f func(foldSpan)) int64 {
	rows, cols, t := foldShape(d, df)
	preload := int64(0)
	var at, end int64
	for r0 := 0; r0 < rows; r0 += p {
		for c0 := 0; c0 < cols; c0 += p {
			fs := foldSpan{rows: min(p, rows-r0), cols: min(p, cols-c0)}
			if mode == Separate {
				if df != NS {
					preload = int64(fs.rows)
				}
				fs.start = end + preload
			} else {
				fs.start = at
			}
			if f != nil {
				f(fs)
			}
			done := fs.start + int64(t) + int64(fs.rows) + int64(fs.cols) - 1
			end = max(end, done)
			at += int64(t)
		}
	}
	return end
}

// SystolicCycles returns the cycles of a GEMM without building the
// timeline. It allocates nothing; cost O(folds).
func SystolicCycles(d GEMMDims, p int, df Dataflow, mode FoldMode) int64 {
	return forEachFold(d, p, df, mode, nil)
}

// SimulateGEMM runs the fold-level cycle simulation of one GEMM on a P x P
// array and records per-row occupancy. In Streamed mode it equals Eq. 5
// whenever the last fold fills the array (its spatial dimensions are
// multiples of P) or, more generally, when no earlier fold finishes later;
// otherwise it is smaller, since Eq. 5 charges a full 2P-1 drain.
// StepGEMM is the register-level reference it is tested against.
func SimulateGEMM(d GEMMDims, p int, df Dataflow, mode FoldMode) (SystolicResult, error) {
	if err := CheckSystolic(d, p); err != nil {
		return SystolicResult{}, err
	}
	_, _, t := foldShape(d, df)
	tl := NewTimeline(p)
	for r := range p {
		tl.Stages[r].Name = fmt.Sprintf("row%d", r)
	}
	folds := 0
	cycles := forEachFold(d, p, df, mode, func(fs foldSpan) {
		folds++
		for r := range fs.rows {
			s := fs.start + int64(r)
			tl.Stages[r].Mark(s, s+int64(fs.cols-1)+int64(t))
		}
	})
	tl.Close(cycles)
	macs := d.MACs()
	return SystolicResult{
		Dims: d, P: p, Dataflow: df, Mode: mode, Cycles: cycles, Folds: folds, MACs: macs,
		Utilization: float64(macs) / (float64(p) * float64(p) * float64(cycles)),
		Eq5:         Eq5Cycles(d, p, df), Timeline: tl,
	}, nil
}
