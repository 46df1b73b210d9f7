package runtime

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/replay"
)

func TestCoreSplit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fa, fl   []float64
		interval float64
		m        int
		xa, xl   int
	}{
		// Linear curves: actors 1000 steps/s per core, learners 100
		// gradient steps/s per core at interval 1: learners are 10x more
		// expensive, so 9 of 10 cores learn.
		{"linear", lin(1000, 9), lin(100, 9), 1, 10, 1, 9},
		// At interval 10 one learner core consumes 1000 steps/s: an even
		// split; 5 and 5 sustain 5000.
		{"linear interval 10", lin(1000, 9), lin(100, 9), 10, 10, 5, 5},
		// Saturating learners (a GPU bottleneck, 002 §VI-E): beyond 2
		// cores they gain nothing, so the rest act.
		{"saturating learner", lin(1000, 7), []float64{300, 500, 500, 500, 500, 500, 500}, 4, 8, 2, 2},
		{"two cores", []float64{30000}, []float64{3000}, 10, 2, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			best, all, err := CoreSplit(tc.fa, tc.fl, tc.interval, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if best.ActorCores != tc.xa || best.LearnerCores != tc.xl {
				t.Fatalf("split %d actors + %d learners, want %d + %d (all: %+v)", best.ActorCores, best.LearnerCores, tc.xa, tc.xl, all[:min(3, len(all))])
			}
			// exhaustive: every pair with x_a + x_l <= M
			if want := (tc.m - 1) * tc.m / 2; len(all) != want {
				t.Fatalf("%d candidates, want %d", len(all), want)
			}
			// the best sustains at least as much as any candidate
			for _, s := range all {
				if s.Throughput > best.Throughput {
					t.Fatalf("%+v beats the chosen %+v", s, best)
				}
				if s.ActorCores+s.LearnerCores > tc.m {
					t.Fatalf("candidate %+v uses more than %d cores", s, tc.m)
				}
			}
		})
	}
	for _, tc := range []struct {
		fa, fl   []float64
		interval float64
		m        int
		want     string
	}{
		{lin(1, 3), lin(1, 3), 1, 1, "M must be >= 2"},
		{lin(1, 3), lin(1, 3), 0, 4, "update interval 0"},
		{lin(1, 1), lin(1, 3), 1, 4, "curves of 1 and 3 points"},
		{[]float64{1, math.NaN(), 3}, lin(1, 3), 1, 4, "f_a(2) = NaN"},
		{lin(1, 3), []float64{1, 2, -3}, 1, 4, "f_l(3) = -3"},
	} {
		if _, _, err := CoreSplit(tc.fa, tc.fl, tc.interval, tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func lin(per float64, n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = per * float64(i+1)
	}
	return f
}

func TestMeasureCurves(t *testing.T) {
	ctx := context.Background()
	a := &fakeAgent{}
	sps, err := MeasureActors(ctx, "CartPole-v1", a, 2, 20*time.Millisecond, 1)
	if err != nil || sps <= 0 {
		t.Fatalf("MeasureActors = %v, %v", sps, err)
	}
	rc := replay.Config{Capacity: 2000, Alpha: 0.6, Beta: 0.4, Eps: 1e-6}
	gps, err := MeasureLearners(ctx, "CartPole-v1", a, rc, 2, 32, 20*time.Millisecond, 1)
	if err != nil || gps <= 0 {
		t.Fatalf("MeasureLearners = %v, %v", gps, err)
	}
	if _, err := MeasureActors(ctx, "CartPole-v1", a, 0, time.Millisecond, 1); err == nil {
		t.Error("0 actors accepted")
	}
	if _, err := MeasureLearners(ctx, "CartPole-v1", a, rc, 0, 32, time.Millisecond, 1); err == nil {
		t.Error("0 learners accepted")
	}
}

func TestScalingModels(t *testing.T) {
	// Under 001 §5.1.4's assumptions (T_for = T_back, T^B = L T^b, no
	// update time, no replay time in T_ApeX) Eq. 5.3 as printed equals the
	// ratio of Eq. 5.2 to L times Eq. 5.1.
	p := PrimitiveTimes{L: 4, ForwardB: 8, BackwardB: 8, Forwardb: 2, Backwardb: 2,
		SubBatchTrans: 0.5, GradTrans: 0.5, WeightTrans: 0.5, Average: 1}
	if got, want := p.Eq53(), p.ScalingDataParallel(); math.Abs(got-want) > 1e-12 {
		t.Errorf("Eq53 = %v, ScalingDataParallel = %v", got, want)
	}
	// Hand value: T_ApeX = 16, T_multi = 0.5 + 2 + 2 + 0.5 + 1 + 0.5 = 6.5,
	// SF = 16 / (4 * 6.5).
	if got := p.ScalingDataParallel(); math.Abs(got-16.0/26) > 1e-12 {
		t.Errorf("ScalingDataParallel = %v, want %v", got, 16.0/26)
	}
	// Eq. 5.6 equals T_ApeX / (L T_SPO) when every b-sized primitive takes
	// 1/L of its B-sized one.
	q := PrimitiveTimes{L: 2, H: 8, SampleB: 2, PriorityB: 1, ForwardB: 6, BackwardB: 6, Update: 0.4,
		Sampleb: 1, Priorityb: 0.5, Forwardb: 3, Backwardb: 3, WeightTrans: 0.3, Average: 0.8}
	q.Update = 0 // T_Update does not shrink with b: Eq. 5.6 assumes it away
	if got, want := q.Eq56(), q.ScalingSPO(); math.Abs(got-want) > 1e-12 {
		t.Errorf("Eq56 = %v, ScalingSPO = %v", got, want)
	}
	// SPO with free averaging scales perfectly.
	q.WeightTrans, q.Average = 0, 0
	if got := q.ScalingSPO(); math.Abs(got-1) > 1e-12 {
		t.Errorf("ScalingSPO without synchronization = %v, want 1", got)
	}
	// 001 §5.1.4's example shape: speedup 1.25 at L = 2 is a factor 0.625.
	r := PrimitiveTimes{L: 2, ForwardB: 1, BackwardB: 1, Forwardb: 0.5, Backwardb: 0.5, Average: 0.6}
	if got := r.ScalingDataParallel(); math.Abs(got-2.0/(2*1.6)) > 1e-12 {
		t.Errorf("ScalingDataParallel = %v, want 0.625", got)
	}
}

func TestProfile(t *testing.T) {
	var p Profile
	u := UnitID{RoleReplay, 0}
	p.Observe(Event{Unit: u, Kind: KindSample, Items: 4, Start: 10, End: 30})
	p.Observe(Event{Unit: u, Kind: KindSample, Items: 4, Start: 40, End: 80})
	p.Observe(Event{Unit: UnitID{Role: 200}, Kind: KindSample}) // ignored
	if p.Calls(RoleReplay, KindSample) != 2 || p.Total(RoleReplay, KindSample) != 60 || p.Mean(RoleReplay, KindSample) != 30 {
		t.Fatalf("calls %d total %v mean %v", p.Calls(RoleReplay, KindSample), p.Total(RoleReplay, KindSample), p.Mean(RoleReplay, KindSample))
	}
	if p.Mean(RoleLearner, KindForward) != 0 {
		t.Fatal("mean of nothing is not 0")
	}
	allocs := testing.AllocsPerRun(100, func() { p.Observe(Event{Unit: u, Kind: KindInsert, Items: 1}) })
	if allocs != 0 {
		t.Fatalf("Observe allocates %v times", allocs)
	}
}
