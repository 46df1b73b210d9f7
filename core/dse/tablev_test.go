package dse

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// tableVDivergences are the Table V cells the model does not reproduce.
var tableVDivergences = map[string]divergence{}

// TestTableVOptimalMappings checks, for every column of 000 Table V, that
// the exploration built from the Table IV specs and the Table III workloads
// returns the published mapping (seed-tables.yaml optimal_mapping).
func TestTableVOptimalMappings(t *testing.T) {
	s := loadSeedTables(t)
	p := tableIV(t)
	matched := 0
	for _, want := range s.Heterogeneous.OptimalMapping {
		key := fmt.Sprintf("%s/%d", want.Env, want.Batch)
		t.Run(key, func(t *testing.T) {
			r := explore(t, p, want.Env, want.Batch)
			got := r.Decision.Mapping.String()
			if got == want.Mapping {
				matched++
			}
			verdict(t, key, got == want.Mapping, tableVDivergences,
				fmt.Sprintf("model %s (%.1f GPS), published %s", got, r.Chosen.GPS, want.Mapping))
		})
	}
	t.Logf("Table V: %d of %d mappings reproduced", matched, len(s.Heterogeneous.OptimalMapping))
	if matched+len(tableVDivergences) != len(s.Heterogeneous.OptimalMapping) {
		t.Errorf("%d matched + %d known divergences != %d columns", matched, len(tableVDivergences), len(s.Heterogeneous.OptimalMapping))
	}
}

// TestTableVBaselines prints the model's speedups beside the published ones
// and checks the qualitative part: the chosen mapping is never slower than
// any other mapping by more than the 5% of 000 Fig. 13.
func TestTableVBaselines(t *testing.T) {
	s := loadSeedTables(t)
	p := tableIV(t)
	for _, b := range s.Heterogeneous.BaselineSpeedups {
		r := explore(t, p, b.Env, b.Batch)
		t.Logf("%-8s B=%-5d 2nd best: model %s %.2fx, published %s %.2fx | worst: model %s %.1fx, published %s %.1fx",
			b.Env, b.Batch, r.SecondBest.Mapping, r.SpeedupOverSecond(), b.SecondBest, b.Speedup,
			r.Worst.Mapping, r.SpeedupOverWorst(), b.Worst, b.WorstSpeedup)
		if r.SpeedupOverSecond() < 0.95 {
			t.Errorf("%s B=%d: chosen %s is %.2fx of the second best %s", b.Env, b.Batch, r.Decision.Mapping, r.SpeedupOverSecond(), r.SecondBest.Mapping)
		}
	}
}

// TestTableVSweepUnderASecond times the whole grid (the benchmark is
// BenchmarkTableVSweep; a run takes about 10 ms).
func TestTableVSweepUnderASecond(t *testing.T) {
	p := tableIV(t)
	start := time.Now()
	rs, err := Sweep(context.Background(), p, TableVGrid)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second || len(rs) != len(TableVGrid) {
		t.Errorf("sweep of %d configurations took %v (want < 1 s)", len(rs), d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rs, err := Sweep(ctx, p, TableVGrid); err == nil || len(rs) != 0 {
		t.Errorf("cancelled sweep returned %d results, err %v", len(rs), err)
	}
}
