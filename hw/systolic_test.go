package hw

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// naiveGEMM is the reference product W (a x b) times X (b x c).
func naiveGEMM(d GEMMDims, w, x []float64) []float64 {
	out := make([]float64, d.A*d.C)
	for i := range d.A {
		for j := range d.C {
			s := 0.0
			for k := range d.B {
				s += w[i*d.B+k] * x[k*d.C+j]
			}
			out[i*d.C+j] = s
		}
	}
	return out
}

func randMatrix(rng *rand.Rand, n int) []float64 {
	m := make([]float64, n)
	for i := range m {
		m[i] = float64(rng.IntN(9) - 4) // small integers: sums are exact
	}
	return m
}

// checkAgainstStepper runs the register-level stepper and the fold-level
// simulation and compares product, cycles and per-row occupancy.
func checkAgainstStepper(t *testing.T, d GEMMDims, p int, df Dataflow, mode FoldMode, rng *rand.Rand) SystolicResult {
	t.Helper()
	w, x := randMatrix(rng, d.A*d.B), randMatrix(rng, d.B*d.C)
	cycles, out, tl := StepGEMM(d, p, df, mode, w, x)
	want := naiveGEMM(d, w, x)
	for i := range want {
		if out[i] != want[i] {
			t.Fatalf("%s P=%d %s %s: out[%d] = %v, want %v", d, p, df, mode, i, out[i], want[i])
		}
	}
	r, err := SimulateGEMM(d, p, df, mode)
	if err != nil {
		t.Fatal(err)
	}
	if mode == ScaleSim {
		// SCALE-Sim writes results in the cycle of the last MAC and reports
		// one less than its cycles; the stepper writes the cycle after and
		// counts one past the write. A padded last fold ends early.
		rows, cols, _ := foldShape(d, df)
		full := rows%p == 0 && cols%p == 0
		if full && cycles != r.Cycles+2 || !full && cycles > r.Cycles+2 {
			t.Fatalf("%s P=%d %s %s: SimulateGEMM %d cycles, stepper %d (full last fold: %v)", d, p, df, mode, r.Cycles, cycles, full)
		}
	} else if r.Cycles != cycles {
		t.Fatalf("%s P=%d %s %s: SimulateGEMM %d cycles, stepper %d", d, p, df, mode, r.Cycles, cycles)
	}
	var macs int64
	for i := range tl.Stages {
		if got, want := r.Timeline.Stages[i].BusyCycles, tl.Stages[i].BusyCycles; got != want {
			t.Fatalf("%s P=%d %s %s row %d: busy %d cycles, stepper %d", d, p, df, mode, i, got, want)
		}
		macs += tl.Stages[i].BusyCycles
	}
	if r.Cycles != SystolicCycles(d, p, df, mode) {
		t.Fatalf("SystolicCycles disagrees with SimulateGEMM")
	}
	return r
}

func TestSystolicMatchesStepperTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		d GEMMDims
		p int
	}{
		{GEMMDims{1, 1, 1}, 1}, {GEMMDims{4, 4, 4}, 4}, {GEMMDims{8, 3, 8}, 4},
		{GEMMDims{5, 7, 3}, 4}, {GEMMDims{3, 2, 9}, 2}, {GEMMDims{16, 5, 4}, 8},
	}
	for _, tt := range tests {
		for _, df := range Dataflows {
			for _, mode := range []FoldMode{Streamed, Separate, ScaleSim} {
				t.Run(fmt.Sprintf("%s/P%d/%s/%s", tt.d, tt.p, df, mode), func(t *testing.T) {
					checkAgainstStepper(t, tt.d, tt.p, df, mode, rng)
				})
			}
		}
	}
}

// FuzzSystolic checks, for random GEMMs, that the fold-level simulation
// matches the register-level stepper (which also computes the right
// product), that streamed folds equal Eq. 5 when the spatial dimensions are
// multiples of P and never exceed it, that separate folds never beat
// streamed ones, and that the SCALE-Sim count equals its closed form and
// differs from separate folds by exactly folds + 1 only when no fold is
// partial (padding makes it larger otherwise).
func FuzzSystolic(f *testing.F) {
	f.Add(uint8(5), uint8(7), uint8(3), uint8(4), uint8(0), uint64(1))
	f.Add(uint8(16), uint8(16), uint8(16), uint8(8), uint8(1), uint64(2))
	f.Add(uint8(1), uint8(30), uint8(2), uint8(3), uint8(2), uint64(3))
	f.Fuzz(func(t *testing.T, a, b, c, p, df uint8, seed uint64) {
		d := GEMMDims{A: 1 + int(a)%24, B: 1 + int(b)%24, C: 1 + int(c)%24}
		pp := 1 + int(p)%8
		flow := Dataflows[int(df)%NumDataflows]
		rng := rand.New(rand.NewPCG(seed, 7))
		s := checkAgainstStepper(t, d, pp, flow, Streamed, rng)
		sep := checkAgainstStepper(t, d, pp, flow, Separate, rng)
		sc := checkAgainstStepper(t, d, pp, flow, ScaleSim, rng)
		if want := ScaleSimCycles(d, pp, flow); sc.Cycles != want {
			t.Fatalf("%s P=%d %s: scalesim %d cycles, closed form %d", d, pp, flow, sc.Cycles, want)
		}
		if s.Cycles > s.Eq5 {
			t.Fatalf("%s P=%d %s: streamed %d cycles exceed Eq. 5 %d", d, pp, flow, s.Cycles, s.Eq5)
		}
		rows, cols, _ := foldShape(d, flow)
		if rows%pp == 0 && cols%pp == 0 && s.Cycles != s.Eq5 {
			t.Fatalf("%s P=%d %s: full folds but %d cycles != Eq. 5 %d", d, pp, flow, s.Cycles, s.Eq5)
		}
		gap := sc.Cycles + int64(sc.Folds) + 1 - sep.Cycles
		if full := rows%pp == 0 && cols%pp == 0; gap < 0 || full != (gap == 0) {
			t.Fatalf("%s P=%d %s: scalesim %d + folds %d + 1 vs separate %d (full folds: %v)", d, pp, flow, sc.Cycles, sc.Folds, sep.Cycles, full)
		}
		if sep.Cycles < s.Cycles {
			t.Fatalf("%s P=%d %s: separate folds %d < streamed %d", d, pp, flow, sep.Cycles, s.Cycles)
		}
		if s.Folds != Folds(d, pp, flow) {
			t.Fatalf("folds %d != %d", s.Folds, Folds(d, pp, flow))
		}
	})
}

// TestEq5ExactOnFullFolds checks Eq. 5 against the fast simulation on
// larger GEMMs whose spatial dimensions fill the array.
func TestEq5ExactOnFullFolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 2000 {
		p := 1 << rng.IntN(6)
		df := Dataflows[rng.IntN(3)]
		d := GEMMDims{A: 1 + rng.IntN(300), B: 1 + rng.IntN(300), C: 1 + rng.IntN(300)}
		switch df { // make the spatial dimensions multiples of P
		case NS:
			d.A, d.C = p*ceilDiv(d.A, p), p*ceilDiv(d.C, p)
		case WS:
			d.B, d.A = p*ceilDiv(d.B, p), p*ceilDiv(d.A, p)
		case IS:
			d.B, d.C = p*ceilDiv(d.B, p), p*ceilDiv(d.C, p)
		}
		if got, want := SystolicCycles(d, p, df, Streamed), Eq5Cycles(d, p, df); got != want {
			t.Fatalf("%s P=%d %s: %d cycles, Eq. 5 %d", d, p, df, got, want)
		}
	}
}

// TestDimensionOrder pins the a/b/c convention: WS and IS differ when a and
// c are swapped, NS does not.
func TestDimensionOrder(t *testing.T) {
	d := GEMMDims{A: 64, B: 256, C: 8}
	s := GEMMDims{A: 8, B: 256, C: 64}
	if Eq5Cycles(d, 16, NS) != Eq5Cycles(s, 16, NS) {
		t.Error("NS must not depend on the order of a and c")
	}
	if Eq5Cycles(d, 16, WS) != Eq5Cycles(s, 16, IS) || Eq5Cycles(d, 16, WS) == Eq5Cycles(d, 16, IS) {
		t.Error("swapping a and c must exchange WS and IS")
	}
	// A dense layer of 11 -> 64 at batch 32: a = 64 outputs, b = 11, c = 32.
	l := Layer{Kind: Dense, In: 11, Out: 64}
	if g := l.GEMM(32); g != (GEMMDims{A: 64, B: 11, C: 32}) {
		t.Errorf("Layer.GEMM = %v, want 64x11x32", g)
	}
}

func TestCheckSystolicRejects(t *testing.T) {
	for _, tt := range []struct {
		d GEMMDims
		p int
	}{{GEMMDims{0, 1, 1}, 4}, {GEMMDims{1, -3, 1}, 4}, {GEMMDims{1, 1, 1}, 0}, {GEMMDims{1, 1, 1}, 5000}} {
		if _, err := SimulateGEMM(tt.d, tt.p, NS, Streamed); err == nil {
			t.Errorf("%v P=%d: no error", tt.d, tt.p)
		}
	}
}

func ExampleSimulateGEMM() {
	// A Hopper hidden layer (64 -> 64) on a 16 x 16 array for a batch of
	// 64: weight a x b = 64 x 64, input b x c = 64 x 64.
	r, _ := SimulateGEMM(GEMMDims{A: 64, B: 64, C: 64}, 16, WS, Streamed)
	fmt.Println(r.Cycles, r.Eq5, r.Folds)
	fmt.Printf("%.3f\n", r.Utilization)
	// Output:
	// 1055 1055 16
	// 0.971
}

func BenchmarkSimulateGEMM(b *testing.B) {
	for _, d := range []GEMMDims{{64, 64, 64}, {512, 3136, 256}} {
		b.Run(d.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SimulateGEMM(d, 32, NS, Streamed)
			}
		})
	}
}

func BenchmarkSystolicCycles(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		SystolicCycles(GEMMDims{512, 3136, 256}, 32, WS, Streamed)
	}
}

// TestSystolicCyclesIsTheFoldWalk holds SystolicCycles's closed form to
// the fold-by-fold schedule of forEachFold (which SimulateGEMM and the
// register-level stepper check) over every mode and dataflow, with full
// and partial folds in both directions and single-fold rows and columns.
func TestSystolicCyclesIsTheFoldWalk(t *testing.T) {
	dims := []int{1, 2, 3, 7, 8, 9, 16, 17, 31, 64, 65}
	for _, p := range []int{1, 2, 4, 8} {
		for _, a := range dims {
			for _, b := range dims {
				for _, c := range dims {
					d := GEMMDims{A: a, B: b, C: c}
					for _, df := range []Dataflow{NS, WS, IS} {
						for _, mode := range []FoldMode{Streamed, Separate, ScaleSim} {
							if got, want := SystolicCycles(d, p, df, mode), forEachFold(d, p, df, mode, nil); got != want {
								t.Fatalf("SystolicCycles(%v, P=%d, %v, %v) = %d, the fold walk %d", d, p, df, mode, got, want)
							}
						}
					}
				}
			}
		}
	}
}

// TestCheckSystolicRefusesHugeGEMMs: three dimensions of 2^22 are 2^66
// MACs, which overflow int64; the check must refuse them, not pass a
// wrapped product and simulate for hours.
func TestCheckSystolicRefusesHugeGEMMs(t *testing.T) {
	for _, d := range []GEMMDims{{A: 1 << 22, B: 1 << 22, C: 1 << 22}, {A: 1 << 22, B: 1 << 20, C: 1 << 2}} {
		if err := CheckSystolic(d, 16); err == nil {
			t.Errorf("CheckSystolic(%v) = nil, want the 2^40 MAC bound", d)
		}
	}
	if err := CheckSystolic(GEMMDims{A: 1 << 20, B: 1 << 20, C: 1}, 16); err != nil {
		t.Errorf("2^40 MACs exactly: %v", err)
	}
}
