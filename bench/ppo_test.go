package bench

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/gae"
)

func TestPPO(t *testing.T) {
	rep, err := PPO(context.Background(), PPOConfig{Iterations: 2, Warmup: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != PPOSchema || rep.Host.CPUs < 1 || len(rep.Results) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []struct {
		name, env      string
		synthetic      bool
		n, t, m, k     int
		stepsPerIter   int
		updatesPerIter float64
	}{
		{"cartpole", "CartPole-v1", false, 4, 128, 128, 4, 512, 16},
		{"hopper", "Hopper-workload", true, 1, 2048, 64, 10, 2048, 320},
	} {
		r := rep.Results[i]
		if r.Workload != want.name || r.Env != want.env || r.Synthetic != want.synthetic || r.N != want.n || r.T != want.t ||
			r.M != want.m || r.K != want.k || r.Iterations != 2 || r.Warmup != 1 || r.EnvSteps != int64(2*want.stepsPerIter) {
			t.Errorf("result %d: %+v", i, r)
		}
		if r.SPS <= 0 || !(r.MinIPS <= r.IPS && r.IPS <= r.MaxIPS) || math.Abs(r.SPS*r.Seconds-float64(r.EnvSteps)) > 1e-6*float64(r.EnvSteps) {
			t.Errorf("%s: SPS %v over %v s for %d steps, IPS %v..%v..%v", r.Workload, r.SPS, r.Seconds, r.EnvSteps, r.MinIPS, r.IPS, r.MaxIPS)
		}
		// Table I's rows in order, then other; the shares add to 100%.
		names := []string{"inference", "env", "store", "gae", "loss", "backward", "optimizer", "other"}
		if len(r.Phases) != len(names) {
			t.Fatalf("%s: %d phase rows", r.Workload, len(r.Phases))
		}
		var pct float64
		for j, p := range r.Phases {
			pct += p.Percent
			if p.Phase != names[j] || (p.Phase != "other" && (p.Seconds <= 0 || p.Calls <= 0)) {
				t.Errorf("%s row %d: %+v", r.Workload, j, p)
			}
		}
		if math.Abs(pct-100) > 1e-6 {
			t.Errorf("%s: phase shares add to %v%%", r.Workload, pct)
		}
		env, gaeRow, loss, opt := r.Phases[1], r.Phases[3], r.Phases[4], r.Phases[6]
		if env.Calls != float64(want.t) || env.Items != float64(want.stepsPerIter) || gaeRow.Items != float64(want.stepsPerIter) ||
			loss.Calls != want.updatesPerIter || loss.Items != want.updatesPerIter*float64(want.m) || opt.Items != want.updatesPerIter*float64(r.Params) {
			t.Errorf("%s: per-iteration counts env %+v gae %+v loss %+v optimizer %+v", r.Workload, env, gaeRow, loss, opt)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"schema":"rlx.bench.ppo/v2"`, `"host":{"goos":`, `"sps":`, `"ips":`, `"phases":[`, `"seconds_per_iteration":`, `"group":"trajectory collection"`, `"synthetic":true`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

// The Hopper workload spending its step cost: the environment phase holds
// at least 2048 x 85 µs per iteration and dominates the rollout, as in 004
// Table I (its share of the whole iteration depends on the GEMM kernel).
func TestPPOBusyWait(t *testing.T) {
	if testing.Short() {
		t.Skip("spins 85 µs per step")
	}
	rep, err := PPO(context.Background(), PPOConfig{Workloads: []string{"hopper"}, Iterations: 1, BusyWait: true, GAE: gae.HEPPO()})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Results[0]
	if !r.BusyWait || r.StepCostSeconds != 85e-6 || r.Phases[1].Seconds < 2048*85e-6 || r.Phases[1].Seconds < 4*r.Phases[0].Seconds || !strings.Contains(r.GAE, "8b") {
		t.Errorf("busy Hopper: %+v", r)
	}
}

func TestPPOErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  PPOConfig
		says string
	}{
		{PPOConfig{Workloads: []string{"pong"}}, `unknown PPO workload "pong": known are cartpole, hopper`},
		{PPOConfig{Workloads: []string{}}, "no PPO workloads"},
		{PPOConfig{Iterations: -1}, "-1 PPO iterations is not allowed"},
		{PPOConfig{Warmup: -2}, "-2 warm-up iterations is not allowed"},
		{PPOConfig{GAE: gae.Options{Clip: -1}}, "Clip = -1 is not allowed"},
	} {
		if _, err := PPO(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.says)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := PPO(ctx, PPOConfig{Iterations: 1})
	if !errors.Is(err, context.Canceled) || len(rep.Results) != 0 || rep.Schema != PPOSchema {
		t.Errorf("cancelled: %v, %+v", err, rep)
	}
}
