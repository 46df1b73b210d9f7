package bench

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/internal/machine"
)

func quickSumTree() SumTreeOptions {
	return SumTreeOptions{
		Capacities: []int{1000}, Batches: []int{16, 64}, Fanouts: []int{4, 16},
		LockCapacities: []int{500}, LockFanouts: []int{4, 16}, LockBatch: 8, Goroutines: 2,
		Repeats: 3, MinTime: 2 * time.Millisecond,
	}
}

func TestSumTreeResultShape(t *testing.T) {
	var lines []string
	res, err := SumTree(context.Background(), quickSumTree(), func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Schema != SumTreeSchema || res.Host.CPUs < 1 {
		t.Errorf("schema %q, host %+v", res.Schema, res.Host)
	}
	// 3 trees (binary, K=4, K=16) x 2 batches x 2 ops.
	if len(res.Ops) != 12 {
		t.Fatalf("%d op figures, want 12", len(res.Ops))
	}
	for _, r := range res.Ops {
		if len(r.Runs) != 3 || !(r.NsPerIndex > 0) || (r.Tree == "binary" && r.Fanout != 2) || (r.Tree != "binary" && r.Tree != "k-ary") {
			t.Errorf("bad figure %+v", r)
		}
		if m := median(r.Runs); m != r.NsPerIndex {
			t.Errorf("%+v: reported %v, median of runs %v", r, r.NsPerIndex, m)
		}
	}
	// The baseline and two fanouts at one capacity, and the best of them.
	if len(res.Locks) != 3 || res.Locks[0].Locking != "global-lock" || res.Locks[0].Speedup != 1 {
		t.Fatalf("lock figures %+v", res.Locks)
	}
	if len(res.BestK) != 1 || (res.BestK[0].Fanout != 4 && res.BestK[0].Fanout != 16) {
		t.Fatalf("best K %+v", res.BestK)
	}
	for _, l := range res.Locks[1:] {
		if l.Locking != "two-locks" || !(l.RoundsPerS > 0) || l.Speedup != l.RoundsPerS/res.Locks[0].RoundsPerS {
			t.Errorf("bad lock figure %+v", l)
		}
		if l.Speedup > res.BestK[0].Speedup {
			t.Errorf("K=%d has speedup %v above the best %v", l.Fanout, l.Speedup, res.BestK[0].Speedup)
		}
	}
	if len(lines) != 12+3 {
		t.Errorf("%d progress lines, want 15", len(lines))
	}
}

// TestSumTreeHostJSON checks that the embedded machine.Host marshals into
// the same object as vector_search, keeping schema v1's flat "host".
func TestSumTreeHostJSON(t *testing.T) {
	h := SumTreeHost{Host: machine.Host{GOOS: "linux", GOARCH: "amd64", CPUs: 2, GOMAXPROCS: 2, GoVersion: "go1.26.8"}, VectorSearch: true}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"goos":"linux","goarch":"amd64","cpus":2,"gomaxprocs":2,"go_version":"go1.26.8","vector_search":true}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

func TestSumTreeRejectsBadOptions(t *testing.T) {
	tests := []struct {
		mutate func(*SumTreeOptions)
		want   string
	}{
		{func(o *SumTreeOptions) { o.Capacities = []int{0} }, "capacity 0 is out of range"},
		{func(o *SumTreeOptions) { o.Fanouts = []int{1} }, "fanout 1 is not allowed: fanout must be 2..4096"},
		{func(o *SumTreeOptions) { o.Batches = []int{-1} }, "batch size -1"},
		{func(o *SumTreeOptions) { o.Goroutines = 1000 }, "goroutines 1000"},
		{func(o *SumTreeOptions) { o.Repeats = -2 }, "repeats -2"},
		{func(o *SumTreeOptions) { o.MinTime = time.Nanosecond }, "time per measurement 1ns"},
	}
	for _, tt := range tests {
		o := quickSumTree()
		tt.mutate(&o)
		if _, err := SumTree(context.Background(), o, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("SumTree(%+v) = %v, want %q", o, err, tt.want)
		}
	}
}

func TestSumTreeStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SumTree(ctx, quickSumTree(), nil); err != context.Canceled {
		t.Errorf("SumTree with a cancelled context = %v", err)
	}
}

// TestRoundsPerSecondNeverZero: a measurement whose goroutines start after
// its deadline (here MinTime 0, on a loaded machine a short one) still
// counts their first rounds, so no speedup over it is infinite.
func TestRoundsPerSecondNeverZero(t *testing.T) {
	buf, err := replay.New(replay.Config{Capacity: 256, ObsDim: 1, ActDim: 1, Fanout: 2, Alpha: 1, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	tr := replay.Transition{Obs: []float32{0}, Action: []float32{0}, NextObs: []float32{0}}
	for buf.Len() < 256 {
		if err := buf.Add(tr); err != nil {
			t.Fatal(err)
		}
	}
	if r := roundsPerSecond(buf, SumTreeOptions{Goroutines: 2, LockBatch: 8}); !(r > 0) || math.IsInf(r, 0) {
		t.Errorf("rounds per second %v with a deadline already past, want a finite rate above 0", r)
	}
}
