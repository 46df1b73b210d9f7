package ddpg

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

func pendulumSpec(t testing.TB) *env.Spec {
	e, err := env.Make("Pendulum-v1", rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return e.Spec()
}

func smallConfig(alg Algorithm) Config {
	c, _ := CleanRL(alg, "Pendulum-v1", 10000, 1000)
	c.Hidden = []int{7, 6}
	return c
}

func newLearner(t testing.TB, c Config) *Learner {
	a, err := New(pendulumSpec(t), c, 3)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.Learner()
	if err != nil {
		t.Fatal(err)
	}
	// targets different from the networks, so that targets matter
	rng := rand.New(rand.NewPCG(8, 8))
	perturb := func(p []float32) {
		for i := range p {
			p[i] += float32(0.1 * rng.NormFloat64())
		}
	}
	perturb(l.actorT.Params())
	for _, q := range l.targets {
		perturb(q.Params())
	}
	return l
}

// randomBatch returns n Pendulum transitions (obs 3, action 1 in [-2, 2]).
func randomBatch(n int, rng *rand.Rand) *replay.Batch {
	b := &replay.Batch{
		Idx: make([]int, n), Obs: make([]float32, 3*n), NextObs: make([]float32, 3*n),
		Actions: make([]float32, n), Rewards: make([]float32, n), Weights: make([]float32, n),
		Terminated: make([]bool, n), Truncated: make([]bool, n),
	}
	for i := range n {
		for k := range 3 {
			b.Obs[3*i+k] = float32(rng.NormFloat64())
			b.NextObs[3*i+k] = float32(rng.NormFloat64())
		}
		b.Actions[i] = float32(4*rng.Float64() - 2)
		b.Rewards[i] = float32(-5 * rng.Float64())
		b.Weights[i] = float32(0.2 + 0.8*rng.Float64())
		b.Terminated[i] = i%4 == 0
	}
	return b
}

// criticReference computes L_Q and the TD errors directly from the
// networks in float64, without target smoothing (PolicyNoise 0).
func criticReference(l *Learner, b *replay.Batch) (float64, []float64) {
	n := b.Len()
	out := make([]float32, 1)
	in := make([]float32, 4)
	var loss float64
	td := make([]float64, n)
	for i := range n {
		l.actorT.Forward(out, b.NextObs[3*i:3*i+3])
		a := math.Min(math.Max(float64(out[0])*2, -2), 2)
		copy(in, b.NextObs[3*i:3*i+3])
		in[3] = float32(a)
		m := math.Inf(1)
		for _, q := range l.targets {
			q.Forward(out, in)
			m = math.Min(m, float64(out[0]))
		}
		if b.Terminated[i] {
			m = 0
		}
		y := float64(b.Rewards[i]) + l.cfg.Gamma*m
		copy(in, b.Obs[3*i:3*i+3])
		in[3] = b.Actions[i]
		for _, q := range l.critics {
			q.Forward(out, in)
			d := float64(out[0]) - y
			loss += float64(b.Weights[i]) * d * d / float64(n)
			td[i] = math.Max(td[i], math.Abs(d))
		}
	}
	return loss, td
}

// actorReference computes L_pi = -(1/B) sum Q_1(s, actor(s) * 2).
func actorReference(l *Learner, b *replay.Batch) float64 {
	out := make([]float32, 1)
	in := make([]float32, 4)
	var s float64
	for i := range b.Len() {
		l.actor.Forward(out, b.Obs[3*i:3*i+3])
		copy(in, b.Obs[3*i:3*i+3])
		in[3] = out[0] * 2
		l.q1.Forward(out, in)
		s += float64(out[0])
	}
	return -s / float64(b.Len())
}

func TestCriticMatchesReference(t *testing.T) {
	for _, alg := range []Algorithm{DDPG, TD3} {
		c := smallConfig(alg)
		c.PolicyNoise = 0
		l := newLearner(t, c)
		b := randomBatch(9, rand.New(rand.NewPCG(2, 3)))
		wantLoss, wantTD := criticReference(l, b)
		td := make([]float32, 9)
		st := l.Grad(nil, 0, b, td, 0)
		if math.Abs(st.Loss-wantLoss) > 1e-5*math.Max(1, wantLoss) {
			t.Errorf("%v: loss %v, want %v", alg, st.Loss, wantLoss)
		}
		for i := range td {
			if math.Abs(float64(td[i])-wantTD[i]) > 1e-4 {
				t.Errorf("%v: td[%d] = %v, want %v", alg, i, td[i], wantTD[i])
			}
		}
	}
}

// TestGradients checks the critics' and the actor's gradients against
// central differences of the float64 references.
func TestGradients(t *testing.T) {
	c := smallConfig(TD3)
	c.PolicyNoise = 0
	l := newLearner(t, c)
	b := randomBatch(6, rand.New(rand.NewPCG(5, 5)))
	td := make([]float32, 6)
	const h = 1e-2
	check := func(name string, p, grad []float32, f func() float64) {
		for _, k := range []int{0, 2, 9, 17, 30, 45, len(p) - 2, len(p) - 1} {
			if k >= len(p) {
				continue
			}
			orig := p[k]
			p[k] = orig + h
			lp := f()
			p[k] = orig - h
			lm := f()
			p[k] = orig
			num := (lp - lm) / (2 * h)
			if math.Abs(num-float64(grad[k])) > 3e-3*math.Max(1, math.Abs(num)) {
				t.Errorf("%s parameter %d: gradient %v, central difference %v", name, k, grad[k], num)
			}
		}
	}
	l.Grad(nil, 0, b, td, 0)
	for j, q := range l.critics {
		grad := slices.Clone(q.Grads())
		check("critic "+string(rune('1'+j)), q.Params(), grad, func() float64 { v, _ := criticReference(l, b); return v })
	}
	l.Grad(nil, 1, b, td, 1)
	grad := slices.Clone(l.actor.Grads())
	critic := slices.Clone(l.q1.Grads())
	check("actor", l.actor.Params(), grad, func() float64 { return actorReference(l, b) })
	l.Grad(nil, 0, b, td, 0)
	l.Grad(nil, 1, b, td, 1)
	if !slices.Equal(critic, l.q1.Grads()) {
		t.Fatal("the actor's gradient changed the critic's gradients")
	}
}

func TestDelayedActorAndTargets(t *testing.T) {
	l := newLearner(t, smallConfig(TD3))
	b := randomBatch(8, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, 8)
	actor, target := slices.Clone(l.actor.Params()), slices.Clone(l.targets[0].Params())
	st := l.Train(nil, b, td, 0)
	if st.HasAux || !slices.Equal(actor, l.actor.Params()) || !slices.Equal(target, l.targets[0].Params()) {
		t.Fatal("step 0 moved the actor or a target (policy frequency 2)")
	}
	st = l.Train(nil, b, td, 1)
	if !st.HasAux || slices.Equal(actor, l.actor.Params()) {
		t.Fatal("step 1 did not train the actor")
	}
	for i, v := range l.targets[0].Params() {
		want := 0.005*l.q1.Params()[i] + 0.995*target[i]
		if math.Abs(float64(v-want)) > 1e-6 {
			t.Fatalf("target[%d] = %v, want the Polyak average %v", i, v, want)
		}
	}
}

// TestLocalPolyak: under local SGD, k deferred Polyak updates become one of
// rate 1 - (1 - tau)^k, what k updates towards a fixed network give.
func TestLocalPolyak(t *testing.T) {
	l := newLearner(t, smallConfig(DDPG))
	l.SetLocal(true)
	b := randomBatch(8, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, 8)
	target := slices.Clone(l.targets[0].Params())
	for s := range 6 {
		l.Train(nil, b, td, s)
	}
	if !slices.Equal(target, l.targets[0].Params()) {
		t.Fatal("a target moved during local steps")
	}
	want := slices.Clone(target)
	for range 3 { // steps 1, 3, 5 were actor steps
		for i := range want {
			want[i] = 0.005*l.q1.Params()[i] + 0.995*want[i]
		}
	}
	l.AfterAverage(nil, 6)
	for i, v := range l.targets[0].Params() {
		if math.Abs(float64(v-want[i])) > 1e-5 {
			t.Fatalf("target[%d] = %v, want %v", i, v, want[i])
		}
	}
	moved := slices.Clone(l.targets[0].Params())
	l.AfterAverage(nil, 6) // nothing pending
	if !slices.Equal(moved, l.targets[0].Params()) {
		t.Fatal("a second averaging moved the target again")
	}
}

func TestDataParallelGradient(t *testing.T) {
	c := smallConfig(TD3)
	c.PolicyNoise = 0 // noise streams differ between replicas
	whole, a, bl := newLearner(t, c), newLearner(t, c), newLearner(t, c)
	a.CopyFrom(whole)
	bl.CopyFrom(whole)
	batch := randomBatch(8, rand.New(rand.NewPCG(6, 1)))
	sub := func(lo, hi int) *replay.Batch {
		var v replay.Batch
		batch.View(&v, lo, hi)
		return &v
	}
	if whole.Phases(0) != 1 || whole.Phases(1) != 2 {
		t.Fatalf("phases %d %d, want 1 2", whole.Phases(0), whole.Phases(1))
	}
	for phase := range 2 {
		td := make([]float32, 8)
		whole.Grad(nil, phase, batch, td, 1)
		a.Grad(nil, phase, sub(0, 4), td[:4], 1)
		bl.Grad(nil, phase, sub(4, 8), td[4:], 1)
		for j, g := range whole.GradParams(phase) {
			for k := range g {
				avg := (a.GradParams(phase)[j][k] + bl.GradParams(phase)[j][k]) / 2
				if math.Abs(float64(g[k]-avg)) > 1e-5*math.Max(1, math.Abs(float64(g[k]))) {
					t.Fatalf("phase %d vector %d gradient %d: whole %v, mean of halves %v", phase, j, k, g[k], avg)
				}
			}
		}
	}
	n := a.CopyFrom(whole)
	if want := 2*len(whole.actor.Params()) + 4*len(whole.q1.Params()); n != want {
		t.Fatalf("CopyFrom copied %d values, want %d", n, want)
	}
}

func TestPolicy(t *testing.T) {
	c := smallConfig(TD3)
	a, err := New(pendulumSpec(t), c, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := a.NewPolicy()
	l, _ := a.Learner()
	copy(p.Params(), l.PolicyParams())
	rng := rand.New(rand.NewPCG(1, 1))
	obs := []float32{0.5, -0.8, 1.2}
	act := make([]float32, 1)
	lo, hi := 0, 0
	for range 2000 {
		if p.Act(act, obs, 0, rng) {
			t.Fatal("a warm-up step inferred")
		}
		if act[0] < -2 || act[0] > 2 {
			t.Fatalf("random action %v outside [-2, 2]", act[0])
		}
		if act[0] < 0 {
			lo++
		} else {
			hi++
		}
	}
	if lo < 900 || hi < 900 {
		t.Fatalf("warm-up actions %d below 0 and %d above: not uniform", lo, hi)
	}
	det := make([]float32, 1)
	l.Act(det, obs)
	var sum, sq float64
	for range 4000 {
		if !p.Act(act, obs, c.RandomSteps, rng) {
			t.Fatal("a step after warm-up did not infer")
		}
		d := float64(act[0] - det[0])
		sum += d
		sq += d * d
	}
	// noise N(0, 0.1 * scale 2) (unless clipped at the bounds)
	if m, sd := sum/4000, math.Sqrt(sq/4000); math.Abs(m) > 0.02 || math.Abs(sd-0.2) > 0.02 {
		t.Fatalf("exploration noise mean %v sd %v, want 0 and 0.2", m, sd)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		modify func(*Config)
		want   string
	}{
		{func(c *Config) { c.Hidden = nil }, "no hidden layers"},
		{func(c *Config) { c.Hidden = []int{-1} }, "hidden layer 0 has -1 units"},
		{func(c *Config) { c.Algorithm = 5 }, "algorithm 5"},
		{func(c *Config) { c.LearningRate = 2 }, "learning rate 2"},
		{func(c *Config) { c.Gamma = -1 }, "gamma -1"},
		{func(c *Config) { c.Tau = 0 }, "tau 0"},
		{func(c *Config) { c.PolicyNoise = math.NaN() }, "policy noise NaN"},
		{func(c *Config) { c.NoiseClip = -1 }, "noise clip -1"},
		{func(c *Config) { c.ExplorationNoise = 11 }, "exploration noise 11"},
		{func(c *Config) { c.PolicyFrequency = 0 }, "policy frequency 0"},
		{func(c *Config) { c.RandomSteps = -5 }, "random steps -5"},
	} {
		c := smallConfig(TD3)
		tc.modify(&c)
		if _, err := New(pendulumSpec(t), c, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	e, _ := env.Make("CartPole-v1", rand.New(rand.NewPCG(1, 1)))
	if _, err := New(e.Spec(), smallConfig(TD3), 1); err == nil || !strings.Contains(err.Error(), "discrete") {
		t.Errorf("a discrete space: %v", err)
	}
	e, _ = env.Make("Hopper-workload", rand.New(rand.NewPCG(1, 1)))
	spec := *e.Spec()
	spec.Act.High = []float32{1, float32(math.Inf(1)), 1}
	if _, err := New(&spec, smallConfig(TD3), 1); err == nil || !strings.Contains(err.Error(), "finite") {
		t.Errorf("an unbounded action: %v", err)
	}
}

func TestTrainNoAllocs(t *testing.T) {
	c, _ := CleanRL(TD3, "Pendulum-v1", 1000, 100)
	c.Hidden = []int{64, 64}
	l := newLearner(t, c)
	b := randomBatch(64, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, 64)
	tr := runtime.NewTracer(runtime.UnitID{Role: runtime.RoleLearner}, runtime.ObserverFunc(func(runtime.Event) {}), time.Now())
	step := 0
	allocs := testing.AllocsPerRun(40, func() {
		l.Train(tr, b, td, step)
		step++
	})
	if allocs != 0 {
		t.Fatalf("Train allocates %v times per step", allocs)
	}
}

func BenchmarkTrain(b *testing.B) {
	for _, alg := range []Algorithm{DDPG, TD3} {
		b.Run(alg.String(), func(b *testing.B) {
			c, _ := CleanRL(alg, "Pendulum-v1", 1000, 100)
			l := newLearner(b, c)
			batch := randomBatch(256, rand.New(rand.NewPCG(1, 2)))
			td := make([]float32, 256)
			b.ReportAllocs()
			step := 0
			for b.Loop() {
				l.Train(nil, batch, td, step)
				step++
			}
		})
	}
}
