package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/bench"
)

func runBenchOffPolicy(ctx context.Context, args ...string) (string, string, error) {
	cmd := newBenchOffPolicyCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	return out.String(), errOut.String(), err
}

func TestBenchOffPolicyLearn(t *testing.T) {
	out, _, err := runBenchOffPolicy(context.Background(), "learn", "--steps", "2500", "--learning-starts", "500", "--seeds", "1,2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DQN + PER on CartPole-v1: 2500 steps, learning starts 500", "lockstep pacing",
		"final mean(100)", "reached 475 at", "median final"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runBenchOffPolicy(context.Background(), "learn", "--algo", "td3", "--steps", "400", "--learning-starts", "200",
		"--seeds", "1", "--pacing", "ratio", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.LearnReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Schema != bench.OffPolicySchema || rep.Algo != "td3" || rep.Env != "Pendulum-v1" || rep.Pacing != "ratio" ||
		len(rep.Results) != 1 || rep.Results[0].GradSteps != 200 {
		t.Errorf("report %+v", rep)
	}
}

func TestBenchOffPolicyOthers(t *testing.T) {
	ctx := context.Background()
	out, _, err := runBenchOffPolicy(ctx, "relaxed", "--depths", "1,3", "--seeds", "1", "--steps", "11000", "--free-steps", "30", "--repeats", "1")
	if err != nil || !strings.Contains(out, "relaxed dependency") || strings.Count(out, "\n") != 5 {
		t.Errorf("relaxed: %v\n%s", err, out)
	}
	out, _, err = runBenchOffPolicy(ctx, "spo", "--learners", "2", "--batch", "64", "--grad-steps", "30", "--h", "3")
	if err != nil || !strings.Contains(out, "data-parallel") || !strings.Contains(out, "spo") || !strings.Contains(out, "apex") {
		t.Errorf("spo: %v\n%s", err, out)
	}
	out, _, err = runBenchOffPolicy(ctx, "split", "--cores", "2", "--duration", "20ms", "--batch", "16")
	if err != nil || !strings.Contains(out, "best: 1 actor core(s), 1 learner core(s)") {
		t.Errorf("split: %v\n%s", err, out)
	}
}

func TestBenchOffPolicyUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"learn", "--seeds", "1,x"},
		{"learn", "--pacing", "fast"},
		{"learn", "--procs", "-1"},
		{"learn", "--depth", "0"},
		{"learn", "--actors", "0"},
		{"relaxed", "--depths", "0"},
		{"spo", "--learners", "a"},
		{"spo", "--batch", "0"},
		{"split", "--cores", "1"},
		{"split", "--duration", "0s"},
		{"learn", "extra"},
		{"learn", "--algo", "ppo"},
	} {
		_, _, err := runBenchOffPolicy(context.Background(), args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := runBenchOffPolicy(ctx, "learn", "--steps", "100000", "--seeds", "1"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestBenchOffPolicyRefusesUpFront: every value the user gives is checked
// before any run starts, and a bad one is a usage error (exit 2) naming
// the value and what is accepted; these were exit 1, found by the run, or
// accepted. Short budgets keep a regression from running long.
func TestBenchOffPolicyRefusesUpFront(t *testing.T) {
	short := []string{"--steps", "300", "--learning-starts", "100", "--seeds", "1"}
	tooMany := strconv.Itoa(bench.MaxProcs() + 1)
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"learn", "--procs", tooMany, "--steps", "300", "--seeds", "1"}, []string{tooMany + " procs", "1.." + strconv.Itoa(bench.MaxProcs())}},
		{[]string{"learn", "--env", "Nope"}, []string{`"Nope"`, "CartPole-v1"}},
		{[]string{"learn", "--algo", "dqn", "--env", "Pendulum-v1"}, []string{"Pendulum-v1 has continuous actions", "ddpg, td3"}},
		{[]string{"learn", "--learning-starts", "-1"}, []string{"learning starts -1", "0.."}},
		{[]string{"learn", "--steps", "-1"}, []string{"-1 total steps", "1.."}},
		{[]string{"learn", "--window", "-1"}, []string{"window -1", "1.."}},
		{append([]string{"learn", "--threshold", "NaN"}, short...), []string{"threshold NaN", "a finite number"}},
		{append([]string{"learn", "--threshold", "-Inf"}, short...), []string{"threshold -Inf", "a finite number"}},
		{[]string{"relaxed", "--steps", "-1"}, []string{"-1 total steps"}},
		{[]string{"split", "--interval", "Inf", "--cores", "2", "--duration", "1ms"}, []string{"interval +Inf", "finite and > 0"}},
		{[]string{"split", "--interval", "NaN", "--cores", "2", "--duration", "1ms"}, []string{"interval NaN"}},
		{[]string{"spo", "--learners", "3", "--grad-steps", "5"}, []string{"3 learners", "divide the batch 1024"}},
		{[]string{"spo", "--batch", "1", "--learners", "2", "--grad-steps", "5"}, []string{"2 learners", "divide the batch 1"}},
		// The runtime's bounds: these ran, or measured, and then exit 1
		// with an empty report.
		{[]string{"learn", "--window", "2000000"}, []string{"return window 2000000", "1..1048576"}},
		{[]string{"learn", "--learning-starts", "2199023255552"}, []string{"learning starts 2199023255552", "0..1099511627776"}},
		{[]string{"learn", "--depth", "5000"}, []string{"depth D = 5000", "1..4096"}},
		{[]string{"relaxed", "--depths", "1,5000"}, []string{"depth D = 5000", "1..4096"}},
		{[]string{"split", "--batch", "20000000", "--cores", "2", "--duration", "1ms"}, []string{"batch 20000000", "1..16777216"}},
		{[]string{"split", "--cores", "1000", "--duration", "1ms"}, []string{"1000 cores", "2..257"}},
		{[]string{"spo", "--batch", "20000000", "--learners", "1", "--grad-steps", "5"}, []string{"batch size 20000000", "1..16777216"}},
		{[]string{"spo", "--depth", "5000", "--grad-steps", "5"}, []string{"depth D = 5000", "1..4096"}},
		// A 0 the flags would read as "the default".
		{[]string{"learn", "--depth", "0"}, []string{"--depth 0", "> 0"}},
		{[]string{"split", "--duration", "0s"}, []string{"--duration 0s", "> 0"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"bench", "offpolicy"}, tt.args...), &stdout, &stderr)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d: %s", tt.args, code, exitUsage, stderr.String())
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, stderr.String(), w)
			}
		}
		if strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
			t.Errorf("%v: not one line: %q", tt.args, stderr.String())
		}
	}
}
