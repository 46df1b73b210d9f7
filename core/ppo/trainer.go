package ppo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/nn"
)

// ErrDone is returned by Iterate after the last iteration of the run.
var ErrDone = errors.New("ppo: the run is complete: every iteration of TotalSteps has run")

// PCG streams of the random sources; environment copy i uses stream i
// (env.MakeVec), so these sit far above any copy index.
const (
	streamInit    = 1<<62 + 1
	streamSample  = 1<<62 + 2
	streamShuffle = 1<<62 + 3
)

func seededRand(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// Trainer runs PPO on one environment: N copies stepped in lock step for T
// steps per iteration, GAE through core/gae with the configured numerics,
// then K epochs of minibatch updates of separate actor and critic networks
// with one Adam optimizer. It allocates its buffers in New; an iteration
// allocates nothing. A Trainer is not safe for concurrent use; its
// Observer is called on the goroutine that calls Iterate.
type Trainer struct {
	cfg        Config
	spec       *env.Spec
	vec        *env.Vec
	n, t       int
	obsDim     int
	actDim     int // logits (discrete) or means (continuous) per sample
	discrete   bool
	batch, mb  int
	chunk      int // samples of a minibatch the networks hold at once (chunkSize)
	iterations int

	actor, critic *nn.Net
	head          *nn.DiagGaussian // continuous only
	modules       []nn.Module
	opt           *nn.Adam
	nParams       int
	est           *gae.Estimator
	gradClip      float64

	sampleRng, shuffleRng *rand.Rand

	// The rollout, time-major: row t holds step t of the N copies.
	obs        []float32 // T*N*obsDim, as the policy saw them (normalized with NormObs)
	actIdx     []int     // T*N discrete actions
	actVec     []float32 // T*N*actDim continuous actions as sampled (unclipped)
	logp       []float32
	values     []float32
	nextValues []float32
	rewards    []float32 // normalized with NormReward
	term       []bool
	trunc      []bool
	rollout    gae.Rollout
	adv, ret   []float32 // the Estimator's outputs of the last GAE
	oldValues  []float32 // V(s_t) at collection, for value clipping

	// Step scratch.
	cur     []float32 // N*obsDim: the observation the policy acts on next
	out     []float32 // N*actDim logits or means
	clipped []float32 // N*actDim continuous actions clipped to the space
	rew     []float32 // N rewards of the last step, normalized
	finNorm []float32 // N*obsDim normalized final observations (NormObs)
	fin     []float32 // gathered final observations to bootstrap from
	finV    []float32
	finIdx  []int
	bootV   []float32 // N: V of the observation after the rollout

	obsNorm *obsNormalizer
	rewNorm *rewardNormalizer

	// Minibatch scratch, M rows.
	perm                                  []int
	mbObs, mbOut, mbDOut                  []float32
	mbLogp, mbEnt, mbDLogp, mbDEnt        []float32
	mbV, mbDV, mbAdv, mbRet, mbOldV, mbOL []float32
	mbActIdx                              []int
	mbActVec                              []float32

	iter     int
	steps    int64
	observer Observer
	episodes EpisodeObserver
	chunks   ChunkObserver
	ev       Event // the event being built; passed to the observer by value
}

// New builds the environments, the networks (initialized as CleanRL's
// layer_init: orthogonal, gain sqrt(2) hidden, 0.01 policy head, 1 value
// head), the optimizer and the GAE Estimator of cfg, and resets the
// environments. It returns an error if cfg is out of range or the
// environment is unknown.
func New(cfg Config) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.Hidden = append([]int(nil), cfg.Hidden...)
	cfg.EnvOptions = append([]env.Option(nil), cfg.EnvOptions...)
	vec, err := env.MakeVec(cfg.Env, cfg.NumEnvs, cfg.Seed, cfg.EnvOptions...)
	if err != nil {
		return nil, fmt.Errorf("ppo: %w", err)
	}
	spec := vec.Spec()
	tr := &Trainer{
		cfg: cfg, spec: spec, vec: vec,
		n: cfg.NumEnvs, t: cfg.NumSteps,
		obsDim: spec.Obs.Dim(), actDim: spec.Act.Dim(), discrete: spec.Act.Discrete(),
		batch: cfg.BatchSize(), mb: cfg.MinibatchSize(), iterations: cfg.Iterations(),
		sampleRng:  seededRand(cfg.Seed, streamSample),
		shuffleRng: seededRand(cfg.Seed, streamShuffle),
		gradClip:   cfg.MaxGradNorm,
	}
	if tr.gradClip == 0 {
		tr.gradClip = math.Inf(1) // ClipGradNorm then only measures
	}
	if err := tr.buildNets(); err != nil {
		return nil, err
	}
	if tr.est, err = gae.NewEstimator(tr.t, tr.n, cfg.GAE); err != nil {
		return nil, fmt.Errorf("ppo: %w", err)
	}
	tr.alloc()
	if cfg.NormObs {
		tr.obsNorm = newObsNormalizer(tr.n, tr.obsDim, cfg.ObsClip)
		o := vec.Obs()
		for i := 0; i < tr.n; i++ {
			tr.obsNorm.apply(tr.row(tr.cur, i), tr.row(o, i), i)
		}
	}
	if cfg.NormReward {
		tr.rewNorm = newRewardNormalizer(tr.n, cfg.Gamma, cfg.RewardClip)
	}
	return tr, nil
}

func (tr *Trainer) buildNets() error {
	sizes := append(append([]int{tr.obsDim}, tr.cfg.Hidden...), tr.actDim)
	var err error
	if tr.actor, err = nn.NewMLP(sizes, tr.cfg.Activation, nn.Identity); err != nil {
		return fmt.Errorf("ppo: actor: %w", err)
	}
	sizes[len(sizes)-1] = 1
	if tr.critic, err = nn.NewMLP(sizes, tr.cfg.Activation, nn.Identity); err != nil {
		return fmt.Errorf("ppo: critic: %w", err)
	}
	// CleanRL builds the critic first, then the actor; the order of the
	// draws differs from PyTorch's anyway (a different generator).
	rng := seededRand(tr.cfg.Seed, streamInit)
	tr.critic.InitOrthogonal(rng, math.Sqrt2, 1)
	tr.actor.InitOrthogonal(rng, math.Sqrt2, 0.01)
	tr.modules = []nn.Module{tr.critic, tr.actor}
	if !tr.discrete {
		tr.head = nn.NewDiagGaussian(tr.actDim, 0) // actor_logstd = zeros
		tr.modules = append(tr.modules, tr.head)
	}
	for _, m := range tr.modules {
		tr.nParams += len(m.Params())
	}
	tr.opt, err = nn.NewAdam(tr.cfg.LR, tr.modules...)
	if err != nil {
		return fmt.Errorf("ppo: %w", err)
	}
	tr.opt.Eps = tr.cfg.AdamEps
	// Size every buffer now, so that no iteration allocates.
	_, _, tr.chunk = trainerNets(append(append([]int{tr.obsDim}, tr.cfg.Hidden...), tr.actDim), tr.mb)
	tr.actor.Reserve(max(tr.chunk, tr.n))
	tr.critic.Reserve(max(tr.chunk, tr.n))
	return nil
}

func (tr *Trainer) alloc() {
	n, b, od, ad, m := tr.n, tr.batch, tr.obsDim, tr.actDim, tr.chunk // a minibatch is gathered a chunk at a time
	tr.obs = make([]float32, b*od)
	tr.logp = make([]float32, b)
	tr.values = make([]float32, b)
	tr.nextValues = make([]float32, b)
	tr.rewards = make([]float32, b)
	tr.term = make([]bool, b)
	tr.trunc = make([]bool, b)
	tr.rollout = gae.Rollout{T: tr.t, N: n, Rewards: tr.rewards, Values: tr.values,
		NextValues: tr.nextValues, Terminated: tr.term, Truncated: tr.trunc}
	tr.oldValues = tr.values
	if tr.cfg.GAE.InPlace {
		// The returns overwrite the values: keep V(s_t) as ret - adv.
		tr.oldValues = make([]float32, b)
	}
	if tr.discrete {
		tr.actIdx = make([]int, b)
		tr.mbActIdx = make([]int, m)
	} else {
		tr.actVec = make([]float32, b*ad)
		tr.mbActVec = make([]float32, m*ad)
		tr.clipped = make([]float32, n*ad)
	}
	tr.cur = tr.vec.Obs() // the runner's buffer, unless normalized
	if tr.cfg.NormObs {
		tr.cur = make([]float32, n*od)
		tr.finNorm = make([]float32, n*od)
	}
	tr.out = make([]float32, n*ad)
	tr.rew = make([]float32, n)
	tr.fin = make([]float32, n*od)
	tr.finV = make([]float32, n)
	tr.finIdx = make([]int, 0, n)
	tr.bootV = make([]float32, n)

	tr.perm = make([]int, b)
	for i := range tr.perm {
		tr.perm[i] = i
	}
	tr.mbObs = make([]float32, m*od)
	tr.mbOut, tr.mbDOut = make([]float32, m*ad), make([]float32, m*ad)
	f := func() []float32 { return make([]float32, m) }
	tr.mbLogp, tr.mbEnt, tr.mbDLogp = f(), f(), f()
	tr.mbV, tr.mbDV, tr.mbAdv, tr.mbRet, tr.mbOldV, tr.mbOL = f(), f(), f(), f(), f(), f()
	if tr.cfg.EntCoef != 0 {
		// d(-EntCoef * mean H)/dH_i, the same for every sample.
		tr.mbDEnt = f()
		for i := range tr.mbDEnt {
			tr.mbDEnt[i] = float32(-tr.cfg.EntCoef / float64(tr.mb))
		}
	}
}

// row returns row i of a buffer of rows of obsDim values.
func (tr *Trainer) row(buf []float32, i int) []float32 {
	return buf[i*tr.obsDim : (i+1)*tr.obsDim]
}

// SetObserver makes o receive every primitive (and, if o is an
// EpisodeObserver, every finished episode; if a ChunkObserver, the chunks
// of large minibatches) from now on; nil removes it.
func (tr *Trainer) SetObserver(o Observer) {
	tr.observer, tr.episodes, tr.chunks = o, nil, nil
	if eo, ok := o.(EpisodeObserver); ok {
		tr.episodes = eo
	}
	if co, ok := o.(ChunkObserver); ok {
		tr.chunks = co
	}
}

// Config returns the run's configuration.
func (tr *Trainer) Config() Config { return tr.cfg }

// Spec is the environment's spec.
func (tr *Trainer) Spec() *env.Spec { return tr.spec }

// Actor is the policy network (logits, or Gaussian means); Critic the
// value network. Their Shape() gives the MACs a device model charges.
// Do not modify them while the Trainer runs.
func (tr *Trainer) Actor() *nn.Net { return tr.actor }

// Critic is the value network.
func (tr *Trainer) Critic() *nn.Net { return tr.critic }

// Head is the Gaussian head of a continuous policy (nil when discrete).
func (tr *Trainer) Head() *nn.DiagGaussian { return tr.head }

// Params is the number of trainable parameters (actor, critic, log-std):
// the Items of an optimizer event.
func (tr *Trainer) Params() int { return tr.nParams }

// Estimator is the GAE Estimator with the run's numerics.
func (tr *Trainer) Estimator() *gae.Estimator { return tr.est }

// Iteration is the number of iterations done (begun, if one was
// interrupted); Iterations the run's total.
func (tr *Trainer) Iteration() int { return tr.iter }

// Iterations is the number of iterations of the run, TotalSteps/(N*T).
func (tr *Trainer) Iterations() int { return tr.iterations }

// EnvSteps is the number of environment steps taken so far.
func (tr *Trainer) EnvSteps() int64 { return tr.steps }

// Recent is the window of the last 100 raw episode returns.
func (tr *Trainer) Recent() *env.Window { return tr.vec.Recent() }

// Done reports whether every iteration has run.
func (tr *Trainer) Done() bool { return tr.iter >= tr.iterations }

// Run calls Iterate until the run is complete, then returns nil; after
// each iteration it calls each (if not nil), and stops with its error if
// it returns one. It returns ctx's error if ctx is cancelled, and the
// error of a failed iteration.
func (tr *Trainer) Run(ctx context.Context, each func(IterStats) error) error {
	for !tr.Done() {
		st, err := tr.Iterate(ctx)
		if err != nil {
			return err
		}
		if each != nil {
			if err := each(st); err != nil {
				return err
			}
		}
	}
	return nil
}

// emit closes the primitive that began at start: it adds its duration to
// the phase, tells the observer, and returns the start of the next one.
func (tr *Trainer) emit(st *IterStats, ph Phase, items int, start time.Time) time.Time {
	return tr.emitSpan(st, ph, items, start, time.Now())
}

// emitSpan is emit for a phase that ran from start to end.
func (tr *Trainer) emitSpan(st *IterStats, ph Phase, items int, start, end time.Time) time.Time {
	st.Phases[ph] += end.Sub(start)
	e := &tr.ev
	if tr.observer == nil {
		e.ValueOnly = false
		return end
	}
	e.Phase, e.Items, e.Start, e.End = ph, items, start, end
	tr.observer.Observe(*e)
	e.ValueOnly = false
	return time.Now() // the observer's time belongs to no phase
}

// Iterate runs one PPO iteration (004 Algorithm 1 lines 2-8): collect T
// steps of the N copies, compute advantages and returns, and update the
// networks for K epochs of minibatches. It returns the iteration's
// statistics, or ErrDone after the last iteration, or ctx's error if ctx is
// cancelled (checked before every step and minibatch). A cancelled
// iteration is abandoned where it stood: its rollout is discarded, the
// updates it made are kept, the environments keep their state, and the
// next call starts a new iteration. Any other error (a non-finite value or
// gradient) leaves the networks as they were before the failing step.
func (tr *Trainer) Iterate(ctx context.Context) (IterStats, error) {
	if tr.Done() {
		return IterStats{}, ErrDone
	}
	if err := ctx.Err(); err != nil {
		return IterStats{}, err
	}
	tr.iter++
	st := IterStats{Iteration: tr.iter, Samples: tr.batch, ExplainedVariance: math.NaN()}
	st.LR = tr.cfg.LR
	if tr.cfg.AnnealLR {
		frac := 1 - float64(tr.iter-1)/float64(tr.iterations)
		st.LR = frac * tr.cfg.LR
	}
	tr.opt.LR = st.LR
	tr.ev = Event{Iteration: tr.iter, Epoch: -1, Minibatch: -1}

	begin := time.Now()
	now, err := tr.collect(ctx, &st, begin)
	if err == nil {
		now, err = tr.advantages(&st, now)
	}
	if err == nil {
		err = tr.update(ctx, &st, now)
	}
	st.Wall = time.Since(begin)
	st.EnvSteps = tr.steps
	st.RecentReturn = tr.vec.Recent().Mean()
	return st, err
}

// collect runs the rollout: per step, inference on the current
// observations, storing, and the environment step.
func (tr *Trainer) collect(ctx context.Context, st *IterStats, now time.Time) (time.Time, error) {
	done := ctx.Done()
	n := tr.n
	for t := 0; t < tr.t; t++ {
		if done != nil {
			select {
			case <-done:
				return now, ctx.Err()
			default:
			}
		}
		tr.ev.Step = t
		lo, hi := t*n, (t+1)*n

		// Inference: the policy and value of the current observations,
		// written straight into the rollout.
		tr.actor.Forward(tr.out, tr.cur)
		tr.critic.Forward(tr.values[lo:hi], tr.cur)
		if tr.discrete {
			nn.CategoricalSample(tr.actIdx[lo:hi], tr.logp[lo:hi], tr.out, tr.actDim, tr.sampleRng)
		} else {
			tr.head.Sample(tr.actVec[lo*tr.actDim:hi*tr.actDim], tr.logp[lo:hi], tr.out, tr.sampleRng)
		}
		now = tr.emit(st, PhaseInference, n, now)

		// Store: this step's observations, and the outcome of the
		// previous step, whose flags the runner still holds.
		copy(tr.obs[lo*tr.obsDim:hi*tr.obsDim], tr.cur)
		if t > 0 {
			tr.storeOutcome(t - 1)
		}
		now = tr.emit(st, PhaseStore, n, now)

		// Environment: step every copy, then the wrappers.
		if err := tr.stepEnvs(t); err != nil {
			return now, err
		}
		tr.steps += int64(n)
		now = tr.emit(st, PhaseEnv, n, now)
		st.Episodes += tr.reportEpisodes()
		if tr.episodes != nil {
			now = time.Now()
		}

		// Bootstrap values of the episodes the time limit cut.
		if len(tr.finIdx) > 0 {
			tr.ev.ValueOnly = true
			tr.bootstrapFinal(t)
			now = tr.emit(st, PhaseInference, len(tr.finIdx), now)
		}
	}

	// The value of the observation after the last step, then its store.
	tr.ev.Step, tr.ev.ValueOnly = -1, true
	tr.critic.Forward(tr.bootV, tr.cur)
	now = tr.emit(st, PhaseInference, n, now)
	tr.storeOutcome(tr.t - 1)
	now = tr.emit(st, PhaseStore, n, now)
	return now, nil
}

// stepEnvs applies the actions of step t and the wrappers: the action
// clip, observation and reward normalization. It lists in finIdx the
// copies whose episode the time limit cut and that need V(final obs).
func (tr *Trainer) stepEnvs(t int) error {
	n := tr.n
	var err error
	if tr.discrete {
		err = tr.vec.StepDiscrete(tr.actIdx[t*n : (t+1)*n])
	} else {
		d := tr.actDim
		copy(tr.clipped, tr.actVec[t*n*d:(t+1)*n*d])
		for i := 0; i < n; i++ {
			tr.spec.Act.Clip(tr.clipped[i*d : (i+1)*d]) // CleanRL's ClipAction
		}
		err = tr.vec.StepContinuous(tr.clipped)
	}
	if err != nil {
		return fmt.Errorf("ppo: iteration %d, step %d: %w", tr.iter, t, err)
	}
	raw, obs, final := tr.vec.Rewards(), tr.vec.Obs(), tr.vec.FinalObs()
	term, trunc := tr.vec.Terminated(), tr.vec.Truncated()
	tr.finIdx = tr.finIdx[:0]
	for i := 0; i < n; i++ {
		ended := term[i] || trunc[i]
		if tr.obsNorm != nil {
			if ended { // the final observation goes through the wrapper first
				tr.obsNorm.apply(tr.row(tr.finNorm, i), tr.row(final, i), i)
			}
			tr.obsNorm.apply(tr.row(tr.cur, i), tr.row(obs, i), i)
		}
		if tr.rewNorm != nil {
			tr.rew[i] = tr.rewNorm.apply(raw[i], term[i], i)
		} else {
			tr.rew[i] = raw[i]
		}
		if trunc[i] && !term[i] && tr.cfg.BootstrapTruncated {
			tr.finIdx = append(tr.finIdx, i)
		}
	}
	return nil
}

// bootstrapFinal writes V(final observation) of the copies in finIdx as
// the next values of step t.
func (tr *Trainer) bootstrapFinal(t int) {
	src := tr.vec.FinalObs()
	if tr.obsNorm != nil {
		src = tr.finNorm
	}
	k := len(tr.finIdx)
	for j, i := range tr.finIdx {
		copy(tr.row(tr.fin, j), tr.row(src, i))
	}
	tr.critic.Forward(tr.finV[:k], tr.fin[:k*tr.obsDim])
	for j, i := range tr.finIdx {
		tr.nextValues[t*tr.n+i] = tr.finV[j]
	}
}

// storeOutcome writes the rewards and flags of step t, which the runner
// still holds, and the next values of step t: V(s_{t+1}) from the values
// of step t+1 (or the bootstrap values after the last step) where the
// episode goes on, 0 where it terminated, and for a truncation the value
// bootstrapFinal wrote (0 without BootstrapTruncated, which makes it a
// termination).
func (tr *Trainer) storeOutcome(t int) {
	n := tr.n
	lo := t * n
	copy(tr.rewards[lo:lo+n], tr.rew)
	next := tr.bootV
	if t+1 < tr.t {
		next = tr.values[lo+n : lo+2*n]
	}
	term, trunc := tr.vec.Terminated(), tr.vec.Truncated()
	boot := tr.cfg.BootstrapTruncated
	for i := 0; i < n; i++ {
		te, tu := term[i], trunc[i]
		if !boot {
			te, tu = te || tu, false
		}
		tr.term[lo+i], tr.trunc[lo+i] = te, tu
		switch {
		case te:
			tr.nextValues[lo+i] = 0
		case !tu:
			tr.nextValues[lo+i] = next[i]
		}
	}
}

// reportEpisodes counts the episodes that ended on the last step and
// passes them to the episode observer.
func (tr *Trainer) reportEpisodes() int {
	k := 0
	term, trunc := tr.vec.Terminated(), tr.vec.Truncated()
	for i := 0; i < tr.n; i++ {
		if !term[i] && !trunc[i] {
			continue
		}
		k++
		if tr.episodes != nil {
			ret, length := tr.vec.EpisodeReturn(i)
			tr.episodes.ObserveEpisode(Episode{Env: i, Iteration: tr.iter, EnvSteps: tr.steps,
				Return: ret, Length: length, Terminated: term[i], Truncated: trunc[i]})
		}
	}
	return k
}

// advantages runs GAE over the rollout with the run's numerics.
func (tr *Trainer) advantages(st *IterStats, now time.Time) (time.Time, error) {
	tr.ev.Step = -1
	adv, ret, err := tr.est.Estimate(tr.rollout, float32(tr.cfg.Gamma), float32(tr.cfg.Lambda))
	if err != nil {
		return now, fmt.Errorf("ppo: iteration %d: GAE: %w", tr.iter, err)
	}
	tr.adv, tr.ret = adv, ret
	if tr.cfg.GAE.InPlace {
		// Values were overwritten by the returns; what GAE used is ret - adv.
		for i := range tr.oldValues {
			tr.oldValues[i] = ret[i] - adv[i]
		}
	}
	st.GAEScales, st.GAEClipped = tr.est.Scales(), tr.est.Clipped()
	now = tr.emit(st, PhaseGAE, tr.batch, now)
	st.ExplainedVariance = ExplainedVariance(tr.oldValues, tr.ret)
	return now, nil
}
