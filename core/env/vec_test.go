package env

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestVecAutoreset runs a Vec of 3 CartPoles with a 5-step limit beside
// three single environments seeded the same way, and checks that the Vec
// reports exactly what the singles do: observations, rewards, truncation,
// the final observation of each episode and the reset observation after
// it, and the episode statistics.
func TestVecAutoreset(t *testing.T) {
	const n, seed = 3, 42
	v := must(MakeVec("CartPole-v1", n, seed, MaxEpisodeSteps(5)))
	singles := make([]Env, n)
	sobs := make([][]float32, n)
	for i := range singles {
		singles[i] = must(Make("CartPole-v1", rand.New(rand.NewPCG(seed, uint64(i))), MaxEpisodeSteps(5)))
		sobs[i] = make([]float32, 4)
		singles[i].Reset(sobs[i])
	}
	checkObs := func(step int, got []float32) {
		for i := range singles {
			for j := 0; j < 4; j++ {
				if got[i*4+j] != sobs[i][j] {
					t.Fatalf("step %d copy %d: obs[%d] = %g, single env %g", step, i, j, got[i*4+j], sobs[i][j])
				}
			}
		}
	}
	checkObs(0, v.Obs())
	actions := make([]int, n)
	for step := 1; step <= 12; step++ {
		for i := range actions {
			actions[i] = (step + i) % 2
		}
		if err := v.StepDiscrete(actions); err != nil {
			t.Fatal(err)
		}
		for i, e := range singles {
			r, term, trunc, err := e.Step(sobs[i], Discrete(actions[i]))
			if err != nil {
				t.Fatal(err)
			}
			if float32(r) != v.Rewards()[i] || term != v.Terminated()[i] || trunc != v.Truncated()[i] {
				t.Fatalf("step %d copy %d: vec (%g %v %v), single (%g %v %v)", step, i, v.Rewards()[i], v.Terminated()[i], v.Truncated()[i], r, term, trunc)
			}
			if trunc != (step%5 == 0) || term {
				t.Fatalf("step %d copy %d: terminated %v truncated %v, want truncation every 5 steps", step, i, term, trunc)
			}
			if term || trunc {
				for j := 0; j < 4; j++ {
					if v.FinalObs()[i*4+j] != sobs[i][j] {
						t.Fatalf("step %d copy %d: final obs[%d] = %g, single env's last obs %g", step, i, j, v.FinalObs()[i*4+j], sobs[i][j])
					}
				}
				if ret, l := v.EpisodeReturn(i); ret != 5 || l != 5 || !v.Done(i) {
					t.Fatalf("step %d copy %d: episode return %g length %d, want 5 and 5", step, i, ret, l)
				}
				e.Reset(sobs[i])
			}
		}
		checkObs(step, v.Obs())
	}
	if v.Episodes() != 6 || v.Recent().Len() != 6 || v.Recent().Mean() != 5 {
		t.Errorf("episodes %d, recent %d with mean %g; want 6, 6, 5", v.Episodes(), v.Recent().Len(), v.Recent().Mean())
	}
	if ret, l := v.Running(0); ret != 2 || l != 2 {
		t.Errorf("running episode of copy 0: return %g length %d, want 2 and 2", ret, l)
	}
}

// TestVecTerminatedAndTruncated pushes CartPole right until it falls: a
// termination, not a truncation, whose final observation is past a limit.
// Then it sets the time limit to the step the pole falls on, so that both
// flags are set on the same step.
func TestVecTerminatedAndTruncated(t *testing.T) {
	fall := 0
	for _, limit := range []int{500, 0} {
		opts := []Option{}
		if limit == 0 {
			opts = append(opts, MaxEpisodeSteps(fall))
		}
		v := must(MakeVec("CartPole-v1", 1, 7, opts...))
		for step := 1; ; step++ {
			if err := v.StepDiscrete([]int{1}); err != nil {
				t.Fatal(err)
			}
			if !v.Done(0) {
				continue
			}
			f := v.FinalObs()
			past := math.Abs(float64(f[0])) > 2.4 || math.Abs(float64(f[2])) > cpThetaLimit
			if !v.Terminated()[0] || !past {
				t.Fatalf("limit %d: done at step %d without termination (final obs %v)", limit, step, f[:4])
			}
			if limit == 500 {
				if v.Truncated()[0] {
					t.Fatalf("truncated at step %d of 500", step)
				}
				fall = step
			} else if !v.Truncated()[0] || step != fall {
				t.Fatalf("limit %d: step %d terminated %v truncated %v, want both", fall, step, v.Terminated()[0], v.Truncated()[0])
			}
			break
		}
	}
}

// TestVecBadAction checks that one bad action steps no copy and names the
// copy, the value and the range.
func TestVecBadAction(t *testing.T) {
	v := must(MakeVec("CartPole-v1", 4, 1))
	before := append([]float32(nil), v.Obs()...)
	err := v.StepDiscrete([]int{0, 1, 5, 0})
	if err == nil || !strings.Contains(err.Error(), "copy 2") || !strings.Contains(err.Error(), "action 5 out of range") {
		t.Fatalf("error %v, want one naming copy 2 and action 5", err)
	}
	for i := range before {
		if v.Obs()[i] != before[i] {
			t.Fatalf("a copy stepped despite the error: obs[%d] %g -> %g", i, before[i], v.Obs()[i])
		}
	}
	p := must(MakeVec("Pendulum-v1", 2, 1))
	if err := p.StepContinuous([]float32{0.5, float32(math.NaN())}); err == nil || !strings.Contains(err.Error(), "copy 1") {
		t.Errorf("NaN action: %v", err)
	}
	if err := p.StepContinuous([]float32{0.5, -2}); err != nil {
		t.Errorf("valid continuous step: %v", err)
	}
}

func TestVecErrors(t *testing.T) {
	if _, err := MakeVec("CartPole-v1", 0, 1); err == nil {
		t.Error("MakeVec with 0 copies accepted")
	}
	a := must(Make("CartPole-v1", newRNG(1)))
	b := must(Make("Acrobot-v1", newRNG(1)))
	if _, err := NewVec([]Env{a, b}); err == nil {
		t.Error("NewVec of CartPole and Acrobot accepted")
	}
}

func TestWindow(t *testing.T) {
	w := NewWindow(3)
	if !math.IsNaN(w.Mean()) {
		t.Error("mean of an empty window is not NaN")
	}
	for _, x := range []float64{1, 2, 3, 10} {
		w.Add(x)
	}
	if w.Len() != 3 || !w.Full() || w.Mean() != 5 {
		t.Errorf("window of 3 after 1,2,3,10: len %d mean %g, want 3 and 5", w.Len(), w.Mean())
	}
}

// TestStepAllocs checks that Step (every environment) and the Vec's Step,
// autoresets included, allocate nothing.
func TestStepAllocs(t *testing.T) {
	for _, id := range IDs() {
		e := must(Make(id, newRNG(1), MaxEpisodeSteps(7)))
		obs := make([]float32, e.Spec().Obs.Dim())
		e.Reset(obs)
		a := zeroAction(e.Spec())
		allocs := testing.AllocsPerRun(50, func() {
			if _, term, trunc, _ := e.Step(obs, a); term || trunc {
				e.Reset(obs)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: Step allocates %v times", id, allocs)
		}
	}
	v := must(MakeVec("CartPole-v1", 4, 1, MaxEpisodeSteps(3)))
	acts := []int{0, 1, 0, 1}
	if a := testing.AllocsPerRun(50, func() { v.StepDiscrete(acts) }); a != 0 {
		t.Errorf("Vec.StepDiscrete allocates %v times", a)
	}
	h := must(MakeVec("Hopper-workload", 2, 1, MaxEpisodeSteps(3)))
	ca := make([]float32, 6)
	if a := testing.AllocsPerRun(50, func() { h.StepContinuous(ca) }); a != 0 {
		t.Errorf("Vec.StepContinuous allocates %v times", a)
	}
}

func TestWindowLastMinMax(t *testing.T) {
	w := NewWindow(3)
	if lo, hi := w.MinMax(); !math.IsNaN(w.Last()) || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Error("an empty window has a last value or bounds")
	}
	for _, x := range []float64{5, -2, 7, 1} { // 5 drops out
		w.Add(x)
	}
	if lo, hi := w.MinMax(); w.Last() != 1 || lo != -2 || hi != 7 || w.Mean() != 2 {
		t.Errorf("last %v, min %v, max %v, mean %v; want 1, -2, 7, 2", w.Last(), lo, hi, w.Mean())
	}
}
