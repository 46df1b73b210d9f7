package dse

import (
	"fmt"
	"testing"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// TestPPOAccelArraySize: on the U200, 003 §5.2 sets P_sys = 16 for the
// MuJoCo design (two CUs) and 32 for Atari (one CU); the DSE under the DSP
// and BRAM budgets must find the same.
func TestPPOAccelArraySize(t *testing.T) {
	p := tableIV(t)
	nets := ppoNets(t)
	for _, tt := range []struct {
		name string
		cfg  PPOConfig
		want int
	}{
		{"Hopper", PPOConfig{Layers: nets["Hopper"], N: 16, T: 512, M: 64, K: 10, CUs: 2, ObsWords: 11, ActWords: 3}, 16},
		{"Humanoid", PPOConfig{Layers: nets["Humanoid"], N: 16, T: 512, M: 512, K: 10, CUs: 2, ObsWords: 376, ActWords: 17}, 16},
		{"Pong", PPOConfig{Layers: nets["Pong"], N: 4, T: 128, M: 32, K: 3, CUs: 1, ObsWords: 4 * 84 * 84 / 4, ActWords: 1}, 32},
	} {
		r, err := ExplorePPOAccel(p.FPGA, p.Link, tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if r.P != tt.want {
			t.Errorf("%s: P_sys = %d, 003 §5.2 uses %d (DSP %d of %d)", tt.name, r.P, tt.want, r.DSP, r.DSPTotal)
		}
		t.Logf("%s: P=%d FW %s BW %s WU %s, DSP %d/%d, BRAM %d/%d, iteration %.3g s (NS only %.3g s)",
			tt.name, r.P, r.FW, r.BW, r.WU, r.DSP, r.DSPTotal, r.BRAM, r.BRAMTotal, r.Seconds(), r.NSSeconds)
	}
}

func TestPPOAccelRejects(t *testing.T) {
	p := tableIV(t)
	hopper := ppoNets(t)["Hopper"]
	for _, cfg := range []PPOConfig{{}, {Layers: hopper, N: 0, T: 1, M: 1, K: 1, CUs: 1}, {Layers: hopper, N: 1, T: 1, M: 1, K: 1, CUs: 9}} {
		if _, err := ExplorePPOAccel(p.FPGA, p.Link, cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// TestHEPPOSizing: 004's design, 64 trajectories of 1024 steps with 8-bit
// values on the ZCU106, is 64 PEs with 2-step lookahead using 768 DSPs,
// 12864 LUTs and 32 BRAMs (004 Table IV, §V-D2), 300 M elements/s per PE.
func TestHEPPOSizing(t *testing.T) {
	p := platform(t, "heppo-zcu106")
	r, err := SizeHEPPO(p.FPGA, 1024, 64, 8)
	if err != nil {
		t.Fatal(err)
	}
	if r.PEs != 64 || r.Lookahead != 2 || r.Interval != 1 || r.Limit != "trajectories" {
		t.Errorf("got %d PEs, k=%d, interval %d, limit %s; want 64, 2, 1, trajectories", r.PEs, r.Lookahead, r.Interval, r.Limit)
	}
	if r.Used.DSP != 768 || r.Used.LUT != 12864 || r.Used.FF != 54336 || r.Used.BRAM != 32 {
		t.Errorf("resources %+v, want 768 DSP, 12864 LUT, 54336 FF, 32 BRAM", r.Used)
	}
	if per := r.ElementsPerSecond / float64(r.PEs); per < 0.99*300e6 || per > 300e6 {
		t.Errorf("%.3g elements/s per PE, want about 3e8", per)
	}
	// With more trajectories than the DSPs allow, the DSPs limit the PEs.
	big, err := SizeHEPPO(p.FPGA, 256, 512, 8)
	if err != nil {
		t.Fatal(err)
	}
	if big.PEs != 210 || big.Limit != "DSP" {
		t.Errorf("512 trajectories: %d PEs limited by %s, want 210 by DSP (2520 / 12)", big.PEs, big.Limit)
	}
}

// TestTableVIComparison reports the FPGA architecture beside 000 Table VI
// and checks what the model derives rather than takes: DP = 2 (one pipeline
// per learner SLR), S from 1 to 32 over the Table V batches, and the RMM
// DSPs of S = 32 (one DSP48 accumulator per stage: 2 x H x S).
func TestTableVIComparison(t *testing.T) {
	s := loadSeedTables(t)
	p := tableIV(t)
	minS, maxS := 1<<30, 0
	for _, c := range TableVGrid {
		r, err := ExploreConfig(p, c)
		if err != nil {
			t.Fatal(err)
		}
		minS, maxS = min(minS, r.Arch.RMM.S), max(maxS, r.Arch.RMM.S)
		l := r.Arch.Learner
		t.Logf("%-8s B=%-5d DP=%d PI=%d f=%.3g T_max=%d DSP %d SRAM %.1f MB | RMM S=%d DSP %d LUT %d REG %d SRAM %.1f MB",
			c.Env, c.Batch, l.DP, l.PI, l.F, l.TMax, l.Resources.DSP, l.Resources.SRAMMB,
			r.Arch.RMM.S, r.Arch.RMM.Resources.DSP, r.Arch.RMM.Resources.LUT, r.Arch.RMM.Resources.FF, r.Arch.RMM.Resources.SRAMMB)
		if c.Env == "Hopper" && l.DP != s.Heterogeneous.FPGAArchitecture.Learner.DP {
			t.Errorf("Hopper B=%d: DP = %d, Table VI %d", c.Batch, l.DP, s.Heterogeneous.FPGAArchitecture.Learner.DP)
		}
		if c.Batch == 16384 {
			want := s.Heterogeneous.FPGAArchitecture.Resources["rmm_S32"]
			got := r.Arch.RMM.Resources
			if r.Arch.RMM.S != 32 || got.DSP != want.DSP {
				t.Errorf("RMM at B=16384: S=%d with %d DSP, Table VI S=32 with %d", r.Arch.RMM.S, got.DSP, want.DSP)
			}
			t.Logf("RMM S=32: model SRAM %.2f MB, LUT %d, REG %d; Table VI %.1f MB, %d, %d", got.SRAMMB, got.LUT, got.FF, want.SRAMMB, want.LUT, want.Reg)
		}
	}
	if minS != 1 || maxS != 32 {
		t.Errorf("bank factor ranges %d..%d over Table V, Table VI gives 1..32", minS, maxS)
	}
	for _, k := range []string{"dqn_learner", "ddpg_learner"} {
		want := s.Heterogeneous.FPGAArchitecture.Resources[k]
		t.Logf("Table VI %s: %d DSP, %.1f MB SRAM, %d LUT (LUTs are not modelled for the learner)", k, want.DSP, want.SRAMMB, want.LUT)
	}
}

func ExampleExploreConfig() {
	data, _ := readDevices()
	p, _ := parse(data)
	r, _ := ExploreConfig(p, Config{Env: "Hopper", Algo: "DDPG", Batch: 16384})
	fmt.Println(r.Decision.Mapping, r.Decision.PrunedGPU)
	// Output: G-F-G true
}

func ExampleParseMapping() {
	m, _ := hw.ParseMapping("g-c-g")
	fmt.Println(m, m.Learner, m.RMM, m.Storage)
	// Output: G-C-G GPU CPU GPU
}

// BenchmarkTableVSweep: the whole Table V grid must run in well under a
// second.
func BenchmarkTableVSweep(b *testing.B) {
	p := tableIV(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Sweep(b.Context(), p, TableVGrid); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleSizeHEPPO() {
	data, _ := presets.Device("heppo-zcu106")
	p, _ := hw.ParsePlatform("heppo-zcu106", data)
	r, _ := SizeHEPPO(p.FPGA, 1024, 64, 8)
	fmt.Printf("%d PEs, %d-step lookahead, %d DSP, %d BRAM, %.3g elements/s\n", r.PEs, r.Lookahead, r.Used.DSP, r.Used.BRAM, r.ElementsPerSecond)
	// Output: 64 PEs, 2-step lookahead, 768 DSP, 32 BRAM, 1.91e+10 elements/s
}
