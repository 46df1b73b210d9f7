package replay

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

func filled(t testing.TB, n int) *Buffer {
	t.Helper()
	b := mustNew(t, testConfig(n))
	for i := range n {
		if err := b.Add(tagged(float32(i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// TestPreSampleStaleness runs a learner loop at several depths: with D = 1
// every batch is drawn from up-to-date priorities; with D > 1 the sampler
// runs ahead, and no batch is more than D-1 updates stale.
func TestPreSampleStaleness(t *testing.T) {
	for _, depth := range []int{1, 2, 8} {
		b := filled(t, 256)
		p, err := b.PreSample(context.Background(), depth, 16, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		td := make([]float32, 16)
		for range 300 {
			batch, err := p.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if batch.Len() != 16 {
				t.Fatalf("batch of %d, want 16", batch.Len())
			}
			// Give the sampler time to fill the pipeline, as training would.
			for range 20 {
				runtime.Gosched()
			}
			if err := p.Update(batch, td); err != nil {
				t.Fatal(err)
			}
		}
		s := p.Stats()
		p.Close()
		if s.Batches != 300 || s.MaxStaleness > int64(depth-1) {
			t.Errorf("depth %d: %d batches, max staleness %d; want 300 and at most %d", depth, s.Batches, s.MaxStaleness, depth-1)
		}
		if depth > 1 && s.MeanStaleness == 0 {
			t.Errorf("depth %d: the sampler never ran ahead (mean staleness 0)", depth)
		}
		t.Logf("depth %d: mean staleness %.2f, max %d", depth, s.MeanStaleness, s.MaxStaleness)
	}
}

func TestPreSampleWaitsForData(t *testing.T) {
	b := mustNew(t, testConfig(8))
	p, err := b.PreSample(context.Background(), 2, 4, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	if _, err := p.Next(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on an empty buffer = %v, want to wait until the deadline", err)
	}
	cancel()
	_ = b.Add(tagged(1, 3, 2))
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	batch, err := p.Next(ctx)
	if err != nil || batch.Idx[0] != 0 {
		t.Fatalf("Next after the first add = %v, %v", batch, err)
	}
}

func TestPreSampleCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	b := filled(t, 64)
	ctx, cancel := context.WithCancel(context.Background())
	var ps []*PreSampler
	for range 5 {
		p, err := b.PreSample(ctx, 3, 8, rand.New(rand.NewPCG(3, 3)))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	ps[0].Close()
	if _, err := ps[0].Next(context.Background()); err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("Next after Close = %v, want a batch already sampled or ErrClosed", err)
	}
	cancel() // the others stop with their context
	for _, p := range ps {
		<-p.done
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after closing, %d before", n, before)
	}
}

func TestPreSampleRejectsBadArguments(t *testing.T) {
	b := filled(t, 8)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tc := range []struct {
		depth, n int
		want     string
	}{
		{0, 4, "depth 0 is out of range: depth must be 1..4096"},
		{MaxDepth + 1, 4, "depth 4097"},
		{2, 0, "batch size 0"},
	} {
		if _, err := b.PreSample(context.Background(), tc.depth, tc.n, rng); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PreSample(%d, %d) = %v, want %q", tc.depth, tc.n, err, tc.want)
		}
	}
}

func TestBankedRoundRobinAndWeights(t *testing.T) {
	cfg := testConfig(40)
	cfg.Alpha, cfg.Beta = 0.7, 0.6
	k, err := NewBanked(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := k.Add(tagged(float32(i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	for l := range 4 {
		if n := k.Bank(l).Len(); n != 10 {
			t.Fatalf("bank %d holds %d transitions, want 10", l, n)
		}
		// Bank l got transitions l, l+4, ...
		if k.Bank(l).rew[1] != float32(l+4) {
			t.Fatalf("bank %d slot 1 holds %v, want %v", l, k.Bank(l).rew[1], l+4)
		}
	}
	// Unequal priorities per bank.
	prio := func(l, s int) float64 { return 0.2 + float64((l+1)*(s%5+1)) }
	for l := range 4 {
		idx, p := make([]int, 10), make([]float64, 10)
		for s := range 10 {
			idx[s], p[s] = s, prio(l, s)
		}
		if err := k.Bank(l).UpdatePriorities(idx, p); err != nil {
			t.Fatal(err)
		}
	}
	// The definition: P(i) = p_i^a / (L S_l); w = (N P)^-b / max.
	total := func(l int) float64 {
		s := 0.0
		for j := range 10 {
			s += math.Pow(prio(l, j), cfg.Alpha)
		}
		return s
	}
	w := func(l, s int) float64 { return math.Pow(40*math.Pow(prio(l, s), cfg.Alpha)/(4*total(l)), -cfg.Beta) }
	wmax := 0.0
	for l := range 4 {
		for s := range 10 {
			wmax = math.Max(wmax, w(l, s))
		}
	}
	var batch Batch
	rng := rand.New(rand.NewPCG(5, 5))
	for l := range 4 {
		if err := k.Sample(l, &batch, 50, rng); err != nil {
			t.Fatal(err)
		}
		for i, s := range batch.Idx {
			if want := w(l, s) / wmax; math.Abs(float64(batch.Weights[i])-want) > 1e-6*want {
				t.Fatalf("bank %d slot %d: weight %v, want %v", l, s, batch.Weights[i], want)
			}
		}
	}
	// Updates go to the bank sampled from.
	if err := k.Sample(2, &batch, 50, rng); err != nil {
		t.Fatal(err)
	}
	if err := k.Update(2, &batch, make([]float32, 50)); err != nil || k.Bank(2).Stats().Updates != 2 || k.Bank(1).Stats().Updates != 1 {
		t.Fatalf("Update(2) = %v; bank updates %d, %d", err, k.Bank(2).Stats().Updates, k.Bank(1).Stats().Updates)
	}
	if _, err := NewBanked(cfg, 0); err == nil || !strings.Contains(err.Error(), "0 banks is out of range") {
		t.Errorf("NewBanked(0) = %v", err)
	}
	if err := k.Sample(4, &batch, 1, rng); err == nil || !strings.Contains(err.Error(), "bank 4 is out of range") {
		t.Errorf("Sample(bank 4) = %v", err)
	}
}
