package bench

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

func TestLearn(t *testing.T) {
	progress := 0
	for _, tc := range []LearnConfig{
		{Algo: "dqn", Seeds: []uint64{1, 2}, TotalSteps: 3000, LearningStarts: 500},
		{Algo: "td3", Seeds: []uint64{3}, TotalSteps: 500, LearningStarts: 250, Depth: 2, Pacing: runtime.PaceRatio},
	} {
		tc.Progress = func(uint64, runtime.Snapshot) { progress++ }
		rep, err := Learn(context.Background(), tc)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Schema != OffPolicySchema || rep.Host.CPUs < 1 || len(rep.Results) != len(tc.Seeds) {
			t.Fatalf("report %+v", rep)
		}
		grads := (tc.TotalSteps - tc.LearningStarts) / 10
		if tc.Algo != "dqn" {
			grads = tc.TotalSteps - tc.LearningStarts
		}
		for i, r := range rep.Results {
			if r.Seed != tc.Seeds[i] || r.EnvSteps != int64(tc.TotalSteps) || r.GradSteps != int64(grads) || r.Episodes == 0 {
				t.Errorf("%s result %d: %+v", tc.Algo, i, r)
			}
			if math.IsNaN(r.FinalMean) || r.SPS <= 0 || r.GPS <= 0 || r.MaxStaleness > int64(max(tc.Depth, 1)-1) {
				t.Errorf("%s result %d: %+v", tc.Algo, i, r)
			}
		}
		if rep.Env == "" || rep.Window == 0 || rep.Threshold == 0 || math.IsNaN(rep.MedianFinal) {
			t.Errorf("%s: defaults not reported: %+v", tc.Algo, rep)
		}
	}
	b, _ := json.Marshal(LearnReport{})
	for _, key := range []string{`"schema"`, `"median_final"`, `"reached"`, `"results"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func TestLearnErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  LearnConfig
		want string
	}{
		{LearnConfig{Algo: "sac"}, `algorithm "sac"`},
		{LearnConfig{Seeds: []uint64{}}, "no seeds"},
		{LearnConfig{TotalSteps: -1}, "-1 total steps"},
		{LearnConfig{Procs: -2}, "-2 procs"},
		{LearnConfig{Env: "Pendulum-v1"}, "continuous"},
		{LearnConfig{Env: "Nope"}, `unknown environment "Nope"`},
		{LearnConfig{Procs: MaxProcs() + 1, TotalSteps: 300, LearningStarts: 100, Seeds: []uint64{1}}, "procs is out of range"},
		{LearnConfig{Threshold: math.NaN(), TotalSteps: 300, LearningStarts: 100, Seeds: []uint64{1}}, "threshold NaN"},
		{LearnConfig{Threshold: math.Inf(1), TotalSteps: 300, LearningStarts: 100, Seeds: []uint64{1}}, "threshold +Inf"},
	} {
		// Validate finds what Learn would refuse, without a run.
		if err := tc.cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: error %v, want %q", err, tc.want)
		}
		if _, err := Learn(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Learn(ctx, LearnConfig{TotalSteps: 100000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestRelaxed(t *testing.T) {
	rep, err := Relaxed(context.Background(), RelaxedConfig{Depths: []int{1, 4}, Seeds: []uint64{1}, Steps: 12000, FreeSteps: 60, Repeats: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for _, row := range rep.Rows {
		if row.FreeGPS <= 0 || len(row.Learn.Results) != 1 || row.Learn.Depth != row.Depth {
			t.Errorf("row %+v", row)
		}
		if row.Learn.Results[0].MaxStaleness > int64(row.Depth-1) || row.FreeMeanStaleness > float64(row.Depth-1) {
			t.Errorf("D = %d: staleness %v / %v", row.Depth, row.Learn.Results[0].MaxStaleness, row.FreeMeanStaleness)
		}
	}
	if _, err := Relaxed(context.Background(), RelaxedConfig{Depths: []int{0}}); err == nil {
		t.Error("D = 0 accepted")
	}
}

func TestScaling(t *testing.T) {
	rep, err := Scaling(context.Background(), ScalingConfig{Learners: []int{1, 2}, Batch: 64, GradSteps: 40, H: 4, Hidden: []int{16}})
	if err != nil {
		t.Fatal(err)
	}
	modes := []string{}
	for _, r := range rep.Rows {
		modes = append(modes, r.Mode)
		if r.GPS <= 0 || r.ModelGPS <= 0 || r.ModelSF <= 0 || r.PrintedSF <= 0 || r.MeasuredSF <= 0 {
			t.Errorf("row %+v", r)
		}
		if r.Mode == "spo" && (r.Batch != 64/r.L || r.Times.Average <= 0) {
			t.Errorf("spo row %+v", r)
		}
		if r.Mode == "data-parallel" && (r.Batch != 64 || r.Times.Average <= 0 || r.Times.WeightTrans <= 0) {
			t.Errorf("data-parallel row %+v", r)
		}
	}
	if got := strings.Join(modes, ","); got != "apex,spo,spo,data-parallel" {
		t.Fatalf("rows %s", got)
	}
	if _, err := Scaling(context.Background(), ScalingConfig{Learners: []int{3}, Batch: 64}); err == nil {
		t.Error("3 learners for a batch of 64 accepted")
	}
}

func TestSplit(t *testing.T) {
	rep, err := Split(context.Background(), SplitConfig{Cores: 3, Duration: 20 * time.Millisecond, Batch: 16})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.ActorCurve) != 2 || len(rep.LearnerCurve) != 2 || len(rep.Candidates) != 3 {
		t.Fatalf("report %+v", rep)
	}
	if rep.Best.ActorCores+rep.Best.LearnerCores > 3 || rep.Best.Throughput <= 0 {
		t.Fatalf("best %+v", rep.Best)
	}
	if _, err := Split(context.Background(), SplitConfig{Cores: 1}); err == nil {
		t.Error("1 core accepted")
	}
	// A bad interval is refused before the curves are measured, not
	// after (runtime.CoreSplit refused it only once they were).
	for _, iv := range []float64{math.Inf(1), math.NaN(), -1} {
		cfg := SplitConfig{Cores: 2, Duration: time.Millisecond, Batch: 16, Interval: iv}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "update interval") {
			t.Errorf("interval %g: Validate %v", iv, err)
		}
		if rep, err := Split(context.Background(), cfg); err == nil || len(rep.ActorCurve) != 0 {
			t.Errorf("interval %g: %v, %d points measured", iv, err, len(rep.ActorCurve))
		}
	}
}

// TestValidateBeforeRunning: Relaxed and Scaling check their whole
// configuration, the learning runs of every depth included, up front.
func TestValidateBeforeRunning(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"relaxed steps", RelaxedConfig{Steps: -1}.Validate(), "-1 total steps"},
		{"relaxed depth", RelaxedConfig{Depths: []int{1, 5000}}.Validate(), "depth D = 5000"},
		{"relaxed procs", RelaxedConfig{Procs: MaxProcs() + 1}.Validate(), "procs is out of range"},
		{"scaling learners", ScalingConfig{Learners: []int{3}}.Validate(), "divide the batch 1024"},
		{"scaling batch", ScalingConfig{Learners: []int{2}, Batch: 1}.Validate(), "divide the batch 1"},
		{"scaling procs", ScalingConfig{Procs: MaxProcs() + 1}.Validate(), "procs is out of range"},
		// The runtime's bounds, found up front: each of these ran, or
		// measured, before the run refused it.
		{"learn window", LearnConfig{Window: 2_000_000}.Validate(), "return window 2000000 is out of range: it must be 1..1048576"},
		{"learn starts", LearnConfig{LearningStarts: 1 << 41}.Validate(), "learning starts 2199023255552 is out of range: it must be 0..1099511627776"},
		{"learn depth", LearnConfig{Depth: replay.MaxDepth + 1}.Validate(), "depth D = 4097 is out of range: it must be 1..4096"},
		{"learn actors", LearnConfig{Actors: runtime.MaxActors + 1}.Validate(), "1025 actors is out of range"},
		{"scaling batch size", ScalingConfig{Learners: []int{1}, Batch: 20_000_000}.Validate(), "batch size 20000000 is out of range: it must be 1..16777216"},
		{"scaling depth", ScalingConfig{Depth: 5000}.Validate(), "depth D = 5000 is out of range: it must be 1..4096"},
		{"scaling H", ScalingConfig{H: -1}.Validate(), "H = -1 is out of range"},
		{"split batch", SplitConfig{Batch: 20_000_000}.Validate(), "batch 20000000 is out of range: it must be 1..16777216"},
		{"split cores", SplitConfig{Cores: runtime.MaxLearners + 2}.Validate(), "258 cores cannot be split: M must be 2..257"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	for _, cfg := range []any{RelaxedConfig{}, ScalingConfig{}, SplitConfig{}, LearnConfig{}} {
		if err := cfg.(interface{ Validate() error }).Validate(); err != nil {
			t.Errorf("%T{}: %v", cfg, err)
		}
	}
}
