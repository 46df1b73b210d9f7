package ppo

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/nn"
)

// The defaults are CleanRL's: ppo.py for discrete actions,
// ppo_continuous_action.py for continuous ones.
func TestDefaults(t *testing.T) {
	d, err := Defaults("CartPole-v1")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Env: "CartPole-v1", Seed: 1, NumEnvs: 4, NumSteps: 128, TotalSteps: 500_000, Minibatches: 4, Epochs: 4,
		LR: 2.5e-4, AnnealLR: true, AdamEps: 1e-5, Gamma: 0.99, Lambda: 0.95, NormAdv: true, ClipCoef: 0.2,
		ClipVLoss: true, EntCoef: 0.01, VFCoef: 0.5, MaxGradNorm: 0.5, Activation: nn.Tanh,
		ObsClip: 10, RewardClip: 10,
	}
	checkConfig(t, d, want)
	if d.BatchSize() != 512 || d.MinibatchSize() != 128 || d.Iterations() != 976 {
		t.Errorf("batch %d, minibatch %d, iterations %d; want 512, 128, 976", d.BatchSize(), d.MinibatchSize(), d.Iterations())
	}

	c, err := Defaults("Hopper-workload")
	if err != nil {
		t.Fatal(err)
	}
	want = Config{
		Env: "Hopper-workload", Seed: 1, NumEnvs: 1, NumSteps: 2048, TotalSteps: 1_000_000, Minibatches: 32, Epochs: 10,
		LR: 3e-4, AnnealLR: true, AdamEps: 1e-5, Gamma: 0.99, Lambda: 0.95, NormAdv: true, ClipCoef: 0.2,
		ClipVLoss: true, EntCoef: 0, VFCoef: 0.5, MaxGradNorm: 0.5, Activation: nn.Tanh,
		NormObs: true, ObsClip: 10, NormReward: true, RewardClip: 10,
	}
	checkConfig(t, c, want)
	if c.MinibatchSize() != 64 {
		t.Errorf("continuous minibatch %d, want 64", c.MinibatchSize())
	}
	if _, err := Defaults("NoSuchEnv-v0"); err == nil || !strings.Contains(err.Error(), "NoSuchEnv-v0") {
		t.Errorf("unknown environment: %v", err)
	}
}

func checkConfig(t *testing.T, got, want Config) {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Errorf("%s: defaults do not validate: %v", want.Env, err)
	}
	if !slices.Equal(got.Hidden, []int{64, 64}) {
		t.Errorf("%s: hidden %v, want [64 64]", want.Env, got.Hidden)
	}
	got.Hidden = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", want.Env, got, want)
	}
}

func TestValidate(t *testing.T) {
	base, _ := Defaults("CartPole-v1")
	if err := base.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, c := range []struct {
		edit func(*Config)
		says string
	}{
		{func(c *Config) { c.NumEnvs = 0 }, "NumEnvs = 0 is out of range: it must be in 1..65536"},
		{func(c *Config) { c.NumSteps = -3 }, "NumSteps = -3 is out of range"},
		{func(c *Config) { c.NumEnvs, c.NumSteps = 1<<16, 1<<10 }, "batch NumEnvs*NumSteps = 65536*1024 is too large"},
		{func(c *Config) { c.Minibatches = 0 }, "Minibatches = 0 is out of range: it must be in 1..512"},
		{func(c *Config) { c.Minibatches = 3 }, "Minibatches = 3 does not divide the batch N*T = 512"},
		{func(c *Config) { c.Epochs = 0 }, "Epochs = 0 is out of range"},
		{func(c *Config) { c.TotalSteps = 100 }, "TotalSteps = 100 is out of range: it must be in [N*T, 2^40] = [512,"},
		{func(c *Config) { c.LR = math.NaN() }, "LR = NaN is out of range: it must be in [0, 1]"},
		{func(c *Config) { c.LR = -1e-3 }, "LR = -0.001 is out of range"},
		{func(c *Config) { c.AdamEps = math.Inf(1) }, "AdamEps = +Inf is out of range"},
		{func(c *Config) { c.Gamma = 1.01 }, "Gamma = 1.01 is out of range: it must be in [0, 1]"},
		{func(c *Config) { c.Lambda = -0.1 }, "Lambda = -0.1 is out of range"},
		{func(c *Config) { c.ClipCoef = 0 }, "ClipCoef = 0 is out of range: it must be in (0, 10]"},
		{func(c *Config) { c.EntCoef = -1 }, "EntCoef = -1 is out of range"},
		{func(c *Config) { c.VFCoef = math.NaN() }, "VFCoef = NaN is out of range"},
		{func(c *Config) { c.MaxGradNorm = -0.5 }, "MaxGradNorm = -0.5 is out of range: it must be in [0, 3.4e38] (0 disables clipping)"},
		{func(c *Config) { c.TargetKL = math.Inf(1) }, "TargetKL = +Inf is out of range"},
		{func(c *Config) { c.NormObs, c.ObsClip = true, 0 }, "ObsClip = 0 is out of range"},
		{func(c *Config) { c.NormReward, c.RewardClip = true, -1 }, "RewardClip = -1 is out of range"},
		{func(c *Config) { c.Activation = nn.Identity }, "Activation = identity is not allowed: use nn.Tanh or nn.ReLU"},
		{func(c *Config) { c.Hidden = []int{64, 0} }, "Hidden[1] = 0 is out of range: widths must be 1..16384"},
		{func(c *Config) { c.Hidden = make([]int, 9) }, "9 hidden layers is too many"},
		{func(c *Config) { c.GAE.Values.Bits = 17 }, "GAE options: gae: parameter out of range: Values.Bits = 17 is not allowed"},
	} {
		cfg := base
		cfg.Hidden = append([]int(nil), base.Hidden...)
		c.edit(&cfg)
		err := cfg.Validate()
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "ppo: ") {
			t.Errorf("error %v, want one containing %q", err, c.says)
		}
		if _, nerr := New(cfg); nerr == nil || nerr.Error() != err.Error() {
			t.Errorf("New: %v, want the Validate error %v", nerr, err)
		}
	}
	// Zero gradient clipping and zero target KL are allowed: they disable.
	cfg := base
	cfg.MaxGradNorm, cfg.TargetKL, cfg.Hidden = 0, 0, nil
	if err := cfg.Validate(); err != nil {
		t.Errorf("no clipping, no hidden layer: %v", err)
	}
}

func TestExperiment(t *testing.T) {
	for n := 1; n <= 5; n++ {
		o, err := Experiment(n, 6)
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := gae.Experiment(n)
		for _, s := range []struct{ got, ref gae.Stream }{{o.Rewards, ref.Rewards}, {o.Values, ref.Values}} {
			wantBits := 0
			if s.ref.Bits > 0 {
				wantBits = 6
			}
			if s.got.Bits != wantBits || s.got.Scaling != s.ref.Scaling || s.got.Restore != s.ref.Restore {
				t.Errorf("experiment %d: stream %+v, want %+v at %d bits", n, s.got, s.ref, wantBits)
			}
		}
	}
	if o, _ := Experiment(5, 8); o != gae.HEPPO() {
		t.Errorf("experiment 5 at 8 bits is %v, want HEPPO() %v", o, gae.HEPPO())
	}
	for _, c := range []struct {
		n, bits int
		says    string
	}{{0, 8, "experiment 0 does not exist"}, {6, 8, "experiment 6"}, {3, 0, "0 bits is out of range: quantized experiments take 1..16 bits"}, {5, 17, "17 bits"}} {
		if _, err := Experiment(c.n, c.bits); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Experiment(%d, %d): %v, want %q", c.n, c.bits, err, c.says)
		}
	}
}
