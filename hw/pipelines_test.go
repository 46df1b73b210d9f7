package hw

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestRMMSimMatchesClosedForm(t *testing.T) {
	for _, s := range []int{1, 2, 8, 32} {
		for _, b := range []int{1, 7, 32, 100, 2048} {
			for _, sampler := range []bool{true, false} {
				d := RMMDesign{S: s, H: 20, Fanout: 2}
				r, err := SimulateRMM(d, RoundRobinBanks(b, s), 4, sampler)
				if err != nil {
					t.Fatal(err)
				}
				if r.Cycles != r.Closed {
					t.Errorf("S=%d B=%d sampler=%v: %d cycles, closed form %d", s, b, sampler, r.Cycles, r.Closed)
				}
				var busy int64
				for i := range r.Timeline.Stages {
					busy += r.Timeline.Stages[i].BusyCycles
				}
				per := int64(1)
				if sampler {
					per = 2
				}
				if want := int64(b) * int64(d.H) * per; busy != want {
					t.Errorf("S=%d B=%d: %d busy stage-cycles, want B x H x service = %d", s, b, busy, want)
				}
			}
		}
	}
}

// TestRMMSimImbalance: requests that crowd into some banks take longer
// than the balanced closed form, never less.
func TestRMMSimImbalance(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	d := RMMDesign{S: 8, H: 12, Fanout: 4}
	for range 50 {
		b := 1 + rng.IntN(500)
		banks := make([]int, b)
		for i := range banks {
			banks[i] = rng.IntN(d.S)
		}
		r, err := SimulateRMM(d, banks, 1+rng.IntN(8), true)
		if err != nil {
			t.Fatal(err)
		}
		counts := make([]int, d.S)
		for _, x := range banks {
			counts[x]++
		}
		most := 0
		for _, c := range counts {
			most = max(most, c)
		}
		lower := int64(most+d.H-1) * int64(d.Fanout)
		if r.Cycles < r.Closed || r.Cycles < lower {
			t.Fatalf("B=%d: %d cycles below the bounds %d (balanced) / %d (fullest bank)", b, r.Cycles, r.Closed, lower)
		}
	}
}

func TestSimulateRMMRejects(t *testing.T) {
	d := RMMDesign{S: 4, H: 3, Fanout: 2}
	if _, err := SimulateRMM(d, []int{0, 4}, 2, true); err == nil {
		t.Error("bank 4 of 4 accepted")
	}
	if _, err := SimulateRMM(d, []int{0}, 0, true); err == nil {
		t.Error("FIFO depth 0 accepted")
	}
}

func TestLearnerSimMatchesClosedForm(t *testing.T) {
	w := Workload{Name: "t", Batch: 64, Capacity: 1024, Fanout: 2, Actors: 4, DataPointBytes: 16,
		Nets: []Net{{Name: "q", Layers: []Layer{{Kind: Dense, In: 4, Out: 16}, {Kind: Dense, In: 16, Out: 2}}, FW: 1, BW: 1, WA: 1}}}
	spec := &FPGASpec{DSPPerMAC: 5, DSPPerAdd: 2, FAddLatencyCycles: 4}
	st := LearnerStages(&w)
	if len(st) != 3*len(w.Nets[0].Layers) {
		t.Fatalf("%d stages for a 2-layer net, want n = 3L = 6 (000 §IV-B3)", len(st))
	}
	names := make([]string, len(st))
	for i, s := range st {
		names[i] = s.Name
	}
	for _, dp := range []int{1, 2, 4} {
		for _, f := range []float64{0.05, 0.5, 3} {
			d := NewLearnerDesign(spec, &w, st, w.Batch, dp, f)
			tl := SimulateLearner(&d, w.Batch, names)
			if tl.Cycles != d.CyclesFor(w.Batch) || tl.Cycles != d.Cycles() {
				t.Errorf("DP=%d f=%g: simulated %d cycles, closed form %d", dp, f, tl.Cycles, d.Cycles())
			}
			for i := range st {
				if want := int64(d.PI) * d.StageCycles[i]; tl.Stages[i].BusyCycles != want {
					t.Errorf("stage %s busy %d, want PI x T_i = %d", st[i].Name, tl.Stages[i].BusyCycles, want)
				}
			}
		}
	}
}

func TestGAEInterval(t *testing.T) {
	for _, tt := range []struct{ k, loop, want int }{{1, 2, 2}, {2, 2, 1}, {3, 2, 1}, {1, 3, 3}, {2, 3, 2}, {3, 3, 1}} {
		if got := GAEInterval(tt.k, tt.loop); got != tt.want {
			t.Errorf("GAEInterval(k=%d, loop=%d) = %d, want %d", tt.k, tt.loop, got, tt.want)
		}
	}
}

func TestGAESimMatchesClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for range 200 {
		tt, n, p, k := 1+rng.IntN(64), 1+rng.IntN(40), 1+rng.IntN(16), 1+rng.IntN(4)
		r, err := SimulateGAE(tt, n, p, k, 2)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := GAECycles(tt, n, p, k, 2)
		if r.Cycles != c {
			t.Fatalf("T=%d N=%d P=%d k=%d: simulated %d, closed %d", tt, n, p, k, r.Cycles, c)
		}
		var busy int64
		for i := range r.Timeline.Stages {
			busy += r.Timeline.Stages[i].BusyCycles
		}
		if busy != int64(tt*n) {
			t.Fatalf("PEs issued %d elements, want %d", busy, tt*n)
		}
	}
	if _, err := SimulateGAE(0, 1, 1, 1, 2); err == nil {
		t.Error("T = 0 accepted")
	}
}

// TestGAEResourcesQuadratic: 004 Fig. 11 reports resources quadratic in k.
func TestGAEResourcesQuadratic(t *testing.T) {
	spec := &FPGASpec{GAEPEDSP: 12, GAEPELUT: 201, GAEPEFF: 849}
	r2, r4 := GAEPEResources(spec, 2), GAEPEResources(spec, 4)
	if r4.DSP != 4*r2.DSP || r4.LUT != 4*r2.LUT {
		t.Errorf("k=4 uses %+v, want 4x k=2 %+v", r4, r2)
	}
	// 004 Table IV: 64 PEs at k = 2 use 768 DSP, 12864 LUT.
	if 64*r2.DSP != 768 || 64*r2.LUT != 12864 {
		t.Errorf("64 PEs: %d DSP %d LUT", 64*r2.DSP, 64*r2.LUT)
	}
}

func ExampleSimulateGAE() {
	// 004's setup: 64 trajectories of 1024 steps on 64 PEs.
	for _, k := range []int{1, 2} {
		r, _ := SimulateGAE(1024, 64, 64, k, 2)
		fmt.Printf("k=%d: %d cycles, %.2f elements/cycle\n", k, r.Cycles, r.ElementsPerCycle)
	}
	// Output:
	// k=1: 2052 cycles, 31.94 elements/cycle
	// k=2: 1030 cycles, 63.63 elements/cycle
}

func ExampleSimulateRMM() {
	// 32 samples over 4 banks of a 20-level binary sum tree.
	d := RMMDesign{S: 4, H: 20, Fanout: 2}
	r, _ := SimulateRMM(d, RoundRobinBanks(32, 4), 4, true)
	fmt.Println(r.Cycles, r.Closed)
	// Output: 54 54
}
