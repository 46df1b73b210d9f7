package env

import (
	"math"
	"testing"
	"time"
)

func TestWorkloadSpecs(t *testing.T) {
	for _, tc := range []struct {
		id          string
		obs         []int
		act         int
		discrete    bool
		lo, hi      float32
		defaultCost time.Duration
	}{
		{"Hopper-workload", []int{11}, 3, false, -1, 1, 85 * time.Microsecond},
		{"Ant-workload", []int{27}, 8, false, -1, 1, 85 * time.Microsecond},
		{"Humanoid-workload", []int{376}, 17, false, -0.4, 0.4, 85 * time.Microsecond},
		{"Pong-workload", []int{4, 84, 84}, 6, true, 0, 0, 1024 * time.Microsecond},
	} {
		s := must(Make(tc.id, newRNG(1))).Spec()
		if !s.Workload || s.StepCost != tc.defaultCost || len(s.Obs.Shape) != len(tc.obs) || s.Act.Dim() != tc.act || s.Act.Discrete() != tc.discrete {
			t.Errorf("%s: spec %+v", tc.id, s)
		}
		for i, d := range tc.obs {
			if s.Obs.Shape[i] != d {
				t.Errorf("%s: obs shape %v, want %v", tc.id, s.Obs.Shape, tc.obs)
			}
		}
		if !tc.discrete && (s.Act.Low[0] != tc.lo || s.Act.High[0] != tc.hi) {
			t.Errorf("%s: action bounds [%g, %g], want [%g, %g]", tc.id, s.Act.Low[0], s.Act.High[0], tc.lo, tc.hi)
		}
		if c := must(Make(tc.id, newRNG(1), StepCost(3*time.Millisecond))).Spec().StepCost; c != 3*time.Millisecond {
			t.Errorf("%s: StepCost option gave %v", tc.id, c)
		}
	}
	for _, id := range []string{"CartPole-v1", "Pendulum-v1"} {
		if s := must(Make(id, newRNG(1))).Spec(); s.Workload || s.StepCost != 0 {
			t.Errorf("%s is marked as a workload (%v, %v)", id, s.Workload, s.StepCost)
		}
	}
}

// TestWorkloadStatistics runs Humanoid-workload with random actions for
// 20000 steps and checks each group's statistics: the AR groups' standard
// deviation within 25% of sigma plus the action drive (the coupling adds a
// little variance), the contact group zero about 95% of the time, the
// actuator group following the action, finite values everywhere, and
// episode lengths near the hazard's mean.
func TestWorkloadStatistics(t *testing.T) {
	rng := newRNG(2)
	w := newWorkload(humanoidModel, newRNG(3), &options{})
	obs := make([]float32, 376)
	w.Reset(obs)
	act := make([]float32, 17)
	var sum, sumSq [376]float64
	zeros := 0
	episodes, steps := 0, 0
	const n = 20000
	for range n {
		for i := range act {
			act[i] = float32(rng.Float64()*0.8 - 0.4)
		}
		_, term, trunc, err := w.Step(obs, Continuous(act))
		if err != nil {
			t.Fatal(err)
		}
		// actuator group: index 22+23+140+84 = 269, gain sigma/actBound = 2.5
		if d := float64(obs[269]) - 2.5*float64(act[0]); math.Abs(d) > 0.05*6 {
			t.Fatalf("actuator value %g far from 2.5 * action %g", obs[269], act[0])
		}
		for i, v := range obs {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("obs[%d] = %g", i, v)
			}
			sum[i] += float64(v)
			sumSq[i] += float64(v) * float64(v)
		}
		for _, v := range obs[292:] {
			if v == 0 {
				zeros++
			}
		}
		steps++
		if term || trunc {
			episodes++
			w.Reset(obs)
		}
	}
	off := 0
	for g, grp := range humanoidModel.groups {
		if grp.kind == arGroup && grp.rho < 0.99 { // the slow group needs a longer run
			for i := off; i < off+grp.n; i++ {
				sd := math.Sqrt(sumSq[i]/n - (sum[i]/n)*(sum[i]/n))
				if sd < 0.75*grp.sigma || sd > 1.25*grp.sigma+0.2 {
					t.Errorf("group %d value %d: standard deviation %.3f, sigma %.3f", g, i, sd, grp.sigma)
				}
			}
		}
		off += grp.n
	}
	if frac := float64(zeros) / float64(n*84); frac < 0.93 || frac > 0.97 {
		t.Errorf("contact values are zero %.3f of the time, want about 0.95", frac)
	}
	if mean := float64(steps) / float64(episodes); mean < 80 || mean > 120 {
		t.Errorf("mean episode length %.1f, want about 100 (hazard 1/100)", mean)
	}
}

// TestPong checks the frames: whole numbers in [0, 255], the stack shifted
// by one frame per step, the paddle answering the actions, a finished game
// at 21 points with the reward summing to the score difference.
func TestPong(t *testing.T) {
	p := newPong(newRNG(4), &options{})
	obs := make([]float32, 4*84*84)
	prev := make([]float32, len(obs))
	p.Reset(obs)
	rng := newRNG(5)
	var ret float64
	for step := 0; ; step++ {
		copy(prev, obs)
		y0 := p.agentY
		a := rng.IntN(6)
		r, term, trunc, err := p.Step(obs, Discrete(a))
		if err != nil {
			t.Fatal(err)
		}
		ret += r
		if (a == 2 || a == 4) && p.agentY > y0 || (a == 3 || a == 5) && p.agentY < y0 || (a < 2 && p.agentY != y0) {
			t.Fatalf("step %d: action %d moved the paddle from %g to %g", step, a, y0, p.agentY)
		}
		for i, v := range obs {
			if v < 0 || v > 255 || v != float32(math.Trunc(float64(v))) {
				t.Fatalf("step %d: pixel %d = %g", step, i, v)
			}
		}
		for i := 0; i < 3*84*84; i++ {
			if obs[i] != prev[i+84*84] {
				t.Fatalf("step %d: frame stack not shifted at %d", step, i)
			}
		}
		if term {
			if p.agentScore != 21 && p.oppScore != 21 {
				t.Fatalf("terminated at %d-%d", p.agentScore, p.oppScore)
			}
			if ret != float64(p.agentScore-p.oppScore) {
				t.Fatalf("return %g, score %d-%d", ret, p.agentScore, p.oppScore)
			}
			return
		}
		if trunc || step > 20000 {
			t.Fatalf("no game finished in %d steps (score %d-%d)", step, p.agentScore, p.oppScore)
		}
	}
}

// TestBusyWait checks that BusyWait makes a step take at least StepCost.
func TestBusyWait(t *testing.T) {
	e := must(Make("Hopper-workload", newRNG(6), StepCost(300*time.Microsecond), BusyWait(true)))
	obs := make([]float32, 11)
	e.Reset(obs)
	a := Continuous([]float32{0, 0, 0})
	start := time.Now()
	for range 5 {
		if _, term, _, _ := e.Step(obs, a); term {
			e.Reset(obs)
		}
	}
	if el := time.Since(start); el < 1500*time.Microsecond {
		t.Errorf("5 busy steps of 300µs took %v", el)
	}
}

// TestDeterminism: the same seed gives the same trajectory, another seed a
// different one, for every environment.
func TestDeterminism(t *testing.T) {
	run := func(id string, seed uint64) []float32 {
		e := must(Make(id, newRNG(seed)))
		obs := make([]float32, e.Spec().Obs.Dim())
		e.Reset(obs)
		var out []float32
		a := zeroAction(e.Spec())
		for range 20 {
			_, term, trunc, _ := e.Step(obs, a)
			var h float64 // a checksum that sees every value
			for i, v := range obs {
				h += float64(v) * float64(i%97+1)
			}
			out = append(out, float32(h))
			if term || trunc {
				e.Reset(obs)
			}
		}
		return out
	}
	for _, id := range IDs() {
		a, b, c := run(id, 1), run(id, 1), run(id, 2)
		same, differ := true, false
		for i := range a {
			same = same && a[i] == b[i]
			differ = differ || a[i] != c[i]
		}
		if !same || !differ {
			t.Errorf("%s: same seed equal %v, different seed differs %v", id, same, differ)
		}
	}
}
