package hw

import "fmt"

// GEMMDims are the dimensions of one GEMM in the convention of 003 Eq. 5:
// a weight matrix of A x B times an input matrix of B x C. For a layer,
// A = output features, B = reduction length (In x Kernel^2), C = batch x
// output pixels. Swapping A and C leaves NS unchanged but exchanges the WS
// and IS counts, so keep the order.
type GEMMDims struct {
	A, B, C int
}

// MACs returns A*B*C.
func (d GEMMDims) MACs() int64 { return int64(d.A) * int64(d.B) * int64(d.C) }

// String returns "AxBxC".
func (d GEMMDims) String() string { return fmt.Sprintf("%dx%dx%d", d.A, d.B, d.C) }

// Dataflow is a systolic-array dataflow of 003 §3.2.2.1.
type Dataflow uint8

// Dataflows: non-stationary (output stationary), weight stationary, input
// stationary.
const (
	NS Dataflow = iota
	WS
	IS
	NumDataflows = 3
)

// Dataflows lists every dataflow.
var Dataflows = [NumDataflows]Dataflow{NS, WS, IS}

// String returns "NS", "WS" or "IS".
func (d Dataflow) String() string {
	switch d {
	case NS:
		return "NS"
	case WS:
		return "WS"
	case IS:
		return "IS"
	}
	return fmt.Sprintf("Dataflow(%d)", uint8(d))
}

// ParseDataflow parses "ns", "ws" or "is" (either case).
func ParseDataflow(s string) (Dataflow, error) {
	switch s {
	case "ns", "NS", "os", "OS":
		return NS, nil
	case "ws", "WS":
		return WS, nil
	case "is", "IS":
		return IS, nil
	}
	return 0, fmt.Errorf("dataflow %q is not known: use ns, ws or is", s)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// foldShape returns, for a dataflow, the two GEMM dimensions laid out
// spatially on the array (rows, cols) and the one streamed in time.
//
//	NS: rows = A (outputs), cols = C (outputs), time = B.
//	WS: rows = B (weight rows held), cols = A, time = C.
//	IS: rows = B (input rows held), cols = C, time = A.
func foldShape(d GEMMDims, df Dataflow) (rows, cols, time int) {
	switch df {
	case WS:
		return d.B, d.A, d.C
	case IS:
		return d.B, d.C, d.A
	default:
		return d.A, d.C, d.B
	}
}

// Folds returns how many P x P tiles (passes) the GEMM needs under df.
func Folds(d GEMMDims, p int, df Dataflow) int {
	r, c, _ := foldShape(d, df)
	return ceilDiv(r, p) * ceilDiv(c, p)
}

// Eq5Cycles returns 003 Eq. 5, the cycles of one GEMM on a P x P array:
//
//	NS: ceil(a/P) ceil(c/P) b + 2P - 1
//	WS: ceil(b/P) ceil(a/P) c + 2P - 1
//	IS: ceil(b/P) ceil(c/P) a + 2P - 1
//
// It counts folds streamed back to back, one fill and one drain of 2P-1
// cycles for the whole GEMM. It is exact when the last fold fills the
// array (see SimulateGEMM).
func Eq5Cycles(d GEMMDims, p int, df Dataflow) int64 {
	_, _, t := foldShape(d, df)
	return int64(Folds(d, p, df))*int64(t) + int64(2*p-1)
}

// ScaleSimCycles returns the compute cycles SCALE-Sim v2 reports for one
// GEMM on a P x P array with ample memory (no stalls), so that rlx can be
// checked against that simulator's figures:
//
//	NS (its "os"): ceil(a/P) ceil(c/P) (b + 2P - 2) - 1
//	WS (its "ws"): ceil(b/P) ceil(a/P) (c + 3P - 2) - 1
//	IS (its "is"): ceil(b/P) ceil(c/P) (a + 3P - 2) - 1
//
// SCALE-Sim runs the folds one after another and gives each the whole
// array: a fold lasts T + 2P - 2 demand cycles (operands skewed in over P-1
// cycles, streamed for T, results out over P-1), WS and IS add P cycles to
// preload the stationary block, and a partial fold is padded to P rows and
// P columns, so it costs as much as a full one. Its report is the cycle
// index of the last demand, one less than their number. T, the streamed
// dimension, is b (the reduction) for NS, c (batch x pixels) for WS and a
// (output features) for IS; in its GEMM terms (M, N, K) = (c, a, b).
func ScaleSimCycles(d GEMMDims, p int, df Dataflow) int64 {
	_, _, t := foldShape(d, df)
	fold := int64(t) + 2*int64(p) - 2
	if df != NS {
		fold += int64(p) // the preload of the stationary block
	}
	return int64(Folds(d, p, df))*fold - 1
}
