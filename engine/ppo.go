package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/sim"
)

// ppoDriver runs PPO (core/ppo) and charges its primitives to the simulated
// platform through sim.PPO.
type ppoDriver struct {
	cfg    Config
	tr     *ppo.Trainer
	clock  *sim.PPO
	view   MappingView
	detail []DeviceView // cycle-level views of the FPGA units the mapping uses
	g      *gate
	ctx    context.Context
	seen   int // observer calls, for throttling the gate

	counters  Counters
	returns   returnWindow
	meaning   bool
	stats     ppo.IterStats
	haveStats bool
	stopErr   error

	// budgetStop cancels the iteration in progress with errBudget when the
	// host-time budget is reached at the gate: an iteration of millions
	// of samples takes far longer than the budget may allow.
	budgetStop context.CancelCauseFunc
}

func newPPODriver(cfg Config) (*ppoDriver, error) {
	tr, err := newPPOTrainer(cfg)
	if err != nil {
		return nil, err
	}
	d := &ppoDriver{cfg: cfg, tr: tr, meaning: !tr.Spec().Workload}
	p, err := LoadPlatform(cfg.Devices)
	if err != nil {
		return nil, err
	}
	if d.clock, err = newPPOClock(p, ppoIteration(cfg, tr), cfg.Mapping); err != nil {
		return nil, err
	}
	d.setViews(cfg.Mapping)
	tr.SetObserver(d)
	return d, nil
}

// newPPOTrainer returns the trainer of the valid configuration cfg, once
// its buffers fit the memory limit (checkFits, before the trainer
// allocates them): what a run trains with and a prediction describes.
func newPPOTrainer(cfg Config) (*ppo.Trainer, error) {
	pc, err := ppoConfig(cfg)
	if err != nil {
		return nil, err
	}
	spec, err := envSpec(cfg.Env)
	if err != nil {
		return nil, err
	}
	if err := checkFits(ppoMemory(pc, spec)); err != nil {
		return nil, err
	}
	return ppo.New(pc)
}

// newPPOClock returns the simulated clock of PPO iterations it on
// platform p, on the mapping requested: what a run starts on and what
// Predict shows, so that the two cannot differ.
func newPPOClock(p *hw.Platform, it sim.PPOIteration, requested Mapping) (*sim.PPO, error) {
	clock, err := sim.NewPPO(p, it)
	if err != nil {
		return nil, err
	}
	if err := remapPPO(clock, requested); err != nil {
		return nil, err
	}
	return clock, nil
}

// remapPPO moves a PPO clock to the mapping requested: auto is sim.PPO.Auto's
// (found once, by sim.NewPPO).
func remapPPO(clock *sim.PPO, requested Mapping) error {
	m, fixed := requested.Fixed()
	if !fixed {
		m = clock.Auto()
	}
	if err := clock.Remap(m); err != nil {
		return mappingError(requested, err)
	}
	return nil
}

// ppoIteration describes the trainer's iterations to the simulated clock:
// its sizes and counts as the trainer runs them, and its networks.
func ppoIteration(cfg Config, tr *ppo.Trainer) sim.PPOIteration {
	pc := tr.Config()
	spec := tr.Spec()
	return sim.PPOIteration{
		Name: cfg.Env + "/ppo", Envs: pc.NumEnvs, Horizon: pc.NumSteps,
		Epochs: pc.Epochs, Minibatches: pc.Minibatches, Actors: cfg.Actors,
		ObsDim: spec.Obs.Dim(), ActDim: spec.Act.Dim(), Params: tr.Params(),
		Actor: agents.HWLayers(tr.Actor().Shape()), Critic: agents.HWLayers(tr.Critic().Shape()),
		EnvStepUS: envStepUS(spec.StepCost, cfg.Env),
	}
}

// ppoConfig translates a run configuration into core/ppo's, starting from
// CleanRL's defaults for the environment's action space.
func ppoConfig(cfg Config) (ppo.Config, error) {
	pc, err := ppo.Defaults(cfg.Env)
	if err != nil {
		return pc, err
	}
	pc.Seed = cfg.Seed
	pc.NumEnvs, pc.NumSteps, pc.Epochs, pc.Minibatches = cfg.Envs, cfg.Horizon, cfg.Epochs, cfg.Minibatches
	if pc.GAE, err = ppo.Experiment(cfg.GAE, 8); err != nil {
		return pc, err
	}
	// The budget in steps, rounded up to whole iterations; without one the
	// run goes on until stopped (and the learning rate does not anneal).
	n := int(pc.BatchSize())
	if cfg.Steps > 0 {
		pc.TotalSteps = int(max(int64(n), (cfg.Steps+int64(n)-1)/int64(n)*int64(n)))
	} else {
		pc.TotalSteps = ppo.MaxTotalSteps / n * n
		pc.AnnealLR = false
	}
	if err := pc.Validate(); err != nil {
		return pc, err
	}
	return pc, nil
}

func (d *ppoDriver) run(ctx context.Context, g *gate) error {
	ictx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	d.g, d.ctx, d.budgetStop = g, ictx, cancel
	for !d.tr.Done() {
		st, err := d.tr.Iterate(ictx)
		if d.stopErr != nil {
			return d.stopErr
		}
		if context.Cause(ictx) == errBudget {
			return nil // the budget ended the run inside an iteration
		}
		if err != nil {
			return err
		}
		d.stats, d.haveStats = st, true
		d.counters.Iterations++
		d.clock.EndIteration()
		if err := g.check(ctx); err != nil {
			return err
		}
		if g.budgetSpent() {
			return nil
		}
	}
	return nil
}

// gateEvery is how many PPO primitives run between gate checks: PPO emits
// one every microsecond or two on small networks.
const gateEvery = 64

// Observe charges one primitive to the simulated platform and counts it.
func (d *ppoDriver) Observe(e ppo.Event) {
	switch e.Phase {
	case ppo.PhaseEnv:
		d.counters.EnvSteps += int64(e.Items)
	case ppo.PhaseGAE:
		d.counters.GAE += int64(e.Items)
	case ppo.PhaseOptimizer:
		d.counters.GradSteps++
	}
	d.charge(e)
	d.seen++
	if d.seen%gateEvery == 0 {
		d.atGate()
	}
}

// ObserveChunk is called between the chunks of a minibatch too large to
// hold at once: a gate, so that the snapshot's host clock moves and a
// pause, a stop or the budget is seen inside the minibatch.
func (d *ppoDriver) ObserveChunk(done, total int) { d.atGate() }

// atGate checks the gate and the host-time budget.
func (d *ppoDriver) atGate() {
	if d.g == nil || d.stopErr != nil {
		return
	}
	if err := d.g.check(d.ctx); err == errStopped {
		d.stopErr = err
	}
	if d.g.budgetSpent() {
		d.budgetStop(errBudget)
	}
}

// ObserveEpisode records a finished episode's raw return.
func (d *ppoDriver) ObserveEpisode(ep ppo.Episode) {
	d.counters.Episodes++
	d.returns.add(ep.Return)
}

// charge charges one primitive the trainer executed to the simulated
// clock.
func (d *ppoDriver) charge(e ppo.Event) {
	switch e.Phase {
	case ppo.PhaseEnv:
		d.clock.EnvSteps(e.Items)
	case ppo.PhaseInference:
		d.clock.Inference(e.Items)
	case ppo.PhaseStore:
		d.clock.Store(e.Items)
	case ppo.PhaseGAE:
		d.clock.GAE(e.Items)
	case ppo.PhaseOptimizer:
		d.clock.Minibatch()
	}
}

// remap selects the devices of the mapping requested, from the next
// primitive on (remapPPO).
func (d *ppoDriver) remap(requested Mapping) error {
	if err := remapPPO(d.clock, requested); err != nil {
		return err
	}
	d.setViews(requested)
	return nil
}

// setViews builds the mapping view and the FPGA units' cycle-level views
// of the clock's mapping, requested as given.
func (d *ppoDriver) setViews(requested Mapping) {
	d.view = ppoMappingView(d.clock, requested)
	d.detail = pipelineViews(d.clock.Pipelines())
}

func (d *ppoDriver) snapshot(s *Snapshot) {
	s.Counters = d.counters
	s.SimElapsed = d.clock.Now()
	s.Learning.Meaningful = d.meaning
	d.returns.fill(&s.Learning)
	if d.haveStats {
		st := d.stats
		s.Learning.Losses = []Loss{
			{"policy", st.PolicyLoss}, {"value", st.ValueLoss}, {"entropy", st.Entropy},
			{"approx_kl", st.ApproxKL}, {"clip_frac", st.ClipFrac}, {"explained_var", st.ExplainedVariance},
		}
	}
	s.Mapping = d.view
	s.Devices = append(unitViews(d.clock.Traces()), d.detail...)
}

// envStepUS is the simulated time of one environment step: a workload
// environment's configured cost, or the measured host time of a
// classic-control or MuJoCo step (the papers give no figure).
func envStepUS(cost time.Duration, id string) float64 {
	if cost > 0 {
		return float64(cost) / float64(time.Microsecond)
	}
	return measureEnvStepUS(id)
}

// ppoMappingView fills the snapshot's mapping pane for PPO: the table holds
// the learner's minibatch updates per second and GAE iterations per second
// (in the RMM column), and every mapping's predicted IPS and the phase
// that bounds it, from the clock's own iteration model.
func ppoMappingView(s *sim.PPO, requested Mapping) MappingView {
	v := MappingView{Requested: requested.String(), Chosen: s.Mapping().String(), Columns: [2]string{"learner", "GAE"}, Unit: "IPS",
		Bottleneck: s.Bound(s.Mapping())}
	samples := float64(s.Iteration().Samples())
	for _, k := range hw.Kinds {
		train, gae := s.UpdateSeconds(k), s.GAESeconds(k)
		row := DeviceThroughput{Device: k.String(), LearnerSec: train, RMMSec: gae}
		if train > 0 {
			row.LearnerTP = 1 / train
		}
		if gae > 0 {
			row.RMMTP = 1 / gae
		}
		v.Table = append(v.Table, row)
	}
	for _, m := range s.Mappings() {
		v.All = append(v.All, MappingGPS{Mapping: m.String(), GPS: samples / s.IterationSeconds(m), Bottleneck: s.Bound(m)})
	}
	v.PredictedGPS = samples / s.IterationSeconds(s.Mapping())
	listMappings(&v, MappingGPS{Mapping: v.Chosen, GPS: v.PredictedGPS, Bottleneck: v.Bottleneck})
	if len(v.All) > 1 {
		for _, m := range v.All {
			if m.Mapping != v.Chosen {
				v.SecondBest, v.SpeedupOver = m.Mapping, dse.Speedup(v.PredictedGPS, m.GPS)
				break
			}
		}
		worst := v.All[len(v.All)-1]
		v.Worst, v.SpeedupOverWorst = worst.Mapping, dse.Speedup(v.PredictedGPS, worst.GPS)
	}
	v.Note = fmt.Sprintf("PPO mapping is learner-GAE-storage; FPGA GAE with %d HEPPO PEs", s.PEs())
	return v
}
