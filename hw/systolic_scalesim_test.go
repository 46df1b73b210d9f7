package hw

import (
	"fmt"
	"testing"
)

// scaleSimRule is SCALE-Sim v2's compute-cycle count written from its
// published rule, in its own GEMM terms (M ofmap pixels = batch, N filters =
// output features, K window = reduction) and dataflow names, independent of
// foldShape: the array is tiled into Sr x Sc folds of P x P that stream T
// cycles each; every fold, partial or not, lasts T + 2P - 2 (os) or
// T + 3P - 2 (ws, is: the stationary block is preloaded first); the report
// is the sum minus 1.
func scaleSimRule(m, n, k, p int, dataflow string) int64 {
	var sr, sc, t int
	switch dataflow {
	case "os":
		sr, sc, t = m, n, k
	case "ws":
		sr, sc, t = k, n, m
	case "is":
		sr, sc, t = k, m, n
	default:
		panic(dataflow)
	}
	var sum int64
	for r0 := 0; r0 < sr; r0 += p {
		for c0 := 0; c0 < sc; c0 += p {
			// Padded: the rows and columns this fold leaves unused,
			// p-min(p, sr-r0) and p-min(p, sc-c0), still cost their cycles.
			fold := t + 2*p - 2
			if dataflow != "os" {
				fold += p
			}
			sum += int64(fold)
		}
	}
	return sum - 1
}

// scaleSimName is SCALE-Sim's name of a dataflow.
func scaleSimName(df Dataflow) string {
	return map[Dataflow]string{NS: "os", WS: "ws", IS: "is"}[df]
}

// ppo003GEMMs returns the GEMMs of 003's MLPs (Hopper 11-64-64-3, Humanoid
// 376-128-64-17) for a batch: each layer's forward pass, its backward pass
// to the input (layers 2..n) and its weight update, in the shapes 003's
// Eq. 6 charges (see core/dse's gemmPhase).
func ppo003GEMMs(batch int) map[string]GEMMDims {
	out := map[string]GEMMDims{}
	for _, net := range []struct {
		name  string
		sizes []int
	}{{"Hopper", []int{11, 64, 64, 3}}, {"Humanoid", []int{376, 128, 64, 17}}} {
		for i := 1; i < len(net.sizes); i++ {
			g := Layer{Kind: Dense, In: net.sizes[i-1], Out: net.sizes[i]}.GEMM(batch)
			name := fmt.Sprintf("%s/L%d(%d->%d)/B%d", net.name, i, net.sizes[i-1], net.sizes[i], batch)
			out[name+"/FW"] = g
			if i > 1 {
				out[name+"/BW"] = GEMMDims{A: g.B, B: g.A, C: g.C}
			}
			out[name+"/WU"] = GEMMDims{A: g.A, B: g.C, C: g.B}
		}
	}
	return out
}

// TestScaleSim003Layers compares the ScaleSim mode, its closed form and the
// rule above on every GEMM of 003's Hopper and Humanoid MLPs at P = 16 and
// 32 in the three dataflows, for the inference batch (N = 16) and the
// smallest and largest minibatch of 003 Table 2 (M = 64, 512). On the same
// GEMMs the streamed folds stay within Eq. 5.
func TestScaleSim003Layers(t *testing.T) {
	for _, batch := range []int{16, 64, 512} {
		for name, d := range ppo003GEMMs(batch) {
			for _, p := range []int{16, 32} {
				for _, df := range Dataflows {
					want := scaleSimRule(d.C, d.A, d.B, p, scaleSimName(df))
					r, err := SimulateGEMM(d, p, df, ScaleSim)
					if err != nil {
						t.Fatal(err)
					}
					if r.Cycles != want || ScaleSimCycles(d, p, df) != want || SystolicCycles(d, p, df, ScaleSim) != want {
						t.Errorf("%s %s P=%d %s: SimulateGEMM %d, ScaleSimCycles %d, rule %d",
							name, d, p, df, r.Cycles, ScaleSimCycles(d, p, df), want)
					}
					if r.Utilization <= 0 || r.Utilization > 1 || r.Timeline.Cycles != r.Cycles+1 {
						t.Errorf("%s P=%d %s: utilization %v over %d timeline cycles", name, p, df, r.Utilization, r.Timeline.Cycles)
					}
					if s := SystolicCycles(d, p, df, Streamed); s > Eq5Cycles(d, p, df) {
						t.Errorf("%s P=%d %s: streamed %d > Eq. 5 %d", name, p, df, s, Eq5Cycles(d, p, df))
					}
				}
			}
		}
	}
}

// TestScaleSimPadsPartialFolds pins counts of GEMMs whose folds leave rows
// or columns of the array unused: SCALE-Sim charges them as full folds.
// Charging only the used rows and columns (R + C - 2 instead of 2P - 2, a
// preload of R instead of P) gives the smaller figure beside each.
func TestScaleSimPadsPartialFolds(t *testing.T) {
	for _, tt := range []struct {
		d        GEMMDims
		p        int
		df       Dataflow
		want     int64
		unpadded int64
	}{
		// Hopper 11 -> 64 at batch 64, WS: 1 x 4 folds of 11 used rows,
		// T = 64: 4 (64 + 48 - 2) - 1 = 439; unpadded 4 (11 + 64 + 11 + 16 - 2) - 1.
		{GEMMDims{A: 64, B: 11, C: 64}, 16, WS, 439, 399},
		// Hopper 64 -> 3 at batch 64, NS: 1 x 4 folds of 3 used rows,
		// T = 64: 4 (64 + 30) - 1 = 375; unpadded 4 (64 + 3 + 16 - 2) - 1.
		{GEMMDims{A: 3, B: 64, C: 64}, 16, NS, 375, 323},
		// Humanoid 376 -> 128 at batch 64, IS on 32 x 32: 12 x 2 folds, the
		// last row block 24 rows, T = 128: 24 (128 + 94) - 1 = 5327;
		// unpadded 22 (32 + 128 + 62) + 2 (24 + 128 + 24 + 32 - 2) - 1.
		{GEMMDims{A: 128, B: 376, C: 64}, 32, IS, 5327, 5295},
	} {
		r, err := SimulateGEMM(tt.d, tt.p, tt.df, ScaleSim)
		if err != nil {
			t.Fatal(err)
		}
		if r.Cycles != tt.want || ScaleSimCycles(tt.d, tt.p, tt.df) != tt.want {
			t.Errorf("%s P=%d %s: %d cycles (closed form %d), want %d padded (%d would drop the padding)",
				tt.d, tt.p, tt.df, r.Cycles, ScaleSimCycles(tt.d, tt.p, tt.df), tt.want, tt.unpadded)
		}
		// Padding costs time, not work: rows no fold uses stay idle.
		rows, _, _ := foldShape(tt.d, tt.df)
		if rows < tt.p && r.Timeline.Stages[rows].BusyCycles != 0 {
			t.Errorf("%s P=%d %s: padded row %d busy %d cycles", tt.d, tt.p, tt.df, rows, r.Timeline.Stages[rows].BusyCycles)
		}
	}
}

func ExampleScaleSimCycles() {
	// The Hopper hidden layer of ExampleSimulateGEMM as SCALE-Sim v2
	// counts it: 16 folds of 64 + 3 x 16 - 2 cycles, minus 1; PPOAccel's
	// streamed folds take 1055.
	fmt.Println(ScaleSimCycles(GEMMDims{A: 64, B: 64, C: 64}, 16, WS))
	// Output:
	// 1759
}
