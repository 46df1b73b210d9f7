package experiment

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/papers"
	"github.com/rlxdev/rlx/presets"
)

// TestPPOAccelPongIsTheEnginesConvNet: the exploration's Pong network
// (core/dse builds it without core/nn) is the ConvNet a live Pong run
// trains, layer for layer.
func TestPPOAccelPongIsTheEnginesConvNet(t *testing.T) {
	pub, err := papers.Parse(presets.SeedTables())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := dse.PPOAccelNetwork("Pong", pub)
	if err != nil {
		t.Fatal(err)
	}
	cnn, err := nn.NewNatureCNN(6)
	if err != nil {
		t.Fatal(err)
	}
	if want := agents.HWLayers(cnn.Shape()); !slices.Equal(cfg.Layers, want) {
		t.Errorf("dse's Pong network %v, the engine's %v", cfg.Layers, want)
	}
}

// ppoRun is a synthetic live PPO run that collected 16384 samples in 8 host
// and 0.5 simulated seconds.
func ppoRun(index int, title string, c engine.Config, chosen string) StepResult {
	s := snap(c, 16384, 320, 8*time.Second, 320, 0.5)
	s.Mapping = engine.MappingView{Chosen: chosen, PredictedGPS: 40000, Unit: "IPS"}
	s.Busiest = engine.Busiest{Device: "CPU", Stage: "actors", Utilization: 0.99}
	return StepResult{Index: index, Title: title, Config: c, Final: s}
}

// ppoAccelSteps are live runs with the mapping set and left to the
// exploration, and a step that did not run.
var ppoAccelSteps = []StepResult{
	ppoRun(1, "Hopper, all on the CPU", engine.Config{Env: "Hopper-workload", Algo: "ppo", Envs: 16, Horizon: 512,
		Epochs: 10, Minibatches: 16, Mapping: engine.MustMapping("C-C-C")}, "C-C-C"),
	ppoRun(0, "Hopper, auto", engine.Config{Env: "Hopper-workload", Algo: "ppo", Envs: 16, Horizon: 512,
		Epochs: 10, Minibatches: 16}, "F-C-F"),
	{Index: 2, Title: "Humanoid"},
}

// TestPPOAccelModel checks the exploration on 003 Table 2 against what the
// report and docs/dse.md claim: the array sizes of 003 §5.2, a dataflow
// never slower than fixed NS, a model IPS above every published CPU-FPGA
// figure (it leaves out the environment steps), closest to it on Pong;
// and the published figures carried through beside the right N, T, M, K.
func TestPPOAccelModel(t *testing.T) {
	r := builtReport(t, "ppoaccel")
	d := r.Data.(PPOAccelData)
	// 003 Table 2: three sweeps (M: 4 values, N: 3, T: 3) per network.
	if len(d.Model) != 30 {
		t.Fatalf("%d model rows, want 30", len(d.Model))
	}
	ratio := map[string][]float64{} // model IPS over published CF, per network
	for _, m := range d.Model {
		// 003 §5.2: P_sys 16 for the two-CU MuJoCo designs, 32 for Pong.
		wantP, wantCUs := 16, 2
		if m.Network == "Pong" {
			wantP, wantCUs = 32, 1
		}
		if m.P != wantP || m.CUs != wantCUs {
			t.Errorf("%s %s N=%d T=%d M=%d: P_sys %d on %d CUs, want %d on %d", m.Network, m.Vary, m.N, m.T, m.M, m.P, m.CUs, wantP, wantCUs)
		}
		if m.FW == "" || m.BW == "" || m.WU == "" || m.DSP < 1 || m.BRAM < 1 {
			t.Errorf("%s %s N=%d T=%d M=%d: dataflows %s/%s/%s, %d DSP, %d BRAM", m.Network, m.Vary, m.N, m.T, m.M, m.FW, m.BW, m.WU, m.DSP, m.BRAM)
		}
		// The chosen dataflows are never slower than NS (003 §5.2); the
		// same tolerance as the report's claim, for rounding alone.
		if !(m.NSIPS > 0) || m.IPS < m.NSIPS*(1-1e-12) {
			t.Errorf("%s %s N=%d T=%d M=%d: IPS %v below NS only %v", m.Network, m.Vary, m.N, m.T, m.M, m.IPS, m.NSIPS)
		}
		if !(m.IPS > m.PublishedCF) || !(m.PublishedCF > 0) {
			t.Errorf("%s %s N=%d T=%d M=%d: model IPS %v not above the published CF %v", m.Network, m.Vary, m.N, m.T, m.M, m.IPS, m.PublishedCF)
		}
		ratio[m.Network] = append(ratio[m.Network], m.IPS/m.PublishedCF)
	}
	if got := slices.Sorted(maps.Keys(ratio)); !slices.Equal(got, []string{"Hopper", "Humanoid", "Pong"}) {
		t.Fatalf("networks %v", got)
	}
	// "The published figures approach the model where the network's
	// compute dominates (Pong)": on the geometric mean over each network's
	// rows, single rows overlap (Humanoid at M=512 against Pong at N=4).
	pong := geomean(ratio["Pong"])
	for _, n := range []string{"Hopper", "Humanoid"} {
		if g := geomean(ratio[n]); !(pong < g) {
			t.Errorf("model over CF: Pong %.2fx, %s %.2fx; want Pong the closest", pong, n, g)
		}
	}

	// One configuration of each sweep: the fixed parameters land in the
	// right fields and the published figures stay with their column.
	for _, w := range []PPOAccelModelRow{
		{Network: "Hopper", Vary: "M", N: 16, T: 512, M: 64, K: 10, PublishedCF: 13800, PublishedC: 509, PublishedCG: 539},
		{Network: "Hopper", Vary: "N", N: 8, T: 512, M: 512, K: 10, PublishedCF: 13100, PublishedC: 2780, PublishedCG: 2900},
		{Network: "Hopper", Vary: "T", N: 32, T: 1024, M: 512, K: 10, PublishedCF: 29800, PublishedC: 2730, PublishedCG: 2960},
		{Network: "Humanoid", Vary: "M", N: 16, T: 512, M: 256, K: 10, PublishedCF: 9700, PublishedC: 1170, PublishedCG: 1280},
		{Network: "Humanoid", Vary: "N", N: 4, T: 512, M: 512, K: 10, PublishedCF: 3200, PublishedC: 1620, PublishedCG: 1730},
		{Network: "Humanoid", Vary: "T", N: 32, T: 256, M: 512, K: 10, PublishedCF: 8240, PublishedC: 2100, PublishedCG: 2200},
		{Network: "Pong", Vary: "M", N: 4, T: 128, M: 32, K: 3, PublishedCF: 870, PublishedC: 326, PublishedCG: 550},
		{Network: "Pong", Vary: "N", N: 16, T: 128, M: 128, K: 3, PublishedCF: 1490, PublishedC: 687, PublishedCG: 1170},
		{Network: "Pong", Vary: "T", N: 8, T: 512, M: 128, K: 3, PublishedCF: 998, PublishedC: 488, PublishedCG: 776},
	} {
		i := slices.IndexFunc(d.Model, func(m PPOAccelModelRow) bool {
			return m.Network == w.Network && m.Vary == w.Vary && m.N == w.N && m.T == w.T && m.M == w.M && m.K == w.K
		})
		if i < 0 {
			t.Errorf("no row %s vary %s N=%d T=%d M=%d K=%d", w.Network, w.Vary, w.N, w.T, w.M, w.K)
			continue
		}
		m := d.Model[i]
		if m.PublishedCF != w.PublishedCF || m.PublishedC != w.PublishedC || m.PublishedCG != w.PublishedCG {
			t.Errorf("%s vary %s N=%d T=%d M=%d: published CF %v C %v CG %v, want %v %v %v", w.Network, w.Vary, w.N, w.T, w.M,
				m.PublishedCF, m.PublishedC, m.PublishedCG, w.PublishedCF, w.PublishedC, w.PublishedCG)
		}
	}

	for _, s := range []string{
		"### Model: 003 Table 2 on the Table IV FPGA",
		"| network | vary | N | T | M | K | P_sys | FW/BW/WU | rlx IPS | NS only | vs NS | Table 2 CF | rlx / CF | C | CG |",
		"| Pong | T | 8 | 512 | 128 | 3 | 32 |",
		"never slower than fixed NS: in the model this holds in every row.",
	} {
		if !strings.Contains(r.Markdown, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

func TestPPOAccelSteps(t *testing.T) {
	r := builtReport(t, "ppoaccel")
	d := r.Data.(PPOAccelData)
	base := PPOStepRow{Env: "Hopper-workload", Envs: 16, Horizon: 512, Epochs: 10, Minibatch: 16,
		PredictedIPS: 40000, HostIPS: 2048, SimIPS: 32768, EnvSteps: 16384, Busiest: "CPU actors (99% busy)"}
	auto, set := base, base
	auto.Step, auto.Title, auto.Requested, auto.Mapping = 0, "Hopper, auto", "auto", "F-C-F"
	set.Step, set.Title, set.Requested, set.Mapping = 1, "Hopper, all on the CPU", "C-C-C", "C-C-C"
	if want := []PPOStepRow{auto, set}; !slices.Equal(d.Steps, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", d.Steps, want)
	}
	if !slices.Equal(d.NotRun, []int{2}) {
		t.Errorf("NotRun = %v, want [2]", d.NotRun)
	}
	for _, s := range []string{
		"| step | env | mapping | N x T | epochs x minibatches | env steps | predicted IPS | sim IPS, whole run | sim IPS, last quarter (steady state) | host IPS | busiest |",
		"| 1. Hopper, auto | Hopper-workload | F-C-F | 16 x 512 | 10 x 16 | 16384 | 40.0k | 32.8k | – | 2.05k | CPU actors (99% busy) |",
		"| 2. Hopper, all on the CPU | Hopper-workload | C-C-C (set) |",
	} {
		if !strings.Contains(r.Markdown, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
}

// geomean is the geometric mean of positive values.
func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}
