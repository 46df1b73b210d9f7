package dqn

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
)

// streamInit is the random stream of the initial weights: every learner of
// a run draws the same ones.
const streamInit = 1

// Agent is DQN for a discrete action space: it builds epsilon-greedy
// policies for the actors and learners. It implements runtime.Agent.
type Agent struct {
	cfg      Config
	obsDim   int
	nActions int
	frames   bool // stacked 4x84x84 frames: the Nature-DQN ConvNet
	seed     uint64
}

// New returns a DQN agent for environments of spec (a discrete action
// space and a vector observation), with initial weights drawn from seed.
// It returns an error naming the first invalid hyperparameter, or if the
// action space is continuous.
func New(spec *env.Spec, cfg Config, seed uint64) (*Agent, error) {
	if spec == nil {
		return nil, fmt.Errorf("dqn: New needs an environment spec")
	}
	if !spec.Act.Discrete() {
		return nil, fmt.Errorf("dqn: %s has a continuous action space: DQN needs a discrete one (use core/ddpg)", spec.ID)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Hidden = slices.Clone(cfg.Hidden)
	sh := spec.Obs.Shape
	frames := len(sh) == 3 && sh[0] == 4 && sh[1] == 84 && sh[2] == 84
	return &Agent{cfg: cfg, obsDim: spec.Obs.Dim(), nActions: spec.Act.N, frames: frames, seed: seed}, nil
}

// Config returns the agent's hyperparameters.
func (a *Agent) Config() Config { return a.cfg }

// ObsDim returns the observation size.
func (a *Agent) ObsDim() int { return a.obsDim }

// ActDim returns 1: a stored action is its index.
func (a *Agent) ActDim() int { return 1 }

// Discrete returns true.
func (a *Agent) Discrete() bool { return true }

// newQ builds a Q network obs -> hidden (ReLU) -> one value per action,
// or for stacked 84x84 frames the ConvNet of Mnih et al. (2015), as 000
// Table III has it for Pong (Config.Hidden does not apply then).
func (a *Agent) newQ() *nn.Net {
	if a.frames {
		q, err := nn.NewNatureCNN(a.nActions)
		if err != nil {
			panic("dqn: " + err.Error())
		}
		return q
	}
	sizes := append([]int{a.obsDim}, a.cfg.Hidden...)
	sizes = append(sizes, a.nActions)
	q, err := nn.NewMLP(sizes, nn.ReLU, nn.Identity)
	if err != nil {
		panic("dqn: " + err.Error()) // sizes were validated
	}
	return q
}

// NewPolicy returns an epsilon-greedy policy (its weights are loaded by
// the runtime).
func (a *Agent) NewPolicy() (runtime.Policy, error) {
	return &Policy{cfg: &a.cfg, q: a.newQ(), out: make([]float32, a.nActions), n: a.nActions}, nil
}

// NewLearner returns a learner with PyTorch's default initialization
// (dqn.py's nn.Linear), the same for every call, and a target network
// equal to it.
func (a *Agent) NewLearner() (runtime.Learner, error) { return a.Learner() }

// Learner is NewLearner with the concrete type.
func (a *Agent) Learner() (*Learner, error) {
	q := a.newQ()
	q.InitPyTorch(rand.New(rand.NewPCG(a.seed, streamInit)))
	opt, err := nn.NewAdam(a.cfg.LearningRate, q)
	if err != nil {
		return nil, fmt.Errorf("dqn: %w", err)
	}
	l := &Learner{cfg: &a.cfg, q: q, target: q.Clone(), opt: opt, n: a.nActions}
	l.avg = [][]float32{q.Params()}
	l.grads = [][]float32{q.Grads()}
	return l, nil
}

// Policy is an actor's epsilon-greedy policy (dqn.py): with probability
// epsilon(t) a uniformly random action, else argmax_a Q(obs, a).
type Policy struct {
	cfg *Config
	q   *nn.Net
	out []float32
	n   int
}

// Act writes the action index into act[0] and reports whether it ran the
// Q network.
func (p *Policy) Act(act, obs []float32, t int, rng *rand.Rand) bool {
	if rng.Float64() < p.cfg.Epsilon(t) {
		act[0] = float32(rng.IntN(p.n))
		return false
	}
	p.q.Forward(p.out, obs)
	best := 0
	for j, v := range p.out {
		if v > p.out[best] {
			best = j
		}
	}
	act[0] = float32(best)
	return true
}

// Params returns the Q network's parameters.
func (p *Policy) Params() []float32 { return p.q.Params() }

// Learner trains a Q network with a target network from prioritized
// replay. It implements runtime.Learner, runtime.LocalSGD (SPO-DQN, 001
// Algorithm 7) and runtime.DataParallel (data-parallel ApeX-DQN).
type Learner struct {
	cfg       *Config
	q, target *nn.Net
	anchor    *nn.Net // the last averaged Q network: double-DQN's selector under local SGD
	opt       *nn.Adam
	n         int
	local     bool
	targetRnd int // TargetEvery rounds applied under local SGD

	avg, grads [][]float32

	// scratch, sized to the batch
	qAll, qNext, tNext, dAll []float32
	qa, y, g                 []float32
	greedy                   []int
}

// Q returns the online Q network.
func (l *Learner) Q() *nn.Net { return l.q }

// Target returns the target network.
func (l *Learner) Target() *nn.Net { return l.target }

// PolicyParams returns the Q network's parameters: the actors act with it.
func (l *Learner) PolicyParams() []float32 { return l.q.Params() }

func (l *Learner) resize(rows int) {
	if len(l.qa) == rows {
		return
	}
	grow := func(s []float32, n int) []float32 {
		if cap(s) < n {
			return make([]float32, n)
		}
		return s[:n]
	}
	w := rows * l.n
	l.qAll, l.qNext, l.tNext, l.dAll = grow(l.qAll, w), grow(l.qNext, w), grow(l.tNext, w), grow(l.dAll, w)
	l.qa, l.y, l.g = grow(l.qa, rows), grow(l.y, rows), grow(l.g, rows)
	if cap(l.greedy) < rows {
		l.greedy = make([]int, rows)
	}
	l.greedy = l.greedy[:rows]
}

// Train is one gradient step on b (002 Eq. 3 with importance weights):
//
//	y_i  = r_i + gamma (1 - terminated_i) max_a' Q_target(s'_i, a')
//	       (double DQN: Q_target(s'_i, argmax_a' Q(s'_i, a')))
//	loss = (1/B) sum_i w_i (Q(s_i, a_i) - y_i)^2     (or Huber)
//
// then Adam, and the target update every TargetEvery steps (deferred to
// AfterAverage under local SGD). td receives Q(s_i, a_i) - y_i. Truncated
// transitions bootstrap: only termination cuts the return.
func (l *Learner) Train(tr *runtime.Tracer, b *replay.Batch, td []float32, step int) runtime.TrainStats {
	st := l.forwardBackward(tr, b, td)
	if l.cfg.MaxGradNorm > 0 {
		nn.ClipGradNorm(l.cfg.MaxGradNorm, l.q)
	}
	tr.Mark(runtime.KindBackward, b.Len())
	l.opt.Step()
	tr.Mark(runtime.KindOptimizer, len(l.q.Params()))
	if !l.local && (step+1)%l.cfg.TargetEvery == 0 {
		l.updateTarget(tr)
	}
	return st
}

// forwardBackward computes the TD errors, the loss and the gradients into
// q.Grads (replacing them). It marks the forward phase; the caller marks
// the backward one.
func (l *Learner) forwardBackward(tr *runtime.Tracer, b *replay.Batch, td []float32) runtime.TrainStats {
	rows, n := b.Len(), l.n
	l.resize(rows)
	if len(td) != rows {
		panic(fmt.Sprintf("dqn: Train: %d TD errors for a batch of %d", len(td), rows))
	}
	// Targets.
	if l.cfg.Double {
		sel := l.q
		if l.local && l.anchor != nil {
			// 001 §5.2.2.3: under local SGD the selector must not move
			// between averagings; use the last averaged network.
			sel = l.anchor
		}
		sel.Forward(l.qNext, b.NextObs)
		nn.Argmax(l.greedy, l.qNext, n)
	}
	l.target.Forward(l.tNext, b.NextObs)
	gamma := float32(l.cfg.Gamma)
	for i := range rows {
		row := l.tNext[i*n : (i+1)*n]
		var v float32
		if l.cfg.Double {
			v = row[l.greedy[i]]
		} else {
			v = row[0]
			for _, x := range row[1:] {
				v = max(v, x)
			}
		}
		if b.Terminated[i] {
			v = 0
		}
		l.y[i] = b.Rewards[i] + gamma*v
	}
	// Online values of the actions taken.
	l.q.Forward(l.qAll, b.Obs)
	var qsum float64
	for i := range rows {
		a := int(b.Actions[i])
		if a < 0 || a >= n {
			panic(fmt.Sprintf("dqn: batch row %d holds action %v: actions are 0..%d", i, b.Actions[i], n-1))
		}
		l.qa[i] = l.qAll[i*n+a]
		td[i] = l.qa[i] - l.y[i]
		qsum += float64(l.qa[i])
	}
	var loss float64
	if l.cfg.Loss == Huber {
		loss = nn.Huber(l.g, l.qa, l.y, b.Weights, 1)
	} else {
		loss = nn.MSE(l.g, l.qa, l.y, b.Weights)
	}
	tr.Mark(runtime.KindForward, rows)
	// Only the taken action's output has a gradient.
	clear(l.dAll)
	for i := range rows {
		l.dAll[i*n+int(b.Actions[i])] = l.g[i]
	}
	l.q.ZeroGrad()
	l.q.Backward(nil, l.dAll)
	return runtime.TrainStats{Loss: loss, QMean: qsum / float64(rows)}
}

func (l *Learner) updateTarget(tr *runtime.Tracer) {
	if l.cfg.Tau == 1 {
		l.target.CopyFrom(l.q)
	} else {
		nn.Polyak(l.target.Params(), l.q.Params(), float32(l.cfg.Tau))
	}
	tr.Mark(runtime.KindTargetUpdate, len(l.q.Params()))
}

// SetLocal switches local-SGD mode (SPO): target updates wait for
// AfterAverage.
func (l *Learner) SetLocal(on bool) {
	l.local = on
	if on && l.cfg.Double && l.anchor == nil {
		l.anchor = l.q.Clone()
	}
}

// AverageParams returns the Q network's parameters.
func (l *Learner) AverageParams() [][]float32 { return l.avg }

// AfterAverage runs after weight averaging at gradient step step: the target
// network is updated if a TargetEvery boundary passed since the last
// averaging (001 Algorithm 7 lines 12-13: only after averaging), and the
// double-DQN selector becomes the averaged network.
func (l *Learner) AfterAverage(tr *runtime.Tracer, step int) {
	if r := step / l.cfg.TargetEvery; r > l.targetRnd {
		l.targetRnd = r
		l.updateTarget(tr)
	}
	if l.anchor != nil {
		l.anchor.CopyFrom(l.q)
	}
}

// Phases returns 1: DQN has one gradient phase.
func (l *Learner) Phases(step int) int { return 1 }

// Grad computes the gradients of the mean loss over sub-batch b.
func (l *Learner) Grad(tr *runtime.Tracer, phase int, b *replay.Batch, td []float32, step int) runtime.TrainStats {
	st := l.forwardBackward(tr, b, td)
	tr.Mark(runtime.KindBackward, b.Len())
	return st
}

// GradParams returns the Q network's gradients.
func (l *Learner) GradParams(phase int) [][]float32 { return l.grads }

// Apply takes the optimizer step from the (averaged) gradients and updates
// the target network when due.
func (l *Learner) Apply(tr *runtime.Tracer, phase int, step int) {
	if l.cfg.MaxGradNorm > 0 {
		nn.ClipGradNorm(l.cfg.MaxGradNorm, l.q)
	}
	l.opt.Step()
	tr.Mark(runtime.KindOptimizer, len(l.q.Params()))
	if (step+1)%l.cfg.TargetEvery == 0 {
		l.updateTarget(tr)
	}
}

// CopyFrom copies src's Q and target networks. It panics if src is not a
// *Learner of the same shape.
func (l *Learner) CopyFrom(src runtime.DataParallel) int {
	s := src.(*Learner)
	l.q.CopyFrom(s.q)
	l.target.CopyFrom(s.target)
	return 2 * len(l.q.Params())
}

// Greedy returns argmax_a Q(obs, a) with the online network: the action of
// an evaluation episode.
func (l *Learner) Greedy(obs []float32) int {
	out := make([]float32, l.n)
	l.q.Forward(out, obs)
	best := 0
	for j, v := range out {
		if v > out[best] {
			best = j
		}
	}
	return best
}
