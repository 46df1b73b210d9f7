package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/bench"
)

// runBenchPPO runs `rlx bench ppo` with args after fast settings, which
// args may override.
func runBenchPPO(ctx context.Context, args ...string) (string, error) {
	cmd := newBenchPPOCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append([]string{"--iterations", "1", "--warmup", "0", "--busy-wait=false"}, args...))
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

func TestBenchPPOTable(t *testing.T) {
	out, err := runBenchPPO(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"PPO on the host (wall clock)",
		"CartPole-v1 (cartpole): N=4 T=128 minibatch 128, 4 epochs, 9155 parameters; GAE rewards none/fp32, values none/fp32",
		"Hopper-workload (hopper): N=1 T=2048 minibatch 64, 10 epochs",
		"synthetic workload: its returns mean nothing; step cost 85 µs, not spent on the host",
		"SPS ", "IPS ", "ms/iteration", "trajectory collection", "inference", "env", "store", "gae",
		"network update", "loss", "backward", "optimizer", "other",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Title, then per workload: blank, header, (synthetic), run, rates,
	// table header, 8 rows.
	if n := strings.Count(out, "\n"); n != 1+2*13+1 {
		t.Errorf("%d lines:\n%s", n, out)
	}
}

func TestBenchPPOJSON(t *testing.T) {
	out, err := runBenchPPO(context.Background(), "--json", "--workloads", "CartPole", "--experiment", "5", "--bits", "6")
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.PPOReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Schema != bench.PPOSchema || len(rep.Results) != 1 {
		t.Fatalf("report %+v", rep)
	}
	r := rep.Results[0]
	if r.Workload != "cartpole" || r.Iterations != 1 || r.EnvSteps != 512 || r.SPS <= 0 || len(r.Phases) != 8 ||
		r.GAE != "rewards running/6b, values block+restore/6b" {
		t.Errorf("result %+v", r)
	}
}

func TestBenchPPOUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--workloads", "pong"}, `workload "pong" is not known: use cartpole, hopper`},
		{[]string{"--workloads", ""}, "--workloads is empty"},
		{[]string{"--iterations", "0"}, "--iterations 0 is not allowed: it must be 1..1048576"},
		{[]string{"--warmup", "-1"}, "--warmup -1 is not allowed"},
		{[]string{"--experiment", "6"}, "--experiment 6 is not allowed: seed 004 Table III has experiments 1..5"},
		{[]string{"--bits", "17"}, "--bits 17 is not allowed: it must be 1..16"},
		{[]string{"extra"}, "unknown command"},
	} {
		_, err := runBenchPPO(context.Background(), c.args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: error %v is not a usage error", c.args, err)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want %q", c.args, err, c.says)
		}
	}
}

func TestBenchPPOCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := runBenchPPO(ctx, "--json")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	var ue usageError
	if errors.As(err, &ue) {
		t.Errorf("cancellation reported as a usage error")
	}
	if !strings.Contains(out, `"schema": "rlx.bench.ppo/v2"`) {
		t.Errorf("no report written on cancellation:\n%s", out)
	}
}
