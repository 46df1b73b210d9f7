package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/presets"
)

// execute runs a constructed command with args and returns its stdout.
func execute(t *testing.T, cmd *cobra.Command, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	err := cmd.Execute()
	return out.String(), err
}

func TestDSEJSON(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--env", "Hopper", "--algo", "DDPG", "--batch", "16384", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if j["schema"] != dseSchema || j["mapping"] != "G-F-G" || j["env"] != "Hopper" || j["batch"] != float64(16384) {
		t.Errorf("schema %v mapping %v env %v batch %v", j["schema"], j["mapping"], j["env"], j["batch"])
	}
	if gps, ok := j["gps"].(float64); !ok || gps <= 0 {
		t.Errorf("gps = %v", j["gps"])
	}
	if ms, ok := j["mappings"].([]any); !ok || len(ms) != 9 {
		t.Errorf("mappings: %v", j["mappings"])
	}
}

func TestDSESweepJSON(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--sweep", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Schema  string  `json:"schema"`
		Env     string  `json:"env"`
		Batch   int     `json:"batch"`
		Mapping string  `json:"mapping"`
		GPS     float64 `json:"gps"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 11 {
		t.Fatalf("%d objects, want the 11 of Table V", len(list))
	}
	for _, o := range list {
		if o.Schema != dseSchema || o.Env == "" || o.Batch == 0 || len(o.Mapping) != 5 || o.GPS <= 0 {
			t.Errorf("bad sweep entry %+v", o)
		}
	}
}

func TestDSEText(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--env", "pong", "--batch", "64")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"primitive-platform table", "G-C-G", "FPGA RMM: S=", "speedup over worst"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestDSEDevicesFile(t *testing.T) {
	data, err := os.ReadFile("../../presets/devices/table-iv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	// A GPU with 10x the launch overhead: the FPGA now wins Hopper B=256.
	os.WriteFile(good, []byte(strings.Replace(string(data), "launch_us: 10 ", "launch_us: 100 ", 1)), 0o644)
	out, err := execute(t, newDSECmd(), "--env", "Hopper", "--batch", "256", "--devices", good, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"mapping": "F-F-F"`) {
		t.Errorf("with a 100 us launch the mapping should move to the FPGA:\n%s", out[:200])
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte(strings.Replace(string(data), "sms: 30 ", "sms: -2 ", 1)), 0o644)
	_, err = execute(t, newDSECmd(), "--env", "Hopper", "--batch", "256", "--devices", bad)
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "gpu.sms = -2") {
		t.Errorf("bad device file: %v", err)
	}
}

func TestDSEUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--batch", "32"},
		{"--env", "Hopper", "--batch", "0"},
		{"--env", "Atlantis", "--batch", "32"},
		{"--env", "Pong", "--algo", "DDPG", "--batch", "32"},
		{"--sweep", "--env", "Hopper"},
		{"--devices", "/no/such/file.yaml", "--sweep"},
		{"--batch", "many"},
		{"extra-arg"},
	} {
		_, err := execute(t, newDSECmd(), args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v is not a usage error", args, err)
		}
	}
}

// TestDSEPlatformWithoutDevices: a platform without a cpu, a gpu, an fpga
// or a link is refused up front by every mode of rlx dse with exit 2,
// naming what it lacks: heppo-zcu106 (an FPGA only) was exit 1, after
// loading, and so was a file without a gpu.
func TestDSEPlatformWithoutDevices(t *testing.T) {
	data, err := os.ReadFile("../../presets/devices/table-iv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	y := string(data)
	noGPU := filepath.Join(t.TempDir(), "nogpu.yaml")
	if err := os.WriteFile(noGPU, []byte(y[:strings.Index(y, "\ngpu:")]+y[strings.Index(y, "\nfpga:"):]), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--env", "CartPole", "--batch", "1", "--devices", "heppo-zcu106"}, `platform "heppo-zcu106" has no cpu, gpu, link`},
		{[]string{"--sweep", "--devices", "heppo-zcu106"}, "has no cpu, gpu, link"},
		{[]string{"--claims", "--devices", "heppo-zcu106"}, "has no cpu, gpu, link"},
		{[]string{"--sensitivity", "--devices", "heppo-zcu106"}, "has no cpu, gpu, link"},
		{[]string{"--env", "Hopper", "--batch", "256", "--devices", noGPU}, `platform "table-iv" has no gpu`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"dse"}, tt.args...), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || !strings.Contains(stderr.String(), "needs a cpu, a gpu, an fpga and a link") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestDSEFPGAWithoutResources: the repro of an FPGA whose SLRs have no
// resources. Nothing is placed on it (it chose G-F-G with "DSP 40 of 0"),
// the output says why, and the table shows no time rather than 0.00 us.
func TestDSEFPGAWithoutResources(t *testing.T) {
	data, err := os.ReadFile("../../presets/devices/table-iv.yaml")
	if err != nil {
		t.Fatal(err)
	}
	z := filepath.Join(t.TempDir(), "z.yaml")
	y := strings.ReplaceAll(string(data), "dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67", "dsp: 0, lut: 0, ff: 0, bram: 0, sram_mb: 0")
	if err := os.WriteFile(z, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execute(t, newDSECmd(), "--env", "Hopper", "--algo", "DDPG", "--batch", "16384", "--devices", z)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"G-F-G            -      no FPGA RMM design fits the RMM SLRs", "F-F-F            -      no FPGA learner design fits the learner SLRs",
		"FPGA RMM: no design fits: one pipeline (S=1, H=20) needs DSP 40", "the RMM SLRs have DSP 0",
		"FPGA learner: no design fits the learner SLRs: the smallest design"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FPGA ") && strings.Contains(line, "0.00") {
			t.Errorf("the FPGA row reads as infinitely fast: %s", line)
		}
	}
	j, err := execute(t, newDSECmd(), "--env", "Hopper", "--algo", "DDPG", "--batch", "16384", "--devices", z, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mapping string `json:"mapping"`
		FPGA    struct {
			S         int    `json:"s"`
			NoRMM     string `json:"no_rmm"`
			NoLearner string `json:"no_learner"`
		} `json:"fpga"`
	}
	if err := json.Unmarshal([]byte(j), &got); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.Mapping, "F") || got.FPGA.S != 0 || got.FPGA.NoRMM == "" || got.FPGA.NoLearner == "" {
		t.Errorf("JSON: mapping %s, S %d, no_rmm %q, no_learner %q", got.Mapping, got.FPGA.S, got.FPGA.NoRMM, got.FPGA.NoLearner)
	}
}

func TestDSEClaimsJSON(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--claims", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Schema string           `json:"schema"`
		Claims []map[string]any `json:"claims"`
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if j.Schema != claimsSchema || claimsSchema != "rlx.dse.claims/v1" {
		t.Errorf("schema %q", j.Schema)
	}
	ids := map[string]bool{}
	for _, c := range j.Claims {
		for _, f := range []string{"id", "source", "statement", "paper_low", "paper_high", "rlx_low", "rlx_high", "unit", "fitted", "note"} {
			if _, ok := c[f]; !ok {
				t.Errorf("claim %v has no %q", c["id"], f)
			}
		}
		id, _ := c["id"].(string)
		if ids[id] {
			t.Errorf("claim %s twice", id)
		}
		ids[id] = true
	}
	for _, id := range []string{"000-f12-update-fpga-vs-gpu", "000-gpu-sharing-cost", "000-t7-gpsw-gain", "000-f14-rllib-pong", "003-t2-pong-t-512"} {
		if !ids[id] {
			t.Errorf("no claim %s", id)
		}
	}
}

func TestDSEClaimsText(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--claims")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"000-t7-power-hopper", "non-fitted claims are within a factor of 2", "paper_low/2 <= rlx_low", "misses (", "Miss: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"--claims", "--sweep"}, {"--claims", "--env", "Hopper"}, {"--claims", "--batch", "32"}} {
		_, err := execute(t, newDSECmd(), args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: %v is not a usage error", args, err)
		}
	}
}

func TestClaimsSummary(t *testing.T) {
	cs := []dse.Claim{
		{ID: "a", PaperLow: 1, PaperHigh: 1, RlxLow: 1.5, RlxHigh: 1.5, Unit: "x", Note: "How."},
		{ID: "b", PaperLow: 1, PaperHigh: 1, RlxLow: 3, RlxHigh: 3, Unit: "x", Note: "How. Miss: why."},
		{ID: "c", PaperLow: 1, PaperHigh: 1, RlxLow: 9, RlxHigh: 9, Unit: "x", Fitted: true, Note: "Fitted."},
	}
	within, counted, fitted := dse.Tally(cs)
	if within != 1 || counted != 2 || fitted != 1 {
		t.Errorf("tally %d of %d, %d fitted; want 1 of 2, 1 fitted", within, counted, fitted)
	}
	md := claimsMarkdown(cs)
	for _, want := range []string{"**1 of 2** non-fitted claims", "| a |", "| b |", "Miss: why.", "| x | no | yes | Fitted. |"} {
		if !strings.Contains(md, want) {
			t.Errorf("claims markdown lacks %q:\n%s", want, md)
		}
	}
	for v, want := range map[float64]string{1005: "1005", 0.2174: "0.2174", 277556: "278k", 16: "16", 10.5: "10.5"} {
		if got := claimNum(v); got != want {
			t.Errorf("claimNum(%g) = %q, want %q", v, got, want)
		}
	}
	if got := claimRange(11, 98); got != "11..98" {
		t.Errorf("claimRange = %q", got)
	}
}

// TestDSESensitivity: --sensitivity --json covers each unanchored constant
// of the default platform at both factors, and the text form names the
// constants; mixing it with another mode is a usage error.
func TestDSESensitivity(t *testing.T) {
	out, err := execute(t, newDSECmd(), "--sensitivity", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema        string `json:"schema"`
		Within        int    `json:"within_2x"`
		Counted       int    `json:"counted"`
		Perturbations []struct {
			Constant string  `json:"constant"`
			Factor   float64 `json:"factor"`
		} `json:"perturbations"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := presets.Device(presets.DefaultDevices)
	if err != nil {
		t.Fatal(err)
	}
	knobs, err := dse.Unanchored(data)
	if err != nil {
		t.Fatal(err)
	}
	if got.Schema != sensitivitySchema || got.Counted == 0 || len(got.Perturbations) != 2*len(knobs) || len(knobs) == 0 {
		t.Fatalf("schema %q, %d counted, %d perturbations for %d unanchored constants", got.Schema, got.Counted, len(got.Perturbations), len(knobs))
	}
	for i, k := range knobs {
		for j, f := range dse.SensitivityFactors {
			if pt := got.Perturbations[2*i+j]; pt.Constant != k.Path || pt.Factor != f {
				t.Errorf("perturbation %d is %s x %g, want %s x %g", 2*i+j, pt.Constant, pt.Factor, k.Path, f)
			}
		}
	}
	text, err := execute(t, newDSECmd(), "--sensitivity")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range knobs {
		if !strings.Contains(text, k.Path) {
			t.Errorf("the table does not name %s:\n%s", k.Path, text)
		}
	}
	if _, err := execute(t, newDSECmd(), "--sensitivity", "--claims"); err == nil || !strings.Contains(err.Error(), "leave out --claims") {
		t.Errorf("--sensitivity --claims: %v", err)
	}
}

// TestDSERunEnvironmentIDs: --env takes the ids runs give the Table III
// environments, which explore exactly what the short names do, and --batch
// has a default; what cannot be explored is refused naming what rlx dse
// accepts.
func TestDSERunEnvironmentIDs(t *testing.T) {
	explore := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"dse", "--json"}, args...), &stdout, &stderr); code != exitOK {
			t.Fatalf("rlx dse --json %v: exit %d, stderr %q", args, code, stderr.String())
		}
		return stdout.String()
	}
	for _, tt := range []struct{ id, name string }{
		{"CartPole-v1", "CartPole"}, {"Hopper-workload", "Hopper"}, {"pong-workload", "Pong"},
	} {
		if got, want := explore("--env", tt.id), explore("--env", tt.name, "--batch", "256"); got != want {
			t.Errorf("--env %s differs from --env %s --batch 256:\n%s\n%s", tt.id, tt.name, got, want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"dse", "--env", "Hopper-workload"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "--env Hopper-workload: 000 Table III's Hopper learner") ||
		!strings.Contains(stdout.String(), "Hopper DDPG, batch 256") {
		t.Errorf("rlx dse --env Hopper-workload: exit %d, stderr %q, stdout:\n%s", code, stderr.String(), stdout.String())
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--env", "Atlantis"}, []string{`--env "Atlantis" is not known`, "CartPole, Hopper, Pong", "CartPole-v1", "Pendulum-v1"}},
		{[]string{"--env", "Pendulum-v1", "--algo", "dqn"}, []string{"Pendulum-v1 has continuous actions"}},
		{[]string{"--env", "Acrobot-v1", "--algo", "ppo", "--batch", "64"}, []string{"--batch 64: a PPO run has no learner batch"}},
		{[]string{"--env", "Acrobot-v1", "--algo", "ppo", "--capacity", "5000"}, []string{"--capacity 5000: a PPO run has no replay buffer"}},
		{[]string{"--env", "Pendulum-v1", "--batch", "65537"}, []string{"--batch 65537 is out of range for a run environment: it must be 1..65536"}},
		{[]string{"--env", "Pendulum-v1", "--devices", "heppo-zcu106"}, []string{"--devices heppo-zcu106", "needs a cpu, a gpu, an fpga and a link"}},
		{[]string{"--env", "Humanoid-workload", "--batch", "16384"}, []string{"batch 16384 is not allowed: must be at most the capacity, 10000", "--capacity"}},
		{[]string{"--env", "Hopper", "--capacity", "5"}, []string{"leave out --capacity"}},
		{[]string{"--env", "Hopper", "--batch", "0"}, []string{"--batch 0 is out of range: it must be 1..16777216", "at most 65536"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"dse"}, tt.args...), &stdout, &stderr)
		for _, w := range tt.want {
			if code != exitUsage || !strings.Contains(stderr.String(), w) {
				t.Errorf("rlx dse %v: exit %d, stderr %q; want exit 2 and %q", tt.args, code, stderr.String(), w)
			}
		}
	}
}

// TestDSERunWorkload: every run environment outside 000 Table III is
// explored on its run's own workload, and rlx dse says what the explorer
// and run.json would: the same mapping and prediction as engine.Predict
// for the same configuration, off-policy and PPO.
func TestDSERunWorkload(t *testing.T) {
	for _, id := range engine.Environments() {
		if _, ok := engine.TableIIIEnv(id); ok {
			continue
		}
		algos := []string{"", "ppo"}
		if testing.Short() && id != "Pendulum-v1" {
			algos = algos[:1]
		}
		for _, algo := range algos {
			args := []string{"dse", "--json", "--env", id}
			if algo != "" {
				args = append(args, "--algo", algo)
			}
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
				t.Fatalf("rlx %v: exit %d, stderr %q", args, code, stderr.String())
			}
			var got dseRunJSON
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("rlx %v: %v", args, err)
			}
			want, err := engine.Predict(got.Config)
			if err != nil {
				t.Fatalf("engine.Predict(%+v): %v", got.Config, err)
			}
			if got.Schema != dseRunSchema || got.Config.Env != id || got.Mapping.Chosen != want.Chosen ||
				got.Mapping.Predicted() != want.PredictedGPS || len(got.Mapping.All) != len(want.All) {
				t.Errorf("rlx %v: schema %q env %q, %s at %g with %d mappings; engine.Predict: %s at %g with %d",
					args, got.Schema, got.Config.Env, got.Mapping.Chosen, got.Mapping.Predicted(), len(got.Mapping.All),
					want.Chosen, want.PredictedGPS, len(want.All))
			}
			if algo == "" && got.Config.Algo.OnPolicy() {
				t.Errorf("rlx %v explored %s, want an off-policy algorithm", args, got.Config.Algo)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"dse", "--env", "Humanoid-workload", "--batch", "16384", "--capacity", "1048576"}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "batch 16384, replay capacity 1048576") {
		t.Errorf("rlx dse --env Humanoid-workload --batch 16384 --capacity 1048576: exit %d, stderr %q, stdout:\n%s", code, stderr.String(), stdout.String())
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"dse", "--env", "pendulum-v1", "--batch", "512"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("rlx dse --env pendulum-v1: exit %d, stderr %q", code, stderr.String())
	}
	for _, w := range []string{"Pendulum-v1 td3, batch 512", "the run's own workload", "<- chosen", "mapping auto → "} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("rlx dse --env pendulum-v1 --batch 512 does not say %q:\n%s", w, stdout.String())
		}
	}
}
