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
