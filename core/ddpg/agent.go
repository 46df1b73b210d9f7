package ddpg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

// Random streams of an agent's seed.
const (
	streamInit  = 1       // initial weights: the same for every learner
	streamNoise = 1 << 16 // target-smoothing noise: one stream per learner built
)

// Agent is DDPG or TD3 for a continuous action space (a box): it builds
// the actors' exploring policies and the learners. It implements
// runtime.Agent.
type Agent struct {
	cfg       Config
	obsDim    int
	actDim    int
	low, high []float32
	scale     []float32 // (high - low) / 2
	bias      []float32 // (high + low) / 2
	seed      uint64
	learners  atomic.Uint64
}

// New returns an agent for environments of spec (a continuous action space
// with finite bounds), with initial weights drawn from seed. It returns an
// error naming the first invalid hyperparameter, or if the action space is
// discrete or unbounded.
func New(spec *env.Spec, cfg Config, seed uint64) (*Agent, error) {
	if spec == nil {
		return nil, fmt.Errorf("ddpg: New needs an environment spec")
	}
	if spec.Act.Discrete() {
		return nil, fmt.Errorf("ddpg: %s has a discrete action space: %s needs a continuous one (use core/dqn)", spec.ID, cfg.Algorithm)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, obsDim: spec.Obs.Dim(), actDim: len(spec.Act.Low), seed: seed,
		low: slices.Clone(spec.Act.Low), high: slices.Clone(spec.Act.High)}
	a.cfg.Hidden = slices.Clone(cfg.Hidden)
	for i := range a.low {
		lo, hi := float64(a.low[i]), float64(a.high[i])
		if math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(lo < hi) {
			return nil, fmt.Errorf("ddpg: %s action %d has bounds [%v, %v]: they must be finite with low < high", spec.ID, i, lo, hi)
		}
		a.scale = append(a.scale, float32((hi-lo)/2))
		a.bias = append(a.bias, float32((hi+lo)/2))
	}
	return a, nil
}

// Config returns the agent's hyperparameters.
func (a *Agent) Config() Config { return a.cfg }

// ObsDim returns the observation size.
func (a *Agent) ObsDim() int { return a.obsDim }

// ActDim returns the action size.
func (a *Agent) ActDim() int { return a.actDim }

// Discrete returns false.
func (a *Agent) Discrete() bool { return false }

// newActor builds obs -> hidden (ReLU) -> actDim (tanh); the output is
// scaled to the box outside the network, as CleanRL's Actor does.
func (a *Agent) newActor() *nn.Net {
	sizes := append(append([]int{a.obsDim}, a.cfg.Hidden...), a.actDim)
	n, err := nn.NewMLP(sizes, nn.ReLU, nn.Tanh)
	if err != nil {
		panic("ddpg: " + err.Error()) // sizes were validated
	}
	return n
}

// newCritic builds (obs, act) -> hidden (ReLU) -> 1.
func (a *Agent) newCritic() *nn.Net {
	sizes := append(append([]int{a.obsDim + a.actDim}, a.cfg.Hidden...), 1)
	n, err := nn.NewMLP(sizes, nn.ReLU, nn.Identity)
	if err != nil {
		panic("ddpg: " + err.Error())
	}
	return n
}

// NewPolicy returns an exploring policy (its weights are loaded by the
// runtime).
func (a *Agent) NewPolicy() (runtime.Policy, error) {
	return &Policy{a: a, actor: a.newActor(), out: make([]float32, a.actDim)}, nil
}

// NewLearner returns a learner: PyTorch's default initialization
// (nn.Linear), the same for every call, targets equal to the networks, and
// its own stream of target-smoothing noise.
func (a *Agent) NewLearner() (runtime.Learner, error) { return a.Learner() }

// Learner is NewLearner with the concrete type.
func (a *Agent) Learner() (*Learner, error) {
	init := rand.New(rand.NewPCG(a.seed, streamInit))
	l := &Learner{a: a, cfg: &a.cfg}
	l.actor = a.newActor()
	l.actor.InitPyTorch(init)
	l.q1 = a.newCritic()
	l.q1.InitPyTorch(init)
	l.critics = []*nn.Net{l.q1}
	if a.cfg.Algorithm == TD3 {
		l.q2 = a.newCritic()
		l.q2.InitPyTorch(init)
		l.critics = append(l.critics, l.q2)
	}
	l.actorT = l.actor.Clone()
	for _, q := range l.critics {
		l.targets = append(l.targets, q.Clone())
	}
	var err error
	mods := make([]nn.Module, len(l.critics))
	for i, q := range l.critics {
		mods[i] = q
	}
	if l.qOpt, err = nn.NewAdam(a.cfg.LearningRate, mods...); err != nil {
		return nil, fmt.Errorf("ddpg: %w", err)
	}
	if l.actorOpt, err = nn.NewAdam(a.cfg.LearningRate, l.actor); err != nil {
		return nil, fmt.Errorf("ddpg: %w", err)
	}
	l.noise = rand.New(rand.NewPCG(a.seed, streamNoise+a.learners.Add(1)))
	l.avg = [][]float32{l.actor.Params()}
	for _, q := range l.critics {
		l.avg = append(l.avg, q.Params())
		l.criticGrads = append(l.criticGrads, q.Grads())
	}
	l.actorGrads = [][]float32{l.actor.Grads()}
	return l, nil
}

// Policy is an actor's policy (CleanRL): uniformly random actions for the
// first RandomSteps global steps, then actor(obs) plus Gaussian noise of
// standard deviation ExplorationNoise * scale, clipped to the box.
type Policy struct {
	a     *Agent
	actor *nn.Net
	out   []float32
}

// Act writes the action into act and reports whether it ran the actor
// network.
func (p *Policy) Act(act, obs []float32, t int, rng *rand.Rand) bool {
	a := p.a
	if t < a.cfg.RandomSteps {
		for i := range act {
			lo, hi := float64(a.low[i]), float64(a.high[i])
			act[i] = float32(lo + (hi-lo)*rng.Float64())
		}
		return false
	}
	p.actor.Forward(p.out, obs)
	for i, y := range p.out {
		v := y*a.scale[i] + a.bias[i] + float32(rng.NormFloat64()*a.cfg.ExplorationNoise)*a.scale[i]
		act[i] = min(max(v, a.low[i]), a.high[i])
	}
	return true
}

// Params returns the actor network's parameters.
func (p *Policy) Params() []float32 { return p.actor.Params() }

// Learner trains DDPG or TD3 from prioritized replay. It implements
// runtime.Learner, runtime.LocalSGD (SPO-TD3, 001 §5.2.2.2) and
// runtime.DataParallel.
type Learner struct {
	a        *Agent
	cfg      *Config
	actor    *nn.Net
	actorT   *nn.Net
	q1, q2   *nn.Net   // q2 nil for DDPG
	critics  []*nn.Net // q1 (, q2)
	targets  []*nn.Net // their targets
	qOpt     *nn.Adam
	actorOpt *nn.Adam
	noise    *rand.Rand

	local   bool
	pending int // Polyak updates deferred under local SGD

	avg, criticGrads, actorGrads [][]float32

	// scratch, sized to the batch
	rows                               int
	aNext, qInN, qIn, qInA, dIn, aRaw  []float32
	aAct, dA                           []float32
	y, qv, qt, g, q1v, q2v, g1, g2, dq []float32
}

// Actor returns the actor network (outputs in [-1, 1], scaled by the
// agent's action scale and bias).
func (l *Learner) Actor() *nn.Net { return l.actor }

// Critic returns the first critic network (TD3's second has its shape).
func (l *Learner) Critic() *nn.Net { return l.q1 }

// PolicyParams returns the actor's parameters.
func (l *Learner) PolicyParams() []float32 { return l.actor.Params() }

func (l *Learner) resize(rows int) {
	if l.rows == rows {
		return
	}
	l.rows = rows
	od, ad := l.a.obsDim, l.a.actDim
	f := func(n int) []float32 { return make([]float32, n) }
	l.aNext, l.aRaw, l.aAct, l.dA = f(rows*ad), f(rows*ad), f(rows*ad), f(rows*ad)
	l.qInN, l.qIn, l.qInA, l.dIn = f(rows*(od+ad)), f(rows*(od+ad)), f(rows*(od+ad)), f(rows*(od+ad))
	l.y, l.qv, l.qt, l.g = f(rows), f(rows), f(rows), f(rows)
	l.q1v, l.q2v, l.g1, l.g2, l.dq = f(rows), f(rows), f(rows), f(rows), f(rows)
}

// Train is one gradient step (CleanRL's loop with importance weights):
//
//	a'   = clip(actor_T(s') * scale + bias + eps, low, high),
//	       eps = clip(N(0, PolicyNoise), -NoiseClip, NoiseClip) * scale   (TD3; DDPG: eps = 0)
//	y    = r + gamma (1 - terminated) min_j Q_j,T(s', a')                  (DDPG: Q_1,T only)
//	L_Q  = sum_j (1/B) sum_i w_i (Q_j(s_i, a_i) - y_i)^2
//
// then Adam on the critics; every PolicyFrequency steps the actor step on
// L_pi = -(1/B) sum_i Q_1(s_i, actor(s_i)) and the Polyak updates of all
// targets, theta_T = tau theta + (1 - tau) theta_T (deferred to
// AfterAverage under local SGD). td receives max_j |Q_j(s_i, a_i) - y_i|
// (the larger critic error, as LAP does for TD3).
func (l *Learner) Train(tr *runtime.Tracer, b *replay.Batch, td []float32, step int) runtime.TrainStats {
	st := l.criticGrad(tr, b, td)
	tr.Mark(runtime.KindBackward, b.Len())
	l.criticStep(tr, step)
	if l.actorDue(step) {
		st.Aux, st.HasAux = l.actorGrad(tr, b), true
		tr.Mark(runtime.KindBackward, b.Len())
		l.actorStep(tr, step)
		l.targetsDue(tr)
	}
	return st
}

func (l *Learner) actorDue(step int) bool { return (step+1)%l.cfg.PolicyFrequency == 0 }

// criticGrad computes the TD targets, the critics' losses and their
// gradients (replacing them), and the TD errors. It marks the forward phase.
func (l *Learner) criticGrad(tr *runtime.Tracer, b *replay.Batch, td []float32) runtime.TrainStats {
	a, rows := l.a, b.Len()
	if len(td) != rows {
		panic(fmt.Sprintf("ddpg: Train: %d TD errors for a batch of %d", len(td), rows))
	}
	l.resize(rows)
	od, ad := a.obsDim, a.actDim
	l.actorT.Forward(l.aNext, b.NextObs)
	td3 := l.cfg.Algorithm == TD3
	for i := range rows {
		for j := range ad {
			k := i*ad + j
			v := l.aNext[k]*a.scale[j] + a.bias[j]
			if td3 {
				eps := l.noise.NormFloat64() * l.cfg.PolicyNoise
				eps = math.Min(math.Max(eps, -l.cfg.NoiseClip), l.cfg.NoiseClip)
				v += float32(eps) * a.scale[j]
			}
			l.aNext[k] = min(max(v, a.low[j]), a.high[j])
		}
	}
	nn.Concat(l.qInN, b.NextObs, od, l.aNext, ad)
	l.targets[0].Forward(l.qt, l.qInN)
	if td3 {
		l.targets[1].Forward(l.qv, l.qInN)
		for i := range rows {
			l.qt[i] = min(l.qt[i], l.qv[i])
		}
	}
	gamma := float32(l.cfg.Gamma)
	for i := range rows {
		v := l.qt[i]
		if b.Terminated[i] {
			v = 0
		}
		l.y[i] = b.Rewards[i] + gamma*v
	}
	nn.Concat(l.qIn, b.Obs, od, b.Actions, ad)
	l.q1.Forward(l.q1v, l.qIn)
	loss := nn.MSE(l.g1, l.q1v, l.y, b.Weights)
	var qsum float64
	for i := range rows {
		td[i] = float32(math.Abs(float64(l.q1v[i] - l.y[i])))
		qsum += float64(l.q1v[i])
	}
	if td3 {
		l.q2.Forward(l.q2v, l.qIn)
		loss += nn.MSE(l.g2, l.q2v, l.y, b.Weights)
		for i := range rows {
			td[i] = max(td[i], float32(math.Abs(float64(l.q2v[i]-l.y[i]))))
		}
	}
	tr.Mark(runtime.KindForward, rows)
	l.q1.ZeroGrad()
	l.q1.Backward(nil, l.g1)
	if td3 {
		l.q2.ZeroGrad()
		l.q2.Backward(nil, l.g2)
	}
	return runtime.TrainStats{Loss: loss, QMean: qsum / float64(rows)}
}

func (l *Learner) criticStep(tr *runtime.Tracer, step int) {
	n := 0
	for _, q := range l.critics {
		n += len(q.Params())
	}
	l.qOpt.Step()
	tr.Mark(runtime.KindOptimizer, n)
}

// actorGrad computes the deterministic policy gradient of
// L_pi = -(1/B) sum_i Q_1(s_i, actor(s_i)) into the actor's gradients
// (replacing them), without touching the critic's, and returns L_pi. It
// marks the forward phase.
func (l *Learner) actorGrad(tr *runtime.Tracer, b *replay.Batch) float64 {
	a, rows := l.a, b.Len()
	l.resize(rows)
	od, ad := a.obsDim, a.actDim
	l.actor.Forward(l.aRaw, b.Obs)
	for i := range rows {
		for j := range ad {
			l.aAct[i*ad+j] = l.aRaw[i*ad+j]*a.scale[j] + a.bias[j]
		}
	}
	nn.Concat(l.qInA, b.Obs, od, l.aAct, ad)
	l.q1.Forward(l.qv, l.qInA)
	var s float64
	inv := -1 / float32(rows)
	for i := range rows {
		s += float64(l.qv[i])
		l.dq[i] = inv
	}
	tr.Mark(runtime.KindForward, rows)
	l.q1.InputGrad(l.dIn, l.dq)
	nn.Columns(l.dA, l.dIn, od+ad, od, od+ad)
	for i := range rows {
		for j := range ad {
			l.dA[i*ad+j] *= a.scale[j] // d(y*scale+bias)/dy
		}
	}
	l.actor.ZeroGrad()
	l.actor.Backward(nil, l.dA)
	return -s / float64(rows)
}

func (l *Learner) actorStep(tr *runtime.Tracer, step int) {
	l.actorOpt.Step()
	tr.Mark(runtime.KindOptimizer, len(l.actor.Params()))
}

// targetsDue applies the Polyak update now, or defers it under local SGD.
func (l *Learner) targetsDue(tr *runtime.Tracer) {
	if l.local {
		l.pending++
		return
	}
	l.polyak(tr, float32(l.cfg.Tau))
}

func (l *Learner) polyak(tr *runtime.Tracer, tau float32) {
	nn.Polyak(l.actorT.Params(), l.actor.Params(), tau)
	n := len(l.actor.Params())
	for i, q := range l.critics {
		nn.Polyak(l.targets[i].Params(), q.Params(), tau)
		n += len(q.Params())
	}
	tr.Mark(runtime.KindTargetUpdate, n)
}

// SetLocal switches local-SGD mode (SPO): Polyak updates wait for
// AfterAverage.
func (l *Learner) SetLocal(on bool) { l.local = on }

// AverageParams returns the actor's and the critics' parameters.
func (l *Learner) AverageParams() [][]float32 { return l.avg }

// AfterAverage applies the k Polyak updates deferred since the last
// averaging as one, towards the averaged networks: tau_k = 1 - (1-tau)^k,
// what k updates towards a fixed network amount to (001 §5.2.2.2: the
// targets stay fixed between averagings).
func (l *Learner) AfterAverage(tr *runtime.Tracer, step int) {
	if l.pending == 0 {
		return
	}
	tau := 1 - math.Pow(1-l.cfg.Tau, float64(l.pending))
	l.pending = 0
	l.polyak(tr, float32(tau))
}

// Phases returns 2 on actor steps (critics, then the actor through the
// updated critic), else 1.
func (l *Learner) Phases(step int) int {
	if l.actorDue(step) {
		return 2
	}
	return 1
}

// Grad computes the gradients of phase 0 (critics) or 1 (actor) on b.
func (l *Learner) Grad(tr *runtime.Tracer, phase int, b *replay.Batch, td []float32, step int) runtime.TrainStats {
	if phase == 0 {
		st := l.criticGrad(tr, b, td)
		tr.Mark(runtime.KindBackward, b.Len())
		return st
	}
	aux := l.actorGrad(tr, b)
	tr.Mark(runtime.KindBackward, b.Len())
	return runtime.TrainStats{Aux: aux, HasAux: true}
}

// GradParams returns the critics' gradients (phase 0) or the actor's (1).
func (l *Learner) GradParams(phase int) [][]float32 {
	if phase == 0 {
		return l.criticGrads
	}
	return l.actorGrads
}

// Apply takes the optimizer step of phase from the averaged gradients;
// after the actor's, the Polyak updates.
func (l *Learner) Apply(tr *runtime.Tracer, phase int, step int) {
	if phase == 0 {
		l.criticStep(tr, step)
		return
	}
	l.actorStep(tr, step)
	l.targetsDue(tr)
}

// CopyFrom copies every network of src, targets included. It panics if src
// is not a *Learner of the same agent shape.
func (l *Learner) CopyFrom(src runtime.DataParallel) int {
	s := src.(*Learner)
	l.actor.CopyFrom(s.actor)
	l.actorT.CopyFrom(s.actorT)
	n := 2 * len(l.actor.Params())
	for i, q := range l.critics {
		q.CopyFrom(s.critics[i])
		l.targets[i].CopyFrom(s.targets[i])
		n += 2 * len(q.Params())
	}
	return n
}

// Act returns the deterministic action actor(obs) * scale + bias: the
// action of an evaluation episode.
func (l *Learner) Act(dst, obs []float32) {
	out := make([]float32, l.a.actDim)
	l.actor.Forward(out, obs)
	for j, y := range out {
		dst[j] = min(max(y*l.a.scale[j]+l.a.bias[j], l.a.low[j]), l.a.high[j])
	}
}
