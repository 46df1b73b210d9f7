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

// runBenchGAE runs `rlx bench gae` with args, fast settings first so that
// args can override them.
func runBenchGAE(ctx context.Context, args ...string) (string, error) {
	cmd := newBenchGAECmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(append([]string{"--repeats", "3", "--min-time", "1ms"}, args...))
	err := cmd.ExecuteContext(ctx)
	return out.String(), err
}

func TestBenchGAETable(t *testing.T) {
	out, err := runBenchGAE(context.Background(), "--shapes", "16x4,32X8", "--lookahead", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GAE on the host: kernel", "median of 3 repeats", "elements/s", "vs HEPPO PE",
		"compute", "lookahead k=2", "16", "32"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 7 { // title, blank, header, 4 rows
		t.Errorf("%d lines, want 7:\n%s", n, out)
	}
}

func TestBenchGAEJSON(t *testing.T) {
	out, err := runBenchGAE(context.Background(), "--json", "--shapes", "8x8")
	if err != nil {
		t.Fatal(err)
	}
	var rep bench.GAEReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if rep.Schema != bench.GAESchema || len(rep.Results) != 1 {
		t.Fatalf("report %+v", rep)
	}
	r := rep.Results[0]
	if r.Method != "compute" || r.T != 8 || r.N != 8 || r.Repeats != 3 || r.ElementsPerSec <= 0 || r.Cores != 1 {
		t.Errorf("result %+v", r)
	}
}

func TestBenchGAEUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--shapes", "1024"}, `shape "1024" is not TxN`},
		{[]string{"--shapes", "axb"}, `shape "axb" is not TxN`},
		{[]string{"--shapes", "0x4"}, "T and N must be >= 1"},
		{[]string{"--shapes", "100000x100000"}, "too large"},
		{[]string{"--shapes", ""}, "--shapes is empty"},
		{[]string{"--repeats", "0"}, "--repeats 0"},
		{[]string{"--min-time", "-1s"}, "--min-time -1s"},
		{[]string{"--lookahead", "-1"}, "--lookahead -1"},
		{[]string{"extra"}, "unknown command"},
	} {
		_, err := runBenchGAE(context.Background(), c.args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: error %v is not a usage error", c.args, err)
			continue
		}
		if !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: error %q does not say %q", c.args, err, c.says)
		}
	}
}

// A cancelled run fails (exit status 1, not 2) and still prints the table
// header.
func TestBenchGAECancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := runBenchGAE(ctx, "--shapes", "8x8")
	var ue usageError
	if !errors.Is(err, context.Canceled) || errors.As(err, &ue) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if !strings.Contains(out, "GAE on the host") {
		t.Errorf("no header:\n%s", out)
	}
}
