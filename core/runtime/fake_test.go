package runtime

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/rlxdev/rlx/core/replay"
)

// fakeAgent is a cheap stand-in for a real learner on CartPole-v1: a
// linear policy, and a learner whose "training" is arithmetic on the batch,
// so that every effect of the runtime's ordering shows in its parameters.
type fakeAgent struct {
	failAt     int           // a learner reports a NaN loss at this step (0: never)
	trainDelay time.Duration // each Train sleeps this long: a slow learner

	mu       sync.Mutex
	learners []*fakeLearner
}

func (a *fakeAgent) ObsDim() int    { return 4 }
func (a *fakeAgent) ActDim() int    { return 1 }
func (a *fakeAgent) Discrete() bool { return true }

func (a *fakeAgent) NewPolicy() (Policy, error) { return &fakePolicy{w: make([]float32, 4)}, nil }

func (a *fakeAgent) NewLearner() (Learner, error) {
	l := &fakeLearner{p: []float32{0.1, -0.2, 0.3, 0.05}, g: make([]float32, 4), failAt: a.failAt, delay: a.trainDelay}
	l.t = append([]float32(nil), l.p...)
	a.mu.Lock()
	a.learners = append(a.learners, l)
	a.mu.Unlock()
	return l, nil
}

type fakePolicy struct{ w []float32 }

func (p *fakePolicy) Act(act, obs []float32, t int, rng *rand.Rand) bool {
	if rng.Float64() < 0.3 {
		act[0] = float32(rng.IntN(2))
		return false
	}
	var s float32
	for k, v := range obs {
		s += p.w[k] * v
	}
	act[0] = 0
	if s > 0 {
		act[0] = 1
	}
	return true
}

func (p *fakePolicy) Params() []float32 { return p.w }

// fakeLearner moves its parameters by the importance-weighted mean
// observation of each batch; its TD errors are a function of the rows.
type fakeLearner struct {
	p, t, g  []float32 // parameters, target, gradient
	local    bool
	averaged int
	failAt   int
	delay    time.Duration
	steps    int
	hash     []uint64 // per step: a hash of the batch's slots and rows
}

func (l *fakeLearner) PolicyParams() []float32 { return l.p }

func (l *fakeLearner) grad(b *replay.Batch, td []float32) {
	n := b.Len()
	clear(l.g)
	h := fnv.New64a()
	var buf [8]byte
	for i := range n {
		for k := range 4 {
			l.g[k] += b.Weights[i] * b.Obs[i*4+k] / float32(n)
		}
		td[i] = 0.1 + float32(i%5)*0.2 + float32(math.Abs(float64(b.Obs[i*4])))
		v := math.Float32bits(b.Obs[i*4]) ^ uint32(b.Idx[i])<<3 ^ math.Float32bits(b.Weights[i])
		buf[0], buf[1], buf[2], buf[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		h.Write(buf[:4])
	}
	l.hash = append(l.hash, h.Sum64())
}

func (l *fakeLearner) Train(tr *Tracer, b *replay.Batch, td []float32, step int) TrainStats {
	time.Sleep(l.delay)
	l.grad(b, td)
	tr.Mark(KindForward, b.Len())
	tr.Mark(KindBackward, b.Len())
	for k := range l.p {
		l.p[k] -= 0.01 * l.g[k]
	}
	tr.Mark(KindOptimizer, len(l.p))
	l.steps++
	loss := float64(l.g[0])
	if l.failAt > 0 && step == l.failAt {
		loss = math.NaN()
	}
	return TrainStats{Loss: loss, QMean: float64(l.p[0])}
}

func (l *fakeLearner) SetLocal(on bool)           { l.local = on }
func (l *fakeLearner) AverageParams() [][]float32 { return [][]float32{l.p} }
func (l *fakeLearner) AfterAverage(tr *Tracer, step int) {
	l.averaged++
	copy(l.t, l.p)
	tr.Mark(KindTargetUpdate, len(l.p))
}

func (l *fakeLearner) Phases(step int) int { return 1 + step%2 }
func (l *fakeLearner) Grad(tr *Tracer, phase int, b *replay.Batch, td []float32, step int) TrainStats {
	l.grad(b, td)
	tr.Mark(KindForward, b.Len())
	return TrainStats{Loss: float64(l.g[0])}
}
func (l *fakeLearner) GradParams(phase int) [][]float32 { return [][]float32{l.g} }
func (l *fakeLearner) Apply(tr *Tracer, phase int, step int) {
	for k := range l.p {
		l.p[k] -= 0.01 * l.g[k]
	}
	l.steps++
	tr.Mark(KindOptimizer, len(l.p))
}
func (l *fakeLearner) CopyFrom(src DataParallel) int {
	s := src.(*fakeLearner)
	copy(l.p, s.p)
	copy(l.t, s.t)
	return 2 * len(l.p)
}

// baseConfig is a small single-learner run of the fake agent.
func baseConfig() Config {
	return Config{
		Env: "CartPole-v1", Mode: ModeSingle, Pacing: PaceRatio,
		Actors: 1, Learners: 1,
		TotalSteps: 3000, LearningStarts: 200, UpdateInterval: 4,
		BatchSize: 16, LocalStorage: 20, Depth: 1,
		Replay: replay.Config{Capacity: 1000, Alpha: 0.6, Beta: 0.4, Eps: 1e-6},
		Seed:   7,
	}
}
