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
	// starts. A partial fold is charged only the rows and columns it uses.
	Separate
	// ScaleSim counts as SCALE-Sim v2 does, so its figures can be compared
	// with rlx's: folds run one after another as in Separate, but each is
	// padded to the whole array (a partial fold costs as much as a full
	// one), its results leave in the cycle of the last MAC rather than the
	// next, and the total is reported minus 1. Closed form: ScaleSimCycles.
	ScaleSim
)

// String returns "streamed", "separate" or "scalesim".
func (m FoldMode) String() string {
	switch m {
	case Separate:
		return "separate"
	case ScaleSim:
		return "scalesim"
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
	// Utilization is MACs / (P^2 x Timeline.Cycles), the share of the
	// PE-cycles the GEMM holds the array.
	Utilization float64
	// Eq5 is 003 Eq. 5 for the same GEMM.
	Eq5 int64
	// Timeline has one stage per PE row: the cycles in which any PE of the
	// row performs a MAC. It spans Cycles, except in ScaleSim mode, where
	// it spans Cycles + 1: SCALE-Sim's demand cycles, whose last one holds
	// the last MAC while its report stops one short.
	Timeline Timeline
}

// The largest GEMM dimension and array edge CheckSystolic accepts; the
// least is 1.
const (
	MaxGEMMDim   = 1 << 22
	MaxArrayEdge = 1024
)

// CheckSystolic validates GEMM dimensions and the array edge.
func CheckSystolic(d GEMMDims, p int) error {
	for _, v := range []struct {
		name string
		n    int
	}{{"a (output features)", d.A}, {"b (reduction)", d.B}, {"c (batch x pixels)", d.C}} {
		if v.n < 1 || v.n > MaxGEMMDim {
			return fmt.Errorf("GEMM dimension %s = %d is out of range: must be 1..%d", v.name, v.n, MaxGEMMDim)
		}
	}
	if p < 1 || p > MaxArrayEdge {
		return fmt.Errorf("array size P = %d is out of range: must be 1..%d", p, MaxArrayEdge)
	}
	// Compared by division: with every dimension up to 2^22 the product
	// (up to 2^66) overflows int64.
	if int64(d.A)*int64(d.B) > (1<<40)/int64(d.C) {
		return fmt.Errorf("GEMM %s has %.3g MACs: at most 2^40 are simulated", d, float64(d.A)*float64(d.B)*float64(d.C))
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
// fold completes one cycle after its last MAC, at start+T+R+C-1, with R
// and C its rows and columns. ScaleSim runs Separate's schedule on folds
// padded to the whole array (R = C = P, a preload of P rows for WS and
// IS), completes each in the cycle of its last MAC and reports the total
// minus 1, as SCALE-Sim does; ScaleSimCycles is its closed form.
func forEachFold(d GEMMDims, p int, df Dataflow, mode FoldMode, f func(foldSpan)) int64 {
	rows, cols, t := foldShape(d, df)
	var at, end int64
	for r0 := 0; r0 < rows; r0 += p {
		for c0 := 0; c0 < cols; c0 += p {
			fs := foldSpan{rows: min(p, rows-r0), cols: min(p, cols-c0)}
			// The rows and columns the fold holds: those it uses, or the
			// whole array when padded.
			hr, hc := fs.rows, fs.cols
			if mode == ScaleSim {
				hr, hc = p, p
			}
			switch {
			case mode == Streamed:
				fs.start = at
			case df != NS:
				fs.start = end + int64(hr) // preload the stationary block
			default:
				fs.start = end
			}
			if f != nil {
				f(fs)
			}
			done := fs.start + int64(t) + int64(hr) + int64(hc) - 1
			if mode == ScaleSim {
				done-- // results leave in the cycle of the last MAC
			}
			end = max(end, done)
			at += int64(t)
		}
	}
	if mode == ScaleSim {
		return end - 1 // SCALE-Sim reports the index of its last cycle
	}
	return end
}

// SystolicCycles returns the cycles of a GEMM without building the
// timeline: forEachFold's total in closed form (a test holds the two
// equal). It allocates nothing; cost O(1), where the fold walk is
// O(folds), which the DSE's Pong im2col GEMMs make tens of thousands.
func SystolicCycles(d GEMMDims, p int, df Dataflow, mode FoldMode) int64 {
	rows, cols, t := foldShape(d, df)
	if rows < 1 || cols < 1 || p < 1 {
		return 0
	}
	if mode == ScaleSim {
		return ScaleSimCycles(d, p, df)
	}
	// nr x nc folds; the last row block holds pr rows, the last column
	// block pc columns, every other block p.
	nr, nc := int64(ceilDiv(rows, p)), int64(ceilDiv(cols, p))
	pr, pc := int64(rows)-(nr-1)*int64(p), int64(cols)-(nc-1)*int64(p)
	P, T := int64(p), int64(t)
	if mode == Streamed {
		// Fold i starts at i T and completes at (i+1) T + R_i + C_i - 1.
		// Within each of the four classes of (R_i, C_i) the completion
		// grows with i, so the last fold of each class is a candidate.
		done := func(ri, ci, r, c int64) int64 { return (ri*nc+ci+1)*T + r + c - 1 }
		end := done(nr-1, nc-1, pr, pc)
		if nc > 1 {
			end = max(end, done(nr-1, nc-2, pr, P))
		}
		if nr > 1 {
			end = max(end, done(nr-2, nc-1, P, pc))
		}
		if nr > 1 && nc > 1 {
			end = max(end, done(nr-2, nc-2, P, P))
		}
		return end
	}
	// Separate: each fold starts when the previous one has completed,
	// after its preload of R rows (WS, IS), and takes T + R + C - 1 cycles,
	// so the total is a sum.
	n := nr * nc
	sumR := (nr-1)*nc*P + nc*pr
	sumC := (nc-1)*nr*P + nr*pc
	preload := int64(0)
	if df != NS {
		preload = sumR
	}
	return n*(T-1) + preload + sumR + sumC
}

// SimulateGEMM runs the fold-level cycle simulation of one GEMM on a P x P
// array and records per-row occupancy. In Streamed mode it equals Eq. 5
// whenever the last fold fills the array (its spatial dimensions are
// multiples of P) or, more generally, when no earlier fold finishes later;
// otherwise it is smaller, since Eq. 5 charges a full 2P-1 drain. In
// ScaleSim mode it equals ScaleSimCycles. StepGEMM is the register-level
// reference it is tested against.
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
	span := cycles
	if mode == ScaleSim {
		span++ // the demand cycles SCALE-Sim counts before its minus 1
	}
	tl.Close(span)
	macs := d.MACs()
	return SystolicResult{
		Dims: d, P: p, Dataflow: df, Mode: mode, Cycles: cycles, Folds: folds, MACs: macs,
		Utilization: float64(macs) / (float64(p) * float64(p) * float64(span)),
		Eq5:         Eq5Cycles(d, p, df), Timeline: tl,
	}, nil
}
