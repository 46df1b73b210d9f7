package gae

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// allOptions is a spread of configurations: the experiments of 004 Table
// III and some the paper did not run.
func allOptions() []Options {
	var opts []Options
	for n := 1; n <= 5; n++ {
		o, _ := Experiment(n)
		opts = append(opts, o)
	}
	return append(opts,
		Options{Rewards: Stream{Bits: 12}, Values: Stream{Bits: 6}, Clip: 20},
		Options{Rewards: Stream{Scaling: BlockScaling, Bits: 16}, Values: Stream{Scaling: RunningScaling, Bits: 3}},
		Options{Values: Stream{Scaling: BlockScaling}},
		Options{Rewards: Stream{Scaling: RunningScaling, Restore: true, Bits: 1}, Values: Stream{Scaling: BlockScaling, Bits: 10}, Clip: 2.5},
	)
}

func TestEstimatorZeroOptionsIsCompute(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	r := randomRollout(rng, 50, 20, 0.05, 0.05)
	e, err := NewEstimator(50, 20, Options{})
	if err != nil {
		t.Fatal(err)
	}
	adv, ret, err := e.Estimate(r, 0.99, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want, wantRet := make([]float32, 1000), make([]float32, 1000)
	if err := Compute(want, wantRet, r, 0.99, 0.95); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if adv[i] != want[i] || ret[i] != wantRet[i] {
			t.Fatalf("element %d: %v/%v, Compute gives %v/%v", i, adv[i], ret[i], want[i], wantRet[i])
		}
	}
}

// manual is the pipeline of 004 §II written out step by step, in float64:
// standardize, quantize, de-quantize, de-standardize, then the reference.
// Running statistics are carried in stats across batches.
func manual(opt Options, stats *[2]RunningStats, r Rollout, gamma, lambda float32) (adv, ret []float64) {
	clip := opt.clip()
	read := func(s Stream, st *RunningStats, own, x []float32) ([]float32, Scale) {
		sc := Scale{0, 1}
		switch s.Scaling {
		case RunningScaling:
			for _, v := range own {
				st.Push(float64(v))
			}
			sc = Scale{st.Mean, max(st.Std(), MinStd)}
		case BlockScaling:
			var b RunningStats
			for _, v := range own {
				b.Push(float64(v))
			}
			sc = Scale{b.Mean, max(b.Std(), MinStd)}
		}
		out := make([]float32, len(x))
		var q Quantizer
		if s.Bits > 0 {
			q, _ = NewQuantizer(s.Bits, clip)
		}
		for i, v := range x {
			z := (float64(v) - sc.Mean) / sc.Std
			if s.Bits > 0 {
				z = float64(q.Value(q.code(z)))
			}
			if s.Restore {
				z = z*sc.Std + sc.Mean
			}
			out[i] = float32(z)
		}
		return out, sc
	}
	m := r
	m.Rewards, _ = read(opt.Rewards, &stats[0], r.Rewards, r.Rewards)
	vst := stats[1]
	m.Values, _ = read(opt.Values, &stats[1], r.Values, r.Values)
	m.NextValues, _ = read(opt.Values, &vst, r.Values, r.NextValues) // the same scale as Values
	adv, ret = make([]float64, r.T*r.N), make([]float64, r.T*r.N)
	if err := Reference(adv, ret, m, float64(gamma), float64(lambda)); err != nil {
		panic(err)
	}
	return adv, ret
}

// TestEstimatorMatchesManual checks the fused Estimator against the
// step-by-step pipeline for every configuration over three batches, so
// that running statistics carry over.
func TestEstimatorMatchesManual(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	T, N := 40, 13
	for _, opt := range allOptions() {
		for _, inPlace := range []bool{false, true} {
			opt.InPlace = inPlace
			e, err := NewEstimator(T, N, opt)
			if err != nil {
				t.Fatal(err)
			}
			var stats [2]RunningStats
			for batch := range 3 {
				r := randomRollout(rng, T, N, 0.05, 0.05)
				for i := range r.Rewards {
					r.Rewards[i] = 3*r.Rewards[i] + float32(batch) // the reward scale drifts
				}
				wantAdv, wantRet := manual(opt, &stats, r, 0.97, 0.9)
				rewards, values := r.Rewards, r.Values
				adv, ret, err := e.Estimate(r, 0.97, 0.9)
				if err != nil {
					t.Fatal(err)
				}
				if inPlace && (&adv[0] != &rewards[0] || &ret[0] != &values[0]) {
					t.Fatalf("%v: in place, the outputs are not Rewards and Values", opt)
				}
				for i := range adv {
					// Relative to the rollout's scale: the float32 kernel
					// and the fused affine reads round differently.
					lim := 2e-5 * (1 + math.Abs(wantAdv[i]) + math.Abs(wantRet[i]) + 30)
					if math.Abs(float64(adv[i])-wantAdv[i]) > lim || math.Abs(float64(ret[i])-wantRet[i]) > lim {
						t.Fatalf("%v batch %d element %d: %v/%v, manual pipeline %v/%v",
							opt, batch, i, adv[i], ret[i], wantAdv[i], wantRet[i])
					}
				}
				if opt.Rewards.Scaling == RunningScaling {
					got := e.RewardStats()
					if got.N != stats[0].N || math.Abs(got.Mean-stats[0].Mean) > 1e-9 {
						t.Fatalf("%v: running reward stats %+v, want %+v", opt, got, stats[0])
					}
					if sc := e.Scales().Rewards; math.Abs(sc.Std-stats[0].Std()) > 1e-9 {
						t.Fatalf("%v: reward scale %+v, running std %v", opt, sc, stats[0].Std())
					}
				}
			}
		}
	}
}

// TestEstimatorState checks that a rejected batch changes nothing, and the
// checkpoint methods.
func TestEstimatorState(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	e, err := NewEstimator(8, 4, HEPPO())
	if err != nil {
		t.Fatal(err)
	}
	r := randomRollout(rng, 8, 4, 0.1, 0.1)
	if _, _, err := e.Estimate(r, 0.99, 0.95); err != nil {
		t.Fatal(err)
	}
	before := e.RewardStats()
	bad := cloneRollout(r)
	bad.Values[7] = float32(math.Inf(1))
	if _, _, err := e.Estimate(bad, 0.99, 0.95); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "Values[7]") {
		t.Fatalf("Inf value: %v", err)
	}
	if _, _, err := e.Estimate(r, 0.99, 1.5); !errors.Is(err, ErrRange) {
		t.Fatalf("lambda 1.5: %v", err)
	}
	small := randomRollout(rng, 4, 4, 0, 0)
	if _, _, err := e.Estimate(small, 0.99, 0.95); !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "4x4") {
		t.Fatalf("wrong shape: %v", err)
	}
	if e.RewardStats() != before {
		t.Fatalf("rejected batches changed the running statistics: %+v -> %+v", before, e.RewardStats())
	}
	for _, s := range []RunningStats{{N: -1}, {N: 3, Mean: math.NaN()}, {N: 3, M2: -1}, {N: 0, Mean: 1}} {
		if err := e.SetRewardStats(s); !errors.Is(err, ErrRange) {
			t.Errorf("SetRewardStats(%+v): %v", s, err)
		}
	}
	if e.RewardStats() != before {
		t.Fatal("a rejected SetRewardStats changed the statistics")
	}
	want := RunningStats{N: 10, Mean: 2, M2: 40}
	if err := e.SetRewardStats(want); err != nil || e.RewardStats() != want {
		t.Fatalf("SetRewardStats: %v, stats %+v", err, e.RewardStats())
	}
	e.Reset()
	if e.RewardStats() != (RunningStats{}) {
		t.Fatal("Reset kept the statistics")
	}
}

// TestDeviationBound checks the error quantization adds against its
// bound. Without clipping each de-quantized input is within step/2 (in
// standard deviations) of its float32 value, so each delta is within
// e = step/2*(s_r + (1+gamma)*s_v) and each advantage within e/(1-C),
// where s is the stream's standard deviation if it is restored and 1 if
// it is kept standardized.
func TestDeviationBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 48))
	r := randomRollout(rng, 256, 16, 0.02, 0.02)
	gamma, lambda := float32(0.99), float32(0.95)
	c := float64(gamma) * float64(lambda)
	prev := math.Inf(1)
	for _, bits := range []int{4, 6, 8, 10, 12, 16} {
		opt := HEPPO()
		opt.Rewards.Bits, opt.Values.Bits = bits, bits
		opt.Clip = 12 // wide enough that nothing clips
		d, err := MeasureDeviation(opt, r, gamma, lambda)
		if err != nil {
			t.Fatal(err)
		}
		if d.Clipped != 0 {
			t.Fatalf("%d bits: %d inputs clipped", bits, d.Clipped)
		}
		var vs RunningStats
		vs.Update(r.Values)
		step := 2 * 12 / float64(int(1)<<bits-1)
		e := step / 2 * (1 + (1+float64(gamma))*vs.Std())
		bound := e/(1-c) + 1e-5*(1+d.RMSAdvFP32)
		if d.MaxAbsAdv > bound {
			t.Errorf("%d bits: max |A - A_fp32| = %g above the bound %g", bits, d.MaxAbsAdv, bound)
		}
		if d.RMSAdv >= prev {
			t.Errorf("%d bits: RMS error %g did not fall (previous %g)", bits, d.RMSAdv, prev)
		}
		if d.MaxAbsAdv == 0 {
			t.Errorf("%d bits: no error at all: quantization is not applied", bits)
		}
		prev = d.RMSAdv
	}
	d, err := MeasureDeviation(Options{Rewards: Stream{Scaling: RunningScaling}}, r, gamma, lambda)
	if err != nil || d.MaxAbsAdv != 0 || d.MaxAbsRet != 0 {
		t.Errorf("float32 options: %+v, %v; want no deviation", d, err)
	}
	// With the default clip some inputs of a heavy-tailed stream clip.
	heavy := cloneRollout(r)
	heavy.Rewards[5] = 1000
	d, err = MeasureDeviation(HEPPO(), heavy, gamma, lambda)
	if err != nil || d.Clipped == 0 {
		t.Errorf("an outlier reward did not clip: %+v, %v", d, err)
	}
}

func TestFootprint(t *testing.T) {
	inPlace := func(o Options) Options { o.InPlace = true; return o }
	tests := []struct {
		opt       Options
		want      Footprint
		total, rv int
	}{
		{Options{}, Footprint{4, 4, 4, 2, 8}, 22, 8},
		{inPlace(Options{}), Footprint{4, 4, 4, 2, 0}, 14, 8},
		{HEPPO(), Footprint{1, 1, 1, 2, 8}, 13, 2},
		{inPlace(HEPPO()), Footprint{1, 1, 1, 2, 8}, 13, 2},
		{Options{Rewards: Stream{Bits: 12}, Values: Stream{Bits: 16}}, Footprint{2, 2, 2, 2, 8}, 16, 4},
		{inPlace(Options{Rewards: Stream{Bits: 8}}), Footprint{1, 4, 4, 2, 4}, 15, 5},
	}
	for _, tt := range tests {
		f := tt.opt.Footprint()
		if f != tt.want || f.Total() != tt.total || f.RewardsValues() != tt.rv {
			t.Errorf("%v: %+v total %d rv %d, want %+v %d %d", tt.opt, f, f.Total(), f.RewardsValues(), tt.want, tt.total, tt.rv)
		}
	}
	// 004 §IV-A, §V-D2: 8-bit storage is a 4x reduction of the rewards
	// and values.
	if fp, q := (Options{}).Footprint().RewardsValues(), HEPPO().Footprint().RewardsValues(); fp != 4*q {
		t.Errorf("fp32 %d bytes, 8-bit %d bytes: not 4x", fp, q)
	}
}

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		opt  Options
		says string
	}{
		{Options{Rewards: Stream{Bits: 17}}, "Rewards.Bits = 17"},
		{Options{Values: Stream{Bits: -1}}, "Values.Bits = -1"},
		{Options{Values: Stream{Scaling: 9}}, "Values.Scaling = 9"},
		{Options{Clip: -1}, "Clip = -1"},
		{Options{Clip: float32(math.NaN())}, "Clip = NaN"},
		{Options{Clip: float32(math.Inf(1))}, "Clip = +Inf"},
		// A clip whose quantizer step is not a normal float32 (L9).
		{Options{Rewards: Stream{Scaling: RunningScaling, Bits: 8}, Values: Stream{Scaling: BlockScaling, Restore: true, Bits: 8}, Clip: 1e-45},
			"Rewards.Bits = 8 needs Clip 0 (selects 4) or a clip its quantizer takes: gae: parameter out of range: clip = 1e-45 is not allowed with 8-bit codes: clip must be 1.4987553e-36..3.4028235e+38"},
		{Options{Values: Stream{Bits: 16}, Clip: 1e-35}, "Values.Bits = 16 needs Clip 0 (selects 4) or a clip its quantizer takes: gae: parameter out of range: clip = 1e-35 is not allowed with 16-bit codes: clip must be 3.851801e-34.."},
		{Options{Rewards: Stream{Bits: 1}, Clip: 3e38}, "Rewards.Bits = 1 needs Clip 0 (selects 4) or a clip its quantizer takes: gae: parameter out of range: clip = 3e+38 is not allowed with 1-bit codes: clip must be 1.1754944e-38..1.7014117e+38"},
		{Options{Clip: 1e-45}, "Clip = 1e-45 is not allowed: Clip must be 0 (selects 4) or a normal float32, >= 1.1754944e-38"},
	}
	for _, tt := range tests {
		if err := tt.opt.Validate(); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%+v: Validate() = %v, want ErrRange saying %q", tt.opt, err, tt.says)
		}
		if _, err := NewEstimator(4, 4, tt.opt); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("%+v: %v, want ErrRange saying %q", tt.opt, err, tt.says)
		}
	}
	// The smallest clips with a normal step are accepted.
	for _, opt := range []Options{{Values: Stream{Bits: 16}, Clip: 1e-33}, {Rewards: Stream{Bits: 8}, Clip: 1.5e-36}, {Clip: 1.2e-38}} {
		if _, err := NewEstimator(4, 4, opt); err != nil {
			t.Errorf("%+v: %v", opt, err)
		}
	}
	if _, err := NewEstimator(0, 4, Options{}); !errors.Is(err, ErrShape) {
		t.Errorf("T = 0: %v", err)
	}
	for _, n := range []int{0, 6} {
		if _, err := Experiment(n); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "1..5") {
			t.Errorf("Experiment(%d): %v", n, err)
		}
	}
	if o, _ := Experiment(5); o != HEPPO() {
		t.Error("experiment 5 is not HEPPO()")
	}
}

func TestOptionsString(t *testing.T) {
	o := HEPPO()
	o.InPlace = true
	if got, want := o.String(), "rewards running/8b, values block+restore/8b, in place"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got := fmt.Sprint(Scaling(7)); got != "Scaling(7)" {
		t.Errorf("Scaling(7) prints %q", got)
	}
}
