package bench

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/gae"
)

func TestGAE(t *testing.T) {
	cfg := GAEConfig{
		Shapes:    []GAEShape{{16, 4}, {64, 64}},
		Repeats:   3,
		MinTime:   time.Millisecond,
		Lookahead: 2,
		Seed:      7,
	}
	rep, err := GAE(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != GAESchema || rep.Kernel != gae.Kernel() || rep.Host.CPUs < 1 {
		t.Errorf("report header %+v", rep)
	}
	if len(rep.Results) != 4 {
		t.Fatalf("%d results, want 2 shapes x 2 methods", len(rep.Results))
	}
	for i, r := range rep.Results {
		wantMethod := []string{"compute", "lookahead"}[i%2]
		s := cfg.Shapes[i/2]
		if r.Method != wantMethod || r.T != s.T || r.N != s.N || r.Elements != s.T*s.N || r.Repeats != 3 {
			t.Errorf("result %d: %+v", i, r)
		}
		if r.Method == "lookahead" && r.K != 2 {
			t.Errorf("result %d: k = %d, want 2", i, r.K)
		}
		if !(r.MinElementsPerSec <= r.ElementsPerSec && r.ElementsPerSec <= r.MaxElementsPerSec) || r.ElementsPerSec <= 0 {
			t.Errorf("result %d: rates min %v median %v max %v", i, r.MinElementsPerSec, r.ElementsPerSec, r.MaxElementsPerSec)
		}
		// ns/element and ns/call follow from the median rate.
		if d := r.NsPerElement*r.ElementsPerSec - 1e9; d > 1 || d < -1 {
			t.Errorf("result %d: ns/element %v does not match %v elements/s", i, r.NsPerElement, r.ElementsPerSec)
		}
		if d := r.NsPerCall - r.NsPerElement*float64(r.Elements); d > 1e-6*r.NsPerCall || d < -1e-6*r.NsPerCall {
			t.Errorf("result %d: ns/call %v, ns/element %v x %d", i, r.NsPerCall, r.NsPerElement, r.Elements)
		}
		if r.CallsPerRepeat < 1 {
			t.Errorf("result %d: %d calls per repeat", i, r.CallsPerRepeat)
		}
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"schema":"rlx.bench.gae/v2"`, `"host":{"goos":`, `"elements_per_sec":`, `"ns_per_element":`, `"allocs_per_call":`, `"k":2`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

func TestGAEErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  GAEConfig
		says string
	}{
		{GAEConfig{Shapes: []GAEShape{}}, "no GAE shapes"},
		{GAEConfig{Shapes: []GAEShape{{0, 4}}}, "0x4 is not allowed"},
		{GAEConfig{Shapes: []GAEShape{{1 << 20, 1 << 10}}}, "more than"},
		{GAEConfig{Repeats: -1}, "-1 repeats"},
		{GAEConfig{MinTime: -time.Second}, "minimum time -1s"},
		{GAEConfig{Lookahead: -2}, "k = -2"},
	} {
		if _, err := GAE(context.Background(), c.cfg); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want an error saying %q", c.cfg, err, c.says)
		}
	}
}

func TestGAECancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := GAE(ctx, GAEConfig{Shapes: []GAEShape{{8, 8}}, MinTime: time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if len(rep.Results) != 0 {
		t.Errorf("cancelled before the first repeat, yet %d results", len(rep.Results))
	}
}

func TestMedian(t *testing.T) {
	v := []float64{10, 1, 2}
	if m := median(v); m != 2 || v[0] != 10 {
		t.Errorf("median of 10 1 2 = %v, and v became %v", m, v)
	}
	if m := median([]float64{4, 1, 10, 2}); m != 3 {
		t.Errorf("median of 4 1 10 2 = %v", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("median of nothing = %v", m)
	}
}

func BenchmarkGAEShapes(b *testing.B) {
	for _, s := range DefaultGAEShapes {
		r, err := gaeRollout(s, 1)
		if err != nil {
			b.Fatal(err)
		}
		adv, ret := make([]float32, s.T*s.N), make([]float32, s.T*s.N)
		b.Run(s.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := gae.Compute(adv, ret, r, 0.99, 0.95); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.T*s.N)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
		})
	}
}
