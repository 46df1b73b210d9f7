//go:build mujoco

package env

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

const gravity = 9.81 // MuJoCo's default |g|, m/s^2

func makeBody(t *testing.T, id string, seed uint64) (Env, *body) {
	t.Helper()
	e, err := Make(id, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		t.Fatal(err)
	}
	switch e := e.(type) {
	case *Hopper:
		return e, &e.body
	case *Humanoid:
		return e, &e.body
	}
	t.Fatalf("%s is a %T", id, e)
	return nil, nil
}

// TestMuJoCoSpecs: the spaces and limits of Gymnasium's v4 versions.
func TestMuJoCoSpecs(t *testing.T) {
	for _, c := range []struct {
		id       string
		obs, act int
		bound    float32
		dt       float64
	}{
		{"Hopper-v4", 11, 3, 1, 0.008},
		{"Humanoid-v4", 376, 17, 0.4, 0.015},
	} {
		e, b := makeBody(t, c.id, 1)
		s := e.Spec()
		if s.Obs.Dim() != c.obs || s.Act.Dim() != c.act || s.MaxEpisodeSteps != 1000 || s.Workload {
			t.Errorf("%s: obs %d act %d limit %d workload %v", c.id, s.Obs.Dim(), s.Act.Dim(), s.MaxEpisodeSteps, s.Workload)
		}
		for i := range s.Act.Low {
			if s.Act.Low[i] != -c.bound || s.Act.High[i] != c.bound {
				t.Errorf("%s: action %d in [%g, %g], want ±%g", c.id, i, s.Act.Low[i], s.Act.High[i], c.bound)
			}
		}
		if math.Abs(b.dt-c.dt) > 1e-12 {
			t.Errorf("%s: dt %g, want %g", c.id, b.dt, c.dt)
		}
		if !slices.Contains(IDs(), c.id) {
			t.Errorf("IDs() lacks %s", c.id)
		}
	}
	if p := Physical("Hopper-workload"); p != "Hopper-v4" {
		t.Errorf("Physical(Hopper-workload) = %q, want Hopper-v4", p)
	}
	if err := MissingMuJoCo("Hopper-v4"); err != nil {
		t.Errorf("MissingMuJoCo(Hopper-v4) in the MuJoCo build: %v", err)
	}
}

// TestMuJoCoDeterministic: the same seed and actions give the same
// trajectory bit for bit; another seed a different one.
func TestMuJoCoDeterministic(t *testing.T) {
	for _, id := range []string{"Hopper-v4", "Humanoid-v4"} {
		run := func(seed uint64) ([]float32, []float64) {
			e, _ := makeBody(t, id, seed)
			obs := make([]float32, e.Spec().Obs.Dim())
			act := rand.New(rand.NewPCG(99, 0))
			a := make([]float32, e.Spec().Act.Dim())
			var rewards []float64
			e.Reset(obs)
			for range 300 {
				for i := range a {
					a[i] = e.Spec().Act.High[i] * float32(2*act.Float64()-1)
				}
				r, term, trunc, err := e.Step(obs, Continuous(a))
				if err != nil {
					t.Fatal(err)
				}
				rewards = append(rewards, r)
				if term || trunc {
					e.Reset(obs)
				}
			}
			return obs, rewards
		}
		o1, r1 := run(3)
		o2, r2 := run(3)
		o3, _ := run(4)
		if !slices.Equal(o1, o2) || !slices.Equal(r1, r2) {
			t.Errorf("%s: two runs with seed 3 differ", id)
		}
		if slices.Equal(o1, o3) {
			t.Errorf("%s: seeds 3 and 4 end in the same observation", id)
		}
	}
}

// TestMuJoCoFreeFall: lifted 2 m clear of the ground with no control,
// nothing outside the body acts on it but gravity, so its centre of mass
// falls as c0 - g t^2/2 whatever the joints do inside (the Humanoid's knees
// start outside their limits and straighten on the way down), and a
// horizontal velocity v0 carries it as c0 + v0 t. Checked after 200
// physics steps (0.4 s and 0.6 s; the feet stay clear of the ground).
func TestMuJoCoFreeFall(t *testing.T) {
	for _, c := range []struct {
		id   string
		x, z int // the indices of the root's x and height in qpos and qvel
	}{{"Hopper-v4", 0, 1}, {"Humanoid-v4", 0, 2}} {
		e, b := makeBody(t, c.id, 1)
		obs := make([]float32, e.Spec().Obs.Dim())
		e.Reset(obs)
		copy(b.sim.qpos, b.sim.model.qpos0)
		clear(b.sim.qvel)
		b.sim.qpos[c.z] += 2
		b.sim.qvel[c.x] = 0.5
		b.sim.forward()
		x0, z0 := massCenter(b.sim)
		// The physics alone: Humanoid-v4 would end the episode up there.
		b.sim.step(200)
		b.sim.forward()
		tt := 200 * b.sim.model.timestep
		x, z := massCenter(b.sim)
		wantX, wantZ := x0+0.5*tt, z0-gravity*tt*tt/2
		// To a micrometre: RK4 integrates gravity exactly, but the
		// Humanoid's joint-limit forces enter each step once, as MuJoCo
		// holds constraint forces fixed across the RK4 stages (5e-8 m).
		if math.Abs(z-wantZ) > 1e-6 || math.Abs(x-wantX) > 1e-6 {
			t.Errorf("%s: after %.3f s the centre of mass is at x = %.12f, z = %.12f; free fall gives %.12f, %.12f", c.id, tt, x, z, wantX, wantZ)
		}
	}
}

// massCenter is the x and z of the whole body's centre of mass.
func massCenter(d *mjData) (x, z float64) {
	for b, w := range d.model.bodyMass {
		x += w * d.xipos[3*b]
		z += w * d.xipos[3*b+2]
	}
	return x / d.model.totalMass, z / d.model.totalMass
}

// TestMuJoCoEnergyBound: with zero control nothing adds energy: the
// mechanical energy (gravity, joint springs, motion) never rises above its
// value at the start, as the body collapses onto the ground, over 2000
// physics steps. Solver softness may return a trace; the bound allows 0.5%
// of the body's weight times a metre.
func TestMuJoCoEnergyBound(t *testing.T) {
	for _, c := range []struct {
		id  string
		xml []byte
	}{{"Hopper-v4", hopperXML}, {"Humanoid-v4", humanoidXML}} {
		id := c.id
		// MuJoCo computes energy only when the model enables it; the
		// flag changes no dynamics.
		xml := bytes.Replace(c.xml, []byte("<option "), []byte(`<option><flag energy="enable"/></option><option `), 1)
		e, b := makeBody(t, id, 2)
		b.sim = newData(loadModel("energy-"+id, xml))
		obs := make([]float32, e.Spec().Obs.Dim())
		e.Reset(obs)
		pot, kin := b.sim.energy()
		start := pot + kin
		tol := 0.005 * b.sim.model.totalMass * gravity
		maxE, minPot := start, pot
		for range 2000 {
			b.sim.step(1)
			p, k := b.sim.energy()
			maxE, minPot = max(maxE, p+k), min(minPot, p)
		}
		if maxE > start+tol {
			t.Errorf("%s: energy rose from %.3f J to %.3f J with no control", id, start, maxE)
		}
		if minPot > pot-1 { // it did fall: at least 1 J of potential lost
			t.Errorf("%s: potential %.3f J at the start, lowest %.3f J: the body never fell", id, pot, minPot)
		}
	}
}

// TestHopperHealthyRange: each of Gymnasium's health conditions ends the
// episode on its own, just past its bound, and not just inside it.
func TestHopperHealthyRange(t *testing.T) {
	for _, c := range []struct {
		name    string
		set     func(q, v []float64, x float64)
		in, out float64
	}{
		{"height", func(q, _ []float64, x float64) { q[1] = x }, 0.75, 0.65},
		{"pitch", func(q, _ []float64, x float64) { q[2] = x }, 0.15, 0.25},
		{"pitch backwards", func(q, _ []float64, x float64) { q[2] = -x }, 0.15, 0.25},
		{"a joint angle", func(q, _ []float64, x float64) { q[4] = x }, -1, -101},
		{"a joint velocity", func(_, v []float64, x float64) { v[5] = x }, 50, 150},
		{"the height velocity", func(_, v []float64, x float64) { v[1] = x }, -5, -150},
	} {
		for _, x := range []float64{c.in, c.out} {
			e, b := makeBody(t, "Hopper-v4", 1)
			obs := make([]float32, 11)
			e.Reset(obs)
			c.set(b.sim.qpos, b.sim.qvel, x)
			b.sim.forward()
			// Step with zero control, so the check sees the set state
			// after 8 ms: the margins above outlast that.
			_, term, _, err := e.Step(obs, zeroAction(e.Spec()))
			if err != nil {
				t.Fatal(err)
			}
			if want := x == c.out; term != want {
				t.Errorf("%s = %g: terminated %v, want %v", c.name, x, term, want)
			}
		}
	}
	// Out of the healthy range, Step after the end is refused.
	e, b := makeBody(t, "Hopper-v4", 1)
	obs := make([]float32, 11)
	e.Reset(obs)
	b.sim.qpos[1] = 0.5
	b.sim.forward()
	if _, term, _, _ := e.Step(obs, zeroAction(e.Spec())); !term {
		t.Fatal("z = 0.5 did not terminate")
	}
	if _, _, _, err := e.Step(obs, zeroAction(e.Spec())); err != ErrNeedsReset {
		t.Fatalf("step after the end: %v, want ErrNeedsReset", err)
	}
}

// TestHopperHealthyBounds checks Gymnasium's is_healthy on set states,
// without a step in between: each bound is strict, x and z are outside the
// ±100 state check, and every other position and velocity is inside it.
func TestHopperHealthyBounds(t *testing.T) {
	e, b := makeBody(t, "Hopper-v4", 1)
	e.Reset(make([]float32, 11))
	for _, c := range []struct {
		name    string
		set     func(q, v []float64)
		healthy bool
	}{
		{"standing", func(q, v []float64) {}, true},
		{"z at 0.7", func(q, v []float64) { q[1] = 0.7 }, false},
		{"z just over 0.7", func(q, v []float64) { q[1] = 0.7000001 }, true},
		{"z at 150: no upper bound", func(q, v []float64) { q[1] = 150 }, true},
		{"x at 150: x is not checked", func(q, v []float64) { q[0] = 150 }, true},
		{"pitch at 0.2", func(q, v []float64) { q[2] = 0.2 }, false},
		{"pitch at -0.2", func(q, v []float64) { q[2] = -0.2 }, false},
		{"pitch at 0.19", func(q, v []float64) { q[2] = 0.19 }, true},
		{"foot angle at 100", func(q, v []float64) { q[5] = 100 }, false},
		{"foot angle at 99", func(q, v []float64) { q[5] = 99 }, true},
		{"x velocity at 100", func(q, v []float64) { v[0] = 100 }, false},
		{"z velocity at -100", func(q, v []float64) { v[1] = -100 }, false},
		{"thigh velocity at 99", func(q, v []float64) { v[3] = 99 }, true},
		{"NaN", func(q, v []float64) { v[4] = math.NaN() }, false},
	} {
		copy(b.sim.qpos, b.sim.model.qpos0)
		clear(b.sim.qvel)
		c.set(b.sim.qpos, b.sim.qvel)
		if got := hopperHealthy(b.sim); got != c.healthy {
			t.Errorf("%s: healthy %v, want %v", c.name, got, c.healthy)
		}
	}
}

// TestHumanoidHealthyRange: the torso's height must stay in (1, 2).
func TestHumanoidHealthyRange(t *testing.T) {
	for _, c := range []struct {
		z    float64
		term bool
	}{{1.4, false}, {0.9, true}, {2.1, true}} {
		e, b := makeBody(t, "Humanoid-v4", 1)
		obs := make([]float32, 376)
		e.Reset(obs)
		b.sim.qpos[2] = c.z
		b.sim.forward()
		if _, term, _, err := e.Step(obs, zeroAction(e.Spec())); err != nil || term != c.term {
			t.Errorf("z = %g: terminated %v (%v), want %v", c.z, term, err, c.term)
		}
	}
}

// TestMuJoCoRewardAndObservation recomputes a step's reward from the state
// before and after it, and reads the observation back from the state.
func TestMuJoCoRewardAndObservation(t *testing.T) {
	e, b := makeBody(t, "Hopper-v4", 5)
	obs := make([]float32, 11)
	e.Reset(obs)
	a := []float32{0.5, -0.25, 1}
	x := b.sim.qpos[0]
	r, _, _, err := e.Step(obs, Continuous(a))
	if err != nil {
		t.Fatal(err)
	}
	want := 1 + (b.sim.qpos[0]-x)/0.008 - 1e-3*(0.25+0.0625+1)
	if math.Abs(r-want) > 1e-9 {
		t.Errorf("Hopper reward %.12f, want %.12f", r, want)
	}
	for i := range 5 {
		if obs[i] != float32(b.sim.qpos[i+1]) {
			t.Errorf("obs[%d] = %g, want qpos[%d] = %g", i, obs[i], i+1, b.sim.qpos[i+1])
		}
	}
	for i := range 6 {
		if want := float32(min(max(b.sim.qvel[i], -10), 10)); obs[5+i] != want {
			t.Errorf("obs[%d] = %g, want clipped qvel[%d] = %g", 5+i, obs[5+i], i, want)
		}
	}
	// The velocities are clipped to ±10 in the observation only.
	b.sim.qvel[0], b.sim.qvel[3] = 25, -12.5
	hopperObserve(b.sim, obs)
	if obs[5] != 10 || obs[8] != -10 || b.sim.qvel[0] != 25 {
		t.Errorf("velocities 25 and -12.5 observed as %g and %g, want ±10", obs[5], obs[8])
	}

	he, hb := makeBody(t, "Humanoid-v4", 5)
	hobs := make([]float32, 376)
	he.Reset(hobs)
	ha := make([]float32, 17)
	for i := range ha {
		ha[i] = 0.4 * float32(i%3-1)
	}
	c := hb.sim.massCenterX()
	r, _, _, err = he.Step(hobs, Continuous(ha))
	if err != nil {
		t.Fatal(err)
	}
	first := slices.Clone(hobs)
	ctrl := 0.0
	for _, v := range ha {
		ctrl += float64(v) * float64(v)
	}
	if want := 5 + 1.25*(hb.sim.massCenterX()-c)/0.015 - 0.1*ctrl; math.Abs(r-want) > 1e-9 {
		t.Errorf("Humanoid reward %.12f, want %.12f", r, want)
	}
	// Every block in its place: qpos[2:] (22), qvel (23), cinert (140),
	// cvel (84), qfrc_actuator (23), cfrc_ext (84). The world body's rows
	// of cinert and cvel are zero, so each block is compared whole.
	at := 0
	for _, b := range []struct {
		name string
		v    []float64
	}{
		{"qpos[2:]", hb.sim.qpos[2:]}, {"qvel", hb.sim.qvel}, {"cinert", hb.sim.cinert},
		{"cvel", hb.sim.cvel}, {"qfrc_actuator", hb.sim.qfrcActuator}, {"cfrc_ext", hb.sim.cfrcExt},
	} {
		for i, x := range b.v {
			if first[at+i] != float32(x) {
				t.Fatalf("Humanoid obs[%d] = %g, want %s[%d] = %g", at+i, first[at+i], b.name, i, x)
			}
		}
		at += len(b.v)
	}
	if at != 376 {
		t.Fatalf("the blocks cover %d values, want 376", at)
	}
	// The feet start 0.1 m up; once they land, the ground pushes on them
	// and cfrc_ext (the last 84 values) is computed, not left at zero.
	landed := false
	for k := 0; k < 40 && !landed; k++ {
		if _, term, _, err := he.Step(hobs, zeroAction(he.Spec())); err != nil || term {
			t.Fatalf("standing step %d: terminated %v, %v", k, term, err)
		}
		for _, v := range hobs[292:] {
			landed = landed || v != 0
		}
	}
	if !landed {
		t.Errorf("Humanoid's cfrc_ext stayed zero for 0.6 s standing on the ground")
	}
}

// TestMuJoCoActionErrors: an action out of range is refused before the
// state changes.
func TestMuJoCoActionErrors(t *testing.T) {
	e, b := makeBody(t, "Humanoid-v4", 1)
	obs := make([]float32, 376)
	e.Reset(obs)
	before := slices.Clone(b.sim.qpos)
	a := make([]float32, 17)
	a[3] = 0.5
	_, _, _, err := e.Step(obs, Continuous(a))
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Index != 3 || ae.High != float64(float32(0.4)) {
		t.Fatalf("action 0.5 on [-0.4, 0.4]: %v", err)
	}
	if !slices.Equal(before, b.sim.qpos) {
		t.Fatal("a refused action moved the state")
	}
}

// TestMuJoCoWarningsStayQuiet: a state that blows up makes MuJoCo warn and
// reset it; the warning is counted in the state, not printed or written
// to MUJOCO_LOG.TXT in the working directory, as MuJoCo's default handler
// does.
func TestMuJoCoWarningsStayQuiet(t *testing.T) {
	t.Chdir(t.TempDir())
	e, b := makeBody(t, "Hopper-v4", 1)
	obs := make([]float32, 11)
	e.Reset(obs)
	b.sim.qvel[3] = 1e12 // beyond MuJoCo's 1e10 bound on a velocity
	b.sim.step(1)
	if b.sim.warnings() == 0 {
		t.Fatal("no warning for a velocity of 1e12")
	}
	if _, err := os.Stat("MUJOCO_LOG.TXT"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MuJoCo wrote its log to the working directory: %v", err)
	}
}
