package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/bench"
)

func TestBenchSumtree(t *testing.T) {
	tiny := []string{"bench", "sumtree", "--capacity", "512", "--batch", "8", "--fanout", "4",
		"--lock-capacity", "256", "--lock-fanout", "8", "--lock-batch", "4", "--repeats", "1", "--min-time", "1ms"}

	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append(tiny, "--json"), &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res bench.SumTreeResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, stdout.String())
	}
	if res.Schema != bench.SumTreeSchema || len(res.Ops) != 4 || len(res.BestK) != 1 {
		t.Errorf("JSON = %+v", res)
	}
	if !strings.Contains(stderr.String(), "ns/index") {
		t.Errorf("no progress on stderr: %q", stderr.String())
	}

	stdout.Reset()
	if code := run(context.Background(), tiny, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"FindBatch, ns per sampled index, capacity 512", "binary", "K=4", "002 Fig. 9", "best K"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, stdout.String())
		}
	}

	stderr.Reset()
	if code := run(context.Background(), []string{"bench", "sumtree", "--fanout", "1"}, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "fanout 1 is not allowed") {
		t.Errorf("--fanout 1: exit %d, stderr %q; want exit 2 naming the fanout", code, stderr.String())
	}
}

// TestBenchSumtreeQuickKeepsFlags: --quick shortens only what the user did
// not set; it used to replace --batch, --fanout, --lock-fanout, --repeats
// and --min-time, so bad values were never checked.
func TestBenchSumtreeQuickKeepsFlags(t *testing.T) {
	args := []string{"bench", "sumtree", "--quick", "--json", "--capacity", "512", "--lock-capacity", "256",
		"--batch", "8", "--fanout", "4", "--lock-fanout", "8", "--lock-batch", "4", "--repeats", "2", "--min-time", "1ms"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res bench.SumTreeResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("--json output does not parse: %v", err)
	}
	if len(res.Ops) == 0 || len(res.Locks) == 0 {
		t.Fatalf("no results: %d ops, %d lock points", len(res.Ops), len(res.Locks))
	}
	for _, op := range res.Ops {
		if op.Batch != 8 || (op.Tree == "k-ary" && op.Fanout != 4) || len(op.Runs) != 2 {
			t.Errorf("op %+v: want batch 8, fanout 4 and 2 runs, as given", op)
		}
	}
	for _, l := range res.Locks {
		if l.Locking == "two-locks" && l.Fanout != 8 {
			t.Errorf("lock point %+v: want fanout 8, as given", l)
		}
	}
}

// TestBenchSumtreeRejects: invalid values are refused with or without
// --quick, and 0 is not a default for the counts (the flags' help gives
// no such meaning).
func TestBenchSumtreeRejects(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--quick", "--fanout", "1"}, "fanout 1 is not allowed"},
		{[]string{"--quick", "--fanout", "5000"}, "fanout 5000 is not allowed"},
		{[]string{"--quick", "--lock-fanout", "1"}, "fanout 1 is not allowed"},
		{[]string{"--quick", "--batch", "-1"}, "batch size -1 is out of range"},
		{[]string{"--quick", "--min-time", "-1s"}, "time per measurement -1s is out of range"},
		{[]string{"--quick", "--repeats", "0"}, "repeats 0 is out of range"},
		{[]string{"--goroutines", "0"}, "goroutines 0 is out of range"},
		{[]string{"--quick", "--goroutines", "0"}, "goroutines 0 is out of range"},
		{[]string{"--lock-batch", "0"}, "two-lock batch size 0 is out of range"},
		{[]string{"--repeats", "0"}, "repeats 0 is out of range"},
	} {
		// Small sizes, so that a value let through runs briefly.
		args := append([]string{"bench", "sumtree", "--capacity", "512", "--lock-capacity", "256"}, tt.args...)
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}
