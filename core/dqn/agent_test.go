package dqn

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

func cartPoleSpec(t testing.TB) *env.Spec {
	e, err := env.Make("CartPole-v1", rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return e.Spec()
}

func smallConfig() Config {
	c, _ := CleanRL(10000)
	c.Hidden = []int{6, 5}
	return c
}

// randomBatch returns n transitions of CartPole's shape with random
// importance weights and some terminal rows.
func randomBatch(n int, rng *rand.Rand) *replay.Batch {
	b := &replay.Batch{
		Idx: make([]int, n), Obs: make([]float32, 4*n), NextObs: make([]float32, 4*n),
		Actions: make([]float32, n), Rewards: make([]float32, n), Weights: make([]float32, n),
		Terminated: make([]bool, n), Truncated: make([]bool, n),
	}
	for i := range n {
		for k := range 4 {
			b.Obs[4*i+k] = float32(rng.NormFloat64())
			b.NextObs[4*i+k] = float32(rng.NormFloat64())
		}
		b.Actions[i] = float32(rng.IntN(2))
		b.Rewards[i] = float32(rng.NormFloat64())
		b.Weights[i] = float32(0.2 + 0.8*rng.Float64())
		b.Terminated[i] = i%3 == 0
		b.Truncated[i] = i%4 == 1
	}
	return b
}

func newLearner(t testing.TB, c Config) *Learner {
	a, err := New(cartPoleSpec(t), c, 5)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.Learner()
	if err != nil {
		t.Fatal(err)
	}
	// a target different from the online network, so targets matter
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range l.target.Params() {
		l.target.Params()[i] += float32(0.1 * rng.NormFloat64())
	}
	return l
}

// reference computes the loss and TD errors of 002 Eq. 3 directly from the
// networks, row by row, in float64.
func reference(l *Learner, b *replay.Batch, double bool) (loss float64, td []float64) {
	n := b.Len()
	out := make([]float32, 2)
	for i := range n {
		l.target.Forward(out, b.NextObs[4*i:4*i+4])
		tv := math.Max(float64(out[0]), float64(out[1]))
		if double {
			sel := make([]float32, 2)
			l.q.Forward(sel, b.NextObs[4*i:4*i+4])
			a := 0
			if sel[1] > sel[0] {
				a = 1
			}
			tv = float64(out[a])
		}
		if b.Terminated[i] {
			tv = 0
		}
		y := float64(b.Rewards[i]) + l.cfg.Gamma*tv
		l.q.Forward(out, b.Obs[4*i:4*i+4])
		d := float64(out[int(b.Actions[i])]) - y
		td = append(td, d)
		loss += float64(b.Weights[i]) * d * d
	}
	return loss / float64(n), td
}

func TestTrainMatchesReference(t *testing.T) {
	for _, double := range []bool{false, true} {
		c := smallConfig()
		c.Double = double
		l := newLearner(t, c)
		b := randomBatch(9, rand.New(rand.NewPCG(2, 3)))
		wantLoss, wantTD := reference(l, b, double)
		td := make([]float32, 9)
		st := l.Train(nil, b, td, 0)
		if math.Abs(st.Loss-wantLoss) > 1e-5*math.Max(1, wantLoss) {
			t.Errorf("double %v: loss %v, want %v", double, st.Loss, wantLoss)
		}
		for i := range td {
			if math.Abs(float64(td[i])-wantTD[i]) > 1e-5 {
				t.Errorf("double %v: td[%d] = %v, want %v", double, i, td[i], wantTD[i])
			}
		}
	}
}

// TestGradient checks the backward pass against central differences of
// the loss in float64 around a few parameters of every layer.
func TestGradient(t *testing.T) {
	l := newLearner(t, smallConfig())
	b := randomBatch(7, rand.New(rand.NewPCG(4, 4)))
	td := make([]float32, 7)
	l.Grad(nil, 0, b, td, 0)
	grad := slices.Clone(l.q.Grads())
	p := l.q.Params()
	const h = 1e-2
	for _, k := range []int{0, 3, 11, 24, 29, 33, 40, 50, len(p) - 3, len(p) - 1} {
		orig := p[k]
		p[k] = orig + h
		lp, _ := reference(l, b, false)
		p[k] = orig - h
		lm, _ := reference(l, b, false)
		p[k] = orig
		num := (lp - lm) / (2 * h)
		if math.Abs(num-float64(grad[k])) > 2e-3*math.Max(1, math.Abs(num)) {
			t.Errorf("parameter %d: gradient %v, central difference %v", k, grad[k], num)
		}
	}
}

// TestDataParallelGradient checks that averaging the gradients of equal
// sub-batches is the gradient of the whole batch: the premise of
// data-parallel ApeX.
func TestDataParallelGradient(t *testing.T) {
	c := smallConfig()
	whole, halfA, halfB := newLearner(t, c), newLearner(t, c), newLearner(t, c)
	b := randomBatch(8, rand.New(rand.NewPCG(6, 1)))
	td := make([]float32, 8)
	whole.Grad(nil, 0, b, td, 0)
	sub := func(lo, hi int) *replay.Batch {
		var v replay.Batch
		b.View(&v, lo, hi)
		return &v
	}
	tdA, tdB := make([]float32, 4), make([]float32, 4)
	halfA.Grad(nil, 0, sub(0, 4), tdA, 0)
	halfB.Grad(nil, 0, sub(4, 8), tdB, 0)
	for k, g := range whole.GradParams(0)[0] {
		avg := (halfA.GradParams(0)[0][k] + halfB.GradParams(0)[0][k]) / 2
		if math.Abs(float64(g-avg)) > 1e-6 {
			t.Fatalf("gradient %d: whole batch %v, mean of halves %v", k, g, avg)
		}
	}
	if !slices.Equal(td, append(tdA, tdB...)) {
		t.Fatalf("TD errors differ: %v vs %v %v", td, tdA, tdB)
	}
	n := halfA.CopyFrom(whole)
	if n != 2*len(whole.q.Params()) || !slices.Equal(halfA.q.Params(), whole.q.Params()) || !slices.Equal(halfA.target.Params(), whole.target.Params()) {
		t.Fatal("CopyFrom did not copy both networks")
	}
}

func TestTargetUpdates(t *testing.T) {
	c := smallConfig()
	c.TargetEvery = 3
	l := newLearner(t, c)
	b := randomBatch(8, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, 8)
	before := slices.Clone(l.target.Params())
	l.Train(nil, b, td, 0)
	l.Train(nil, b, td, 1)
	if !slices.Equal(l.target.Params(), before) {
		t.Fatal("the target moved before step 3")
	}
	l.Train(nil, b, td, 2)
	if !slices.Equal(l.target.Params(), l.q.Params()) {
		t.Fatal("the target is not the online network after step 3 (tau 1)")
	}

	// Local SGD: nothing moves the target but AfterAverage, once per
	// TargetEvery boundary passed.
	l = newLearner(t, c)
	l.SetLocal(true)
	before = slices.Clone(l.target.Params())
	for s := range 5 {
		l.Train(nil, b, td, s)
	}
	if !slices.Equal(l.target.Params(), before) {
		t.Fatal("the target moved during local steps")
	}
	l.AfterAverage(nil, 2)
	if !slices.Equal(l.target.Params(), before) {
		t.Fatal("the target moved at step 2 with TargetEvery 3")
	}
	l.AfterAverage(nil, 4)
	if !slices.Equal(l.target.Params(), l.q.Params()) {
		t.Fatal("the target was not updated at the first averaging past step 3")
	}
	l.Train(nil, b, td, 5)
	l.AfterAverage(nil, 5) // still round 1
	if slices.Equal(l.target.Params(), l.q.Params()) {
		t.Fatal("the target was updated twice in one round")
	}
}

func TestSoftTarget(t *testing.T) {
	c := smallConfig()
	c.TargetEvery, c.Tau = 1, 0.25
	l := newLearner(t, c)
	old := slices.Clone(l.target.Params())
	b := randomBatch(4, rand.New(rand.NewPCG(1, 2)))
	l.Train(nil, b, make([]float32, 4), 0)
	for i, v := range l.target.Params() {
		want := 0.25*l.q.Params()[i] + 0.75*old[i]
		if math.Abs(float64(v-want)) > 1e-6 {
			t.Fatalf("target[%d] = %v, want %v", i, v, want)
		}
	}
}

func TestEpsilon(t *testing.T) {
	c := Config{StartE: 1, EndE: 0.05, ExplorationSteps: 1000}
	for _, tc := range []struct {
		t    int
		want float64
	}{{0, 1}, {500, 0.525}, {1000, 0.05}, {5000, 0.05}} {
		if got := c.Epsilon(tc.t); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Epsilon(%d) = %v, want %v", tc.t, got, tc.want)
		}
	}
	c.ExplorationSteps = 0
	if c.Epsilon(0) != 0.05 {
		t.Error("no exploration steps: epsilon is not EndE")
	}
}

func TestPolicy(t *testing.T) {
	c := smallConfig()
	c.EndE = 0 // greedy after exploration
	a, err := New(cartPoleSpec(t), c, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := a.NewPolicy()
	l, _ := a.Learner()
	copy(p.Params(), l.PolicyParams())
	rng := rand.New(rand.NewPCG(1, 1))
	obs := []float32{0.01, -0.2, 0.03, 0.4}
	act := make([]float32, 1)
	// after exploration: always greedy
	for range 50 {
		if !p.Act(act, obs, 1<<30, rng) {
			t.Fatal("a greedy step did not infer")
		}
		if int(act[0]) != l.Greedy(obs) {
			t.Fatalf("action %v, greedy %d", act[0], l.Greedy(obs))
		}
	}
	// at t = 0 epsilon is 1: uniform, never inferring
	counts := [2]int{}
	for range 2000 {
		if p.Act(act, obs, 0, rng) {
			t.Fatal("an exploring step inferred")
		}
		counts[int(act[0])]++
	}
	if counts[0] < 900 || counts[1] < 900 {
		t.Fatalf("random actions %v: not uniform", counts)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		modify func(*Config)
		want   string
	}{
		{func(c *Config) { c.Hidden = nil }, "no hidden layers"},
		{func(c *Config) { c.Hidden = []int{4, 0} }, "hidden layer 1 has 0 units"},
		{func(c *Config) { c.LearningRate = 0 }, "learning rate 0"},
		{func(c *Config) { c.Gamma = 1.5 }, "gamma 1.5"},
		{func(c *Config) { c.Tau = 0 }, "tau 0"},
		{func(c *Config) { c.TargetEvery = 0 }, "target update interval 0"},
		{func(c *Config) { c.Loss = 7 }, "loss 7"},
		{func(c *Config) { c.MaxGradNorm = math.Inf(1) }, "max gradient norm +Inf"},
		{func(c *Config) { c.StartE = -0.1 }, "start epsilon -0.1"},
		{func(c *Config) { c.EndE = 2 }, "end epsilon 2"},
		{func(c *Config) { c.ExplorationSteps = -1 }, "exploration steps -1"},
	} {
		c := smallConfig()
		tc.modify(&c)
		if _, err := New(cartPoleSpec(t), c, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
	e, _ := env.Make("Pendulum-v1", rand.New(rand.NewPCG(1, 1)))
	if _, err := New(e.Spec(), smallConfig(), 1); err == nil || !strings.Contains(err.Error(), "continuous") {
		t.Errorf("a continuous space: %v", err)
	}
	if _, err := New(nil, smallConfig(), 1); err == nil {
		t.Error("a nil spec was accepted")
	}
}

func TestTrainNoAllocs(t *testing.T) {
	c, _ := CleanRL(10000)
	l := newLearner(t, c)
	b := randomBatch(128, rand.New(rand.NewPCG(1, 2)))
	td := make([]float32, 128)
	tr := runtime.NewTracer(runtime.UnitID{Role: runtime.RoleLearner}, runtime.ObserverFunc(func(runtime.Event) {}), time.Now())
	step := 0
	allocs := testing.AllocsPerRun(50, func() {
		l.Train(tr, b, td, step)
		step++
	})
	if allocs != 0 {
		t.Fatalf("Train allocates %v times per step", allocs)
	}
}

func BenchmarkTrain(b *testing.B) {
	for _, double := range []bool{false, true} {
		name := "dqn"
		if double {
			name = "double"
		}
		b.Run(name, func(b *testing.B) {
			c, _ := CleanRL(10000)
			c.Double = double
			l := newLearner(b, c)
			batch := randomBatch(128, rand.New(rand.NewPCG(1, 2)))
			td := make([]float32, 128)
			b.ReportAllocs()
			step := 0
			for b.Loop() {
				l.Train(nil, batch, td, step)
				step++
			}
		})
	}
}

func BenchmarkAct(b *testing.B) {
	c, _ := CleanRL(10000)
	a, _ := New(cartPoleSpec(b), c, 1)
	p, _ := a.NewPolicy()
	rng := rand.New(rand.NewPCG(1, 1))
	obs := []float32{0.01, -0.2, 0.03, 0.4}
	act := make([]float32, 1)
	b.ReportAllocs()
	for b.Loop() {
		p.Act(act, obs, 1<<30, rng)
	}
}

// TestFramesUseTheNatureConvNet checks that stacked 84x84 frames (the Pong
// workload) get the ConvNet of 000 Table III, not an MLP.
func TestFramesUseTheNatureConvNet(t *testing.T) {
	e, err := env.Make("Pong-workload", rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := CleanRL(1000)
	a, err := New(e.Spec(), cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.Learner()
	if err != nil {
		t.Fatal(err)
	}
	sh := l.Q().Shape()
	convs := 0
	for _, ly := range sh.Layers {
		if ly.Kind == "conv" {
			convs++
		}
	}
	if convs != 3 || sh.Out.Size() != e.Spec().Act.N {
		t.Errorf("Q network for frames: %d conv layers, %v outputs\n%v", convs, sh.Out, sh)
	}
}
