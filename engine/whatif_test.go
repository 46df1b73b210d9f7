package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/testenv"
)

// TestPredictIsTheRunsMapping starts runs and requires Predict to give,
// without running, the mapping view of their first snapshot: off-policy
// on auto and on a mapping set by hand whose storage is on a third
// device, and PPO.
func TestPredictIsTheRunsMapping(t *testing.T) {
	for _, cfg := range []Config{
		{Env: "CartPole-v1", Algo: DQN},
		{Env: "CartPole-v1", Algo: DQN, Mapping: MustMapping("F-C-G")},
		{Env: "CartPole-v1", Algo: "ppo"},
		{Env: "CartPole-v1", Algo: "ppo", Mapping: MustMapping("G-C-F")},
	} {
		t.Run(string(cfg.Algo)+"/"+cfg.Mapping.String(), func(t *testing.T) {
			cfg.Steps = 1 << 40 // stopped below
			want, err := Predict(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r, err := Start(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Latest().Mapping
			r.Stop()
			if _, err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the run's mapping:\n%+v\nPredict:\n%+v", got, want)
			}
			if !strings.Contains(want.Chosen, "-") || len(want.All) == 0 {
				t.Errorf("Predict gave no mapping: %+v", want)
			}
		})
	}
}

// TestMappingViewTruth holds the mapping view to what the pane shows of
// it: a mapping set by hand is listed, a tie lists the chosen mapping
// first among the equal ones, and PPO's auto runs the fastest mapping of
// its own list.
func TestMappingViewTruth(t *testing.T) {
	hand, err := Predict(Config{Env: "CartPole-v1", Algo: DQN, Mapping: MustMapping("F-C-G")})
	if err != nil {
		t.Fatal(err)
	}
	if !slicesHas(hand.All, "F-C-G") {
		t.Errorf("a mapping set by hand is not listed: %+v", hand.All)
	}

	// CartPole DQN on Table IV: the actors bound F-F-F, F-C-F and F-G-F
	// alike, and Algorithm 3 breaks the tie.
	tie, err := Predict(Config{Env: "CartPole-v1", Algo: DQN})
	if err != nil {
		t.Fatal(err)
	}
	if tie.All[0].Mapping != tie.Chosen || tie.All[1].GPS != tie.PredictedGPS {
		t.Errorf("tie: chosen %s at %g, list %+v; want the chosen first of equal predictions", tie.Chosen, tie.PredictedGPS, tie.All[:3])
	}
	if !strings.Contains(tie.Note, "same throughput") {
		t.Errorf("tie: the note %q does not say how the tie was broken", tie.Note)
	}

	// Pendulum TD3: Algorithm 3 maps by the table, and the whole model
	// predicts another mapping faster; the note says so.
	td3, err := Predict(Config{Env: "Pendulum-v1", Algo: "td3", Batch: 256, Capacity: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if td3.All[0].Mapping == td3.Chosen || !strings.Contains(td3.Note, "Algorithm 3 maps by the table") ||
		!strings.Contains(td3.Note, td3.All[0].Mapping+" is predicted ×") {
		t.Errorf("td3: chosen %s, fastest %s; the note %q does not say why", td3.Chosen, td3.All[0].Mapping, td3.Note)
	}

	for _, env := range []string{"CartPole-v1", "Pendulum-v1", "Hopper-workload"} {
		v, err := Predict(Config{Env: env, Algo: "ppo"})
		if err != nil {
			t.Fatal(err)
		}
		if v.All[0].Mapping != v.Chosen || v.SpeedupOver < 1 {
			t.Errorf("%s PPO: auto runs %s at %g IPS, second best %s at ×%g; the list is %+v",
				env, v.Chosen, v.PredictedGPS, v.SecondBest, v.SpeedupOver, v.All)
		}
	}
}

func slicesHas(all []MappingGPS, m string) bool {
	for _, a := range all {
		if a.Mapping == m {
			return true
		}
	}
	return false
}

// TestPlatformDraft edits the default platform, saves it and loads it as
// --devices does: the file gives the draft's prediction, says where it
// came from, and keeps the comments of the values left alone.
func TestPlatformDraft(t *testing.T) {
	d, err := DraftPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	params := d.Params()
	keys := map[string]bool{}
	for _, p := range params {
		keys[p.Key] = true
		if p.Value != p.Original || p.Value < p.Min || p.Value > p.Max {
			t.Errorf("%s: value %g, original %g, range %g..%g", p.Key, p.Value, p.Original, p.Min, p.Max)
		}
	}
	for _, k := range []string{"link.gbs", "link.latency_us", "gpu.launch_us", "gpu.peak_gflops", "gpu.mem_bw_gbs",
		"fpga.clock_mhz", "fpga.slrs", "cpu.cores", "cpu.peak_gflops"} {
		if !keys[k] {
			t.Errorf("no parameter %s", k)
		}
	}

	for _, tc := range []struct {
		key  string
		v    float64
		want string
	}{
		{"link.gbs", 300, "link.gbs = 300 is out of range: must be 0.25..256"},
		{"gpu.launch", 1, `device parameter "gpu.launch" is not one of platform "table-iv"'s: link.gbs, link.latency_us`},
		{"fpga.slrs", 0, "fpga.slrs = 0 is out of range: must be 1..4"},
	} {
		if err := d.Set(tc.key, tc.v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%s, %g) = %v, want %q", tc.key, tc.v, err, tc.want)
		}
	}
	if c := d.Changes(); len(c) != 0 {
		t.Fatalf("refused edits changed the draft: %v", c)
	}

	cfg := Config{Env: "CartPole-v1", Algo: DQN}
	before, err := d.Predict(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Predict(cfg); !reflect.DeepEqual(before, want) {
		t.Error("an unedited draft predicts otherwise than its platform")
	}
	for k, v := range map[string]float64{"link.gbs": 2, "fpga.clock_mhz": 150, "cpu.cores": 16} {
		if err := d.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	edited, err := d.Predict(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if edited.PredictedGPS == before.PredictedGPS {
		t.Error("halving the FPGA clock moved nothing of F-F-F's prediction")
	}

	// Saved as the explorer names it, so that a draft of it must trim
	// "-edited" to save under the same name.
	path := filepath.Join(t.TempDir(), "devices", "table-iv-edited.yaml")
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"edited in rlx's devices editor from table-iv", "link.gbs 16 → 2",
		`name: "table-iv-edited"`, "# 7-cpu.com Skylake"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the saved file lacks %q", want)
		}
	}
	p, err := LoadPlatform(path)
	if err != nil {
		t.Fatalf("--devices %s: %v", path, err)
	}
	if p.Link.GBs != 2 || p.FPGA.ClockMHz != 150 || p.CPU.Cores != 16 {
		t.Errorf("loaded link %g GB/s, FPGA %g MHz, %d cores", p.Link.GBs, p.FPGA.ClockMHz, p.CPU.Cores)
	}
	cfg.Devices = path
	loaded, err := Predict(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, edited) {
		t.Errorf("the saved platform predicts\n%+v\nthe draft\n%+v", loaded, edited)
	}

	// A draft of the saved file saves under the same name, not
	// "-edited-edited".
	again, err := DraftPlatform(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := filepath.Base(again.SavePath()); got != "table-iv-edited.yaml" {
		t.Errorf("re-edited SavePath %s, want table-iv-edited.yaml", again.SavePath())
	}
}

// TestDraftSavePath saves in the user's devices directory, where
// --devices NAME finds it by name.
func TestDraftSavePath(t *testing.T) {
	testenv.UserConfig(t)
	d, err := DraftPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(UserDevicesDir(), "table-iv-edited.yaml")
	if got := d.SavePath(); got != want {
		t.Fatalf("SavePath = %s, want %s", got, want)
	}
	if err := d.Set("link.gbs", 8); err != nil {
		t.Fatal(err)
	}
	if err := d.Save(d.SavePath()); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPlatform("table-iv-edited")
	if err != nil || p.Link.GBs != 8 {
		t.Fatalf("--devices table-iv-edited: %v, %v", p, err)
	}
	entries, _ := os.ReadDir(UserDevicesDir())
	if len(entries) != 1 {
		t.Errorf("the save left %d files in the directory, want 1", len(entries))
	}
}

// TestWhatIfPCIeChangesPPO is the what-if the explorer's flow test shows:
// Humanoid PPO with 128 environments of 512 steps and 16 actors, on Table
// IV with a 16-thread CPU of 1.6 TFLOPS. Above about 1 GB/s of PCIe the
// FPGA takes the learner and GAE; below it, the rollout's trip to the
// FPGA costs more than the CPU learner loses, and all stays on the CPU.
func TestWhatIfPCIeChangesPPO(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a PPO trainer of 65,536 samples")
	}
	d, err := DraftPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"cpu.cores": 16, "cpu.peak_gflops": 1600} {
		if err := d.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Config{Env: "Humanoid-workload", Algo: "ppo", Envs: 128, Horizon: 512, Actors: 16}
	start := time.Now()
	for _, tc := range []struct {
		gbs  float64
		want string
	}{{16, "F-F-F"}, {1, "F-F-F"}, {0.8, "C-C-C"}, {0.25, "C-C-C"}} {
		if err := d.Set("link.gbs", tc.gbs); err != nil {
			t.Fatal(err)
		}
		v, err := d.Predict(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if v.Chosen != tc.want {
			t.Errorf("PCIe %g GB/s: auto runs %s, want %s (%+v)", tc.gbs, v.Chosen, tc.want, v.All)
		}
	}
	t.Logf("4 predictions in %v", time.Since(start))
}

// TestPredictorKeepsTheDemand: configurations that differ in what the
// workload does not depend on (platform, mapping, budget, seed, name)
// share one demand, so a form trying them builds the run's networks once;
// each is still predicted with its own mapping.
func TestPredictorKeepsTheDemand(t *testing.T) {
	var pr Predictor
	base := Config{Env: "Pendulum-v1", Algo: TD3, Batch: 256}
	first, err := pr.Predict(base)
	if err != nil {
		t.Fatal(err)
	}
	d := pr.demand
	for _, edit := range []func(*Config){
		func(c *Config) { c.Mapping = MustMapping("C-C-C") },
		func(c *Config) { c.Steps, c.Seed, c.Name = 5000, 9, "renamed" },
		func(c *Config) { c.Devices = DefaultDevices },
	} {
		cfg := base
		edit(&cfg)
		v, err := pr.Predict(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if pr.demand != d {
			t.Errorf("%+v rebuilt the demand", cfg)
		}
		want := first.Chosen
		if !cfg.Defaults().Mapping.Auto() {
			want = cfg.Mapping.String()
		}
		if v.Chosen != want {
			t.Errorf("%+v chose %s, want %s", cfg, v.Chosen, want)
		}
	}
	cfg := base
	cfg.Batch = 512
	if _, err := pr.Predict(cfg); err != nil || pr.demand == d {
		t.Errorf("another batch kept the demand (err %v)", err)
	}
}
