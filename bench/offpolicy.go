package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"time"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/dqn"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/replay"
	"github.com/rlxdev/rlx/core/runtime"
	"github.com/rlxdev/rlx/internal/machine"
)

// OffPolicySchema versions the JSON of the off-policy reports
// (docs/offpolicy.md, docs/runtime.md). v2: the host's CPUs are "cpus"
// (v1: "num_cpu"), as in run.json.
const OffPolicySchema = "rlx.bench.offpolicy/v2"

// MaxProcs is the largest GOMAXPROCS the benchmarks accept: 4 x the CPUs.
// Past the CPUs a P adds no parallelism, only time slicing; a few times
// over is an experiment of its own (oversubscription), far more measures
// nothing. Every P costs memory for its allocation cache and GC work
// (100000 of them held 2 GB), so the bound keeps a typo from exhausting the
// machine.
func MaxProcs() int { return 4 * goruntime.NumCPU() }

// checkProcs validates a Procs field: 0 keeps GOMAXPROCS.
func checkProcs(procs int) error {
	if procs < 0 || procs > MaxProcs() {
		return fmt.Errorf("bench: %d procs is out of range: it must be 1..%d (4 x the %d CPUs), or 0 to keep GOMAXPROCS",
			procs, MaxProcs(), goruntime.NumCPU())
	}
	return nil
}

// withProcs runs f with GOMAXPROCS set to procs (unchanged if procs is 0)
// and restores it.
func withProcs(procs int, f func() error) error {
	if procs > 0 {
		old := goruntime.GOMAXPROCS(procs)
		defer goruntime.GOMAXPROCS(old)
	}
	return f()
}

// LearnConfig says which learning runs Learn makes. Zero values take the
// defaults of the figures in docs/offpolicy.md.
type LearnConfig struct {
	Algo           agents.Algorithm // DQN (default), TD3 or DDPG
	Env            string           // "": CartPole-v1 for dqn, Pendulum-v1 otherwise
	Seeds          []uint64         // nil: 1, 2, 3
	TotalSteps     int              // 0: 50000 for dqn, 30000 otherwise
	LearningStarts int              // 0: 10000 for dqn (CleanRL), 5000 otherwise
	Depth          int              // D; 0: 1
	Pacing         runtime.Pacing
	Actors         int     // 0: 1
	Procs          int     // GOMAXPROCS during the runs; 0: unchanged
	Window         int     // episodes of the rolling mean; 0: 100 for dqn, 10 otherwise
	Threshold      float64 // return to reach; 0: 475 for dqn (CartPole's reward_threshold), -250 otherwise
	// Progress, if not nil, is called about every two seconds of a run.
	Progress func(seed uint64, s runtime.Snapshot)
}

// LearnResult is one seed's run. Rates are on the host wall clock.
type LearnResult struct {
	Seed          uint64  `json:"seed"`
	FinalMean     float64 `json:"final_mean"` // rolling mean of the last Window episodes
	Reached       bool    `json:"reached"`    // the rolling mean reached Threshold
	ReachStep     int     `json:"reach_step"` // at this environment step
	Episodes      int     `json:"episodes"`
	EnvSteps      int64   `json:"env_steps"`
	GradSteps     int64   `json:"grad_steps"`
	Seconds       float64 `json:"seconds"`
	SPS           float64 `json:"sps"`
	GPS           float64 `json:"gps"`
	MeanStaleness float64 `json:"mean_staleness"`
	MaxStaleness  int64   `json:"max_staleness"`
}

// LearnReport is the output of Learn.
type LearnReport struct {
	Schema         string           `json:"schema"`
	Host           machine.Host     `json:"host"`
	Algo           agents.Algorithm `json:"algo"`
	Env            string           `json:"env"`
	TotalSteps     int              `json:"total_steps"`
	LearningStarts int              `json:"learning_starts"`
	Depth          int              `json:"depth"`
	Pacing         string           `json:"pacing"`
	Actors         int              `json:"actors"`
	Window         int              `json:"window"`
	Threshold      float64          `json:"threshold"`
	Results        []LearnResult    `json:"results"`
	MedianFinal    float64          `json:"median_final"`
	Reached        int              `json:"reached"` // seeds that reached Threshold
	MedianSPS      float64          `json:"median_sps"`
	MedianGPS      float64          `json:"median_gps"`
}

func (c *LearnConfig) defaults() error {
	if c.Algo == "" {
		c.Algo = agents.DQN
	}
	if err := c.Algo.CheckOffPolicy(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	isDQN := c.Algo == agents.DQN
	pick := func(v *int, d, o int) {
		if *v == 0 {
			*v = o
			if isDQN {
				*v = d
			}
		}
	}
	if c.Env == "" {
		c.Env = "Pendulum-v1"
		if isDQN {
			c.Env = "CartPole-v1"
		}
	}
	if c.Seeds == nil {
		c.Seeds = []uint64{1, 2, 3}
	}
	pick(&c.TotalSteps, 50000, 30000)
	pick(&c.LearningStarts, 10000, 5000)
	pick(&c.Window, 100, 10)
	if c.Threshold == 0 {
		c.Threshold = -250
		if isDQN {
			c.Threshold = 475
		}
	}
	if c.Depth == 0 {
		c.Depth = 1
	}
	if c.Actors == 0 {
		c.Actors = 1
	}
	// Zero takes the default above; what is left out of range is checked
	// here where the run would read it differently (a negative
	// LearningStarts asks agents for its recipe's), and by the runtime
	// below for the rest.
	switch {
	case len(c.Seeds) == 0:
		return errors.New("bench: no seeds: give at least one")
	case c.TotalSteps < 1 || c.TotalSteps > runtime.MaxSteps:
		return fmt.Errorf("bench: %d total steps is out of range: it must be 1..%d", c.TotalSteps, int64(runtime.MaxSteps))
	case c.LearningStarts < 0:
		return fmt.Errorf("bench: learning starts %d is out of range: it must be 0..%d", c.LearningStarts, int64(runtime.MaxSteps))
	case math.IsNaN(c.Threshold) || math.IsInf(c.Threshold, 0):
		return fmt.Errorf("bench: threshold %g is out of range: it must be a finite number", c.Threshold)
	}
	if err := checkProcs(c.Procs); err != nil {
		return err
	}
	// The environment and whether the algorithm handles its actions are
	// known without building the agent (env.SpecOf caches one copy).
	spec, err := env.SpecOf(c.Env)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if why := c.Algo.ActionsFit(c.Env, spec.Act.Discrete()); why != "" {
		return fmt.Errorf("bench: %s", why)
	}
	// The runtime's own bounds (depth, actors, the return window, the
	// step counts), on the configuration the first run would start: a
	// window of 2,000,000 episodes passed here and failed in the run,
	// which reported nothing.
	_, rc, err := offPolicyRun(c, c.Seeds[0])
	if err != nil {
		return err
	}
	return rc.Check()
}

// Validate returns the error Learn would return for c before running
// anything, with c's zero fields taking their defaults: a value out of
// range, an unknown environment or one whose actions the algorithm does
// not handle. Every such error is the caller's input, never a failure of
// the run.
func (c LearnConfig) Validate() error { return c.defaults() }

// offPolicyRun builds the agent and runtime configuration of one run: the
// CleanRL defaults of the algorithm with prioritized replay (agents'
// recipe, as the live run's), with this benchmark's settings.
func offPolicyRun(c *LearnConfig, seed uint64) (runtime.Agent, runtime.Config, error) {
	ag, err := agents.OffPolicy(c.Algo, c.Env, c.TotalSteps, c.LearningStarts, seed)
	if err != nil {
		return nil, runtime.Config{}, fmt.Errorf("bench: %w", err)
	}
	rc := ag.Runtime
	rc.Depth = c.Depth
	rc.Pacing = c.Pacing
	rc.Actors = c.Actors
	rc.ReturnWindow = c.Window
	return ag.Agent, rc, nil
}

// Learn trains the configured algorithm once per seed (CleanRL's
// hyperparameters with prioritized replay, docs/offpolicy.md) and reports
// each run's returns and throughput. If ctx is cancelled it returns the
// runs finished so far with ctx's error.
func Learn(ctx context.Context, cfg LearnConfig) (LearnReport, error) {
	err := cfg.defaults()
	rep := LearnReport{Schema: OffPolicySchema, Algo: cfg.Algo, Env: cfg.Env, TotalSteps: cfg.TotalSteps,
		LearningStarts: cfg.LearningStarts, Depth: cfg.Depth, Pacing: cfg.Pacing.String(), Actors: cfg.Actors,
		Window: cfg.Window, Threshold: cfg.Threshold, Results: []LearnResult{}}
	if err != nil {
		return rep, err
	}
	err = withProcs(cfg.Procs, func() error {
		rep.Host = machine.Current()
		for _, seed := range cfg.Seeds {
			res, err := learnOnce(ctx, &cfg, seed)
			if err != nil {
				return err
			}
			rep.Results = append(rep.Results, res)
		}
		return nil
	})
	summarize(&rep)
	return rep, err
}

func learnOnce(ctx context.Context, cfg *LearnConfig, seed uint64) (LearnResult, error) {
	agent, rc, err := offPolicyRun(cfg, seed)
	if err != nil {
		return LearnResult{}, err
	}
	r, err := runtime.New(rc, agent)
	if err != nil {
		return LearnResult{}, err
	}
	if err := r.Start(ctx); err != nil {
		return LearnResult{}, err
	}
	if cfg.Progress != nil {
		tick := time.NewTicker(2 * time.Second)
	loop:
		for {
			select {
			case <-r.Done():
				break loop
			case <-tick.C:
				cfg.Progress(seed, r.Snapshot())
			}
		}
		tick.Stop()
	}
	if err := r.Wait(); err != nil {
		return LearnResult{}, fmt.Errorf("bench: seed %d: %w", seed, err)
	}
	s := r.Snapshot()
	eps := r.Episodes()
	res := LearnResult{Seed: seed, FinalMean: runtime.RollingMean(eps, cfg.Window), Episodes: len(eps),
		EnvSteps: s.EnvSteps, GradSteps: s.GradSteps, Seconds: s.Elapsed.Seconds(), SPS: s.SPS, GPS: s.GPS,
		MeanStaleness: s.MeanStaleness, MaxStaleness: s.MaxStaleness}
	res.ReachStep, res.Reached = runtime.FirstReach(eps, cfg.Window, cfg.Threshold)
	return res, nil
}

func summarize(rep *LearnReport) {
	var finals, sps, gps []float64
	for _, r := range rep.Results {
		finals = append(finals, r.FinalMean)
		sps = append(sps, r.SPS)
		gps = append(gps, r.GPS)
		if r.Reached {
			rep.Reached++
		}
	}
	rep.MedianFinal, rep.MedianSPS, rep.MedianGPS = median(finals), median(sps), median(gps)
}

// RelaxedConfig says what Relaxed measures: DQN + PER on CartPole-v1 with
// the sampling D batches ahead (000 §V-A, §VII-B), asynchronous.
type RelaxedConfig struct {
	Depths    []int    // nil: 1 and 50
	Seeds     []uint64 // nil: 1, 2, 3
	Steps     int      // environment steps per learning run; 0: 50000
	FreeSteps int      // gradient steps of the free-running learner measurement; 0: 3000
	Repeats   int      // free-running measurements per D, interleaved across D; the median is reported; 0: 5
	Actors    int      // 0: 1
	Procs     int      // GOMAXPROCS; 0: unchanged
	Progress  func(seed uint64, s runtime.Snapshot)
}

// RelaxedRow is one depth D: the learning runs (PaceRatio, asynchronous
// units held to the update interval) and the gradient steps per second of
// a learner running free on a prefilled buffer (median of the repeats),
// where sampling ahead lets the replay manager overlap the learner.
type RelaxedRow struct {
	Depth             int         `json:"depth"`
	Learn             LearnReport `json:"learn"`
	FreeGPS           float64     `json:"free_gps"` // median of the repeats
	FreeMeanStaleness float64     `json:"free_mean_staleness"`
}

// RelaxedReport is the output of Relaxed.
type RelaxedReport struct {
	Schema string       `json:"schema"`
	Host   machine.Host `json:"host"`
	Rows   []RelaxedRow `json:"rows"`
}

// Relaxed compares depths D of the data-dependency relaxed training loop
// on DQN + PER CartPole-v1: final returns per seed, learner GPS and
// staleness.
func Relaxed(ctx context.Context, cfg RelaxedConfig) (RelaxedReport, error) {
	rep := RelaxedReport{Schema: OffPolicySchema, Rows: []RelaxedRow{}}
	if err := cfg.defaults(); err != nil {
		return rep, err
	}
	err := withProcs(cfg.Procs, func() error {
		rep.Host = machine.Current()
		for _, d := range cfg.Depths {
			lr, err := Learn(ctx, cfg.learnConfig(d))
			rep.Rows = append(rep.Rows, RelaxedRow{Depth: d, Learn: lr})
			if err != nil {
				return err
			}
		}
		// Interleave the depths so that load from elsewhere hits all alike.
		gps := make([][]float64, len(cfg.Depths))
		for range cfg.Repeats {
			for i, d := range cfg.Depths {
				g, stale, err := freeLearner(ctx, d, cfg.FreeSteps)
				if err != nil {
					return err
				}
				gps[i] = append(gps[i], g)
				rep.Rows[i].FreeMeanStaleness = stale
			}
		}
		for i := range rep.Rows {
			rep.Rows[i].FreeGPS = median(gps[i])
		}
		return nil
	})
	return rep, err
}

// defaults fills the zero fields of c and validates it.
func (c *RelaxedConfig) defaults() error {
	if c.Depths == nil {
		c.Depths = []int{1, 50}
	}
	if c.Steps == 0 {
		c.Steps = 50000
	}
	if c.FreeSteps == 0 {
		c.FreeSteps = 3000
	}
	if c.Repeats == 0 {
		c.Repeats = 5
	}
	if c.FreeSteps < 1 || c.Repeats < 1 {
		return fmt.Errorf("bench: %d free gradient steps and %d repeats: both must be >= 1", c.FreeSteps, c.Repeats)
	}
	if len(c.Depths) == 0 {
		return errors.New("bench: no depths: give at least one")
	}
	if err := checkProcs(c.Procs); err != nil {
		return err
	}
	// Each depth's learning runs are a Learn of their own: check them
	// all before the first one starts.
	for _, d := range c.Depths {
		if err := c.learnConfig(d).Validate(); err != nil {
			return err
		}
	}
	return nil
}

// learnConfig is the learning run of Relaxed at depth d.
func (c *RelaxedConfig) learnConfig(d int) LearnConfig {
	return LearnConfig{Algo: agents.DQN, Seeds: c.Seeds, TotalSteps: c.Steps, Depth: d,
		Pacing: runtime.PaceRatio, Actors: c.Actors, Progress: c.Progress}
}

// Validate returns the error Relaxed would return for c before running
// anything, with c's zero fields taking their defaults.
func (c RelaxedConfig) Validate() error { return c.defaults() }

// freeLearner measures the GPS of a DQN learner with depth d on a buffer
// prefilled with 10000 random CartPole transitions, no actors.
func freeLearner(ctx context.Context, d, steps int) (float64, float64, error) {
	lc := LearnConfig{Algo: agents.DQN, TotalSteps: 50000}
	if err := lc.defaults(); err != nil {
		return 0, 0, err
	}
	agent, rc, err := offPolicyRun(&lc, 1)
	if err != nil {
		return 0, 0, err
	}
	rc.Pacing, rc.Actors, rc.TotalSteps, rc.Prefill = runtime.PaceFree, 0, 0, rc.Replay.Capacity
	rc.LearningStarts, rc.GradSteps, rc.Depth = 1, steps, d
	r, err := runtime.New(rc, agent)
	if err != nil {
		return 0, 0, err
	}
	if err := r.Run(ctx); err != nil {
		return 0, 0, err
	}
	s := r.Snapshot()
	return s.GPS, s.MeanStaleness, nil
}

// ScalingConfig says what Scaling measures: multi-learner DQN + PER on
// CartPole-v1 against single-learner ApeX, on learners running free over a
// prefilled buffer (001 §5.1.3-§5.2.3).
type ScalingConfig struct {
	Learners  []int  // L values; nil: 1, 2
	Batch     int    // B of single-learner ApeX; SPO learners take B/L; 0: 1024
	H         int    // SPO local steps between averagings; 0: runtime.DefaultAverageEvery
	GradSteps int    // policy updates per measurement; 0: 1000
	Depth     int    // D; 0: 1, the strict loop the models assume
	Hidden    []int  // Q network hidden sizes; nil: dqn.py's 120, 84
	Procs     int    // GOMAXPROCS; 0: unchanged
	Seed      uint64 // 0: 1
}

// DefaultScalingConfig is the measurement rlx bench offpolicy spo makes by
// default; Scaling fills the zero fields of its config from it.
func DefaultScalingConfig() ScalingConfig {
	return ScalingConfig{Learners: []int{1, 2}, Batch: 1024, H: runtime.DefaultAverageEvery, GradSteps: 1000, Depth: 1, Seed: 1}
}

// ScalingRow is one measured configuration, with the model's prediction
// from the primitive times measured in it (docs/runtime.md).
type ScalingRow struct {
	Mode  string `json:"mode"` // "apex", "spo" or "data-parallel"
	L     int    `json:"l"`
	Batch int    `json:"batch"` // per learner
	// GPS is policy updates per second (each of B samples); Speedup its
	// ratio to single-learner ApeX; MeasuredSF = Speedup / L.
	GPS        float64 `json:"gps"`
	Speedup    float64 `json:"speedup"`
	MeasuredSF float64 `json:"measured_sf"`
	// ModelGPS = 1 / the model's time per policy update (Eq. 5.2, 5.1 or
	// 5.5); ModelSF the model's scaling factor; PrintedSF Eq. 5.3 or 5.6
	// as printed.
	ModelGPS  float64                `json:"model_gps"`
	ModelSF   float64                `json:"model_sf"`
	PrintedSF float64                `json:"printed_sf"`
	Times     runtime.PrimitiveTimes `json:"times"`
}

// ScalingReport is the output of Scaling.
type ScalingReport struct {
	Schema string       `json:"schema"`
	Host   machine.Host `json:"host"`
	Batch  int          `json:"batch"`
	H      int          `json:"h"`
	Depth  int          `json:"depth"`
	Rows   []ScalingRow `json:"rows"`
}

// Scaling measures single-learner ApeX at batch B, SPO with L local-SGD
// learners at B/L each on their own banks, and data-parallel ApeX with L
// local learners, each as GPS beside the scaling-factor models of 001
// Eq. 5.1-5.6 evaluated with the primitive times measured in the same
// runs (an Observer on the runtime). On the host, weights and sub-batches
// are shared memory: T^Weight_Trans for SPO is counted inside the weight
// averaging; for data-parallel ApeX the sub-batch hand-off and the local
// learners' weight copies are measured as transfers.
func Scaling(ctx context.Context, cfg ScalingConfig) (ScalingReport, error) {
	verr := cfg.defaults()
	rep := ScalingReport{Schema: OffPolicySchema, Batch: cfg.Batch, H: cfg.H, Depth: cfg.Depth, Rows: []ScalingRow{}}
	if verr != nil {
		return rep, verr
	}
	err := withProcs(cfg.Procs, func() error {
		rep.Host = machine.Current()
		apex, err := scalingRun(ctx, cfg, runtime.ModeSingle, 1)
		if err != nil {
			return err
		}
		rep.Rows = append(rep.Rows, apex)
		for _, l := range cfg.Learners {
			for _, mode := range []runtime.Mode{runtime.ModeSPO, runtime.ModeDataParallel} {
				if mode == runtime.ModeDataParallel && l == 1 {
					continue // the same as ApeX
				}
				row, err := scalingRun(ctx, cfg, mode, l)
				if err != nil {
					return err
				}
				t := &row.Times
				t.SampleB, t.PriorityB = apex.Times.SampleB, apex.Times.PriorityB
				t.ForwardB, t.BackwardB = apex.Times.ForwardB, apex.Times.BackwardB
				row.Speedup = row.GPS / apex.GPS
				row.MeasuredSF = row.Speedup / float64(l)
				if mode == runtime.ModeSPO {
					row.ModelGPS = 1 / t.SPO()
					row.ModelSF, row.PrintedSF = t.ScalingSPO(), t.Eq56()
				} else {
					row.ModelGPS = 1 / t.DataParallelApeX()
					row.ModelSF, row.PrintedSF = t.ScalingDataParallel(), t.Eq53()
				}
				rep.Rows = append(rep.Rows, row)
			}
		}
		return nil
	})
	return rep, err
}

// defaults fills the zero fields of c from DefaultScalingConfig and
// validates it.
func (c *ScalingConfig) defaults() error {
	def := DefaultScalingConfig()
	if c.Learners == nil {
		c.Learners = def.Learners
	}
	if c.Batch == 0 {
		c.Batch = def.Batch
	}
	if c.H == 0 {
		c.H = def.H
	}
	if c.GradSteps == 0 {
		c.GradSteps = def.GradSteps
	}
	if c.Depth == 0 {
		c.Depth = def.Depth
	}
	if c.Seed == 0 {
		c.Seed = def.Seed
	}
	if len(c.Learners) == 0 {
		return errors.New("bench: no learner counts: give at least one")
	}
	if err := checkProcs(c.Procs); err != nil {
		return err
	}
	// ApeX first, then each L as Scaling runs them: the runtime checks
	// the batch, H, the gradient steps and D of each configuration.
	if err := c.runtimeConfig(runtime.ModeSingle, 1).Check(); err != nil {
		return err
	}
	for _, l := range c.Learners {
		// SPO gives each of the L learners B/L of the batch: L must divide it.
		if l < 1 || l > runtime.MaxLearners || c.Batch%l != 0 {
			return fmt.Errorf("bench: %d learners is not allowed: it must be 1..%d and divide the batch %d", l, runtime.MaxLearners, c.Batch)
		}
		for _, mode := range []runtime.Mode{runtime.ModeSPO, runtime.ModeDataParallel} {
			if err := c.runtimeConfig(mode, l).Check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalingEnv is the environment Scaling measures: DQN's, CartPole-v1.
const scalingEnv = "CartPole-v1"

// runtimeConfig is the runtime configuration of Scaling's measurement of
// mode with l learners: dqn.py's with learners running free over a
// prefilled buffer, and the agent's dimensions left to runtime.New.
func (c *ScalingConfig) runtimeConfig(mode runtime.Mode, l int) runtime.Config {
	_, rc := dqn.CleanRL(50000)
	rc.Env = scalingEnv
	rc.Mode, rc.Learners, rc.AverageEvery, rc.Seed = mode, l, c.H, c.Seed
	rc.Pacing, rc.Actors, rc.TotalSteps, rc.Prefill = runtime.PaceFree, 0, 0, rc.Replay.Capacity
	rc.LearningStarts, rc.GradSteps, rc.Depth = 1, c.GradSteps, c.Depth
	rc.BatchSize = c.Batch
	if mode == runtime.ModeSPO {
		rc.BatchSize = c.Batch / l
	}
	return rc
}

// Validate returns the error Scaling would return for c before running
// anything, with c's zero fields taking their defaults.
func (c ScalingConfig) Validate() error { return c.defaults() }

// scalingRun measures one configuration with an observer collecting the
// primitive times.
func scalingRun(ctx context.Context, cfg ScalingConfig, mode runtime.Mode, l int) (ScalingRow, error) {
	e, err := env.Make(scalingEnv, rand.New(rand.NewPCG(cfg.Seed, 0)))
	if err != nil {
		return ScalingRow{}, err
	}
	dc, _ := dqn.CleanRL(50000)
	if cfg.Hidden != nil {
		dc.Hidden = cfg.Hidden
	}
	agent, err := dqn.New(e.Spec(), dc, cfg.Seed)
	if err != nil {
		return ScalingRow{}, err
	}
	prof := &runtime.Profile{}
	rc := cfg.runtimeConfig(mode, l)
	rc.Observer = prof
	r, err := runtime.New(rc, agent)
	if err != nil {
		return ScalingRow{}, err
	}
	if err := r.Run(ctx); err != nil {
		return ScalingRow{}, err
	}
	s := r.Snapshot()
	sec := func(role runtime.Role, k runtime.Kind) float64 { return prof.Mean(role, k).Seconds() }
	row := ScalingRow{Mode: "apex", L: l, Batch: rc.BatchSize, GPS: s.GPS}
	t := runtime.PrimitiveTimes{L: l, H: cfg.H}
	t.Update = sec(runtime.RoleLearner, runtime.KindOptimizer)
	switch mode {
	case runtime.ModeSingle:
		t.SampleB, t.PriorityB = sec(runtime.RoleReplay, runtime.KindSample), sec(runtime.RoleReplay, runtime.KindPriorityUpdate)
		t.ForwardB, t.BackwardB = sec(runtime.RoleLearner, runtime.KindForward), sec(runtime.RoleLearner, runtime.KindBackward)
		t.Sampleb, t.Priorityb, t.Forwardb, t.Backwardb = t.SampleB, t.PriorityB, t.ForwardB, t.BackwardB
		row.Speedup, row.MeasuredSF, row.ModelSF, row.PrintedSF = 1, 1, 1, 1
		row.ModelGPS = 1 / t.ApeX()
	case runtime.ModeSPO:
		row.Mode = "spo"
		t.Sampleb, t.Priorityb = sec(runtime.RoleReplay, runtime.KindSample), sec(runtime.RoleReplay, runtime.KindPriorityUpdate)
		t.Forwardb, t.Backwardb = sec(runtime.RoleLearner, runtime.KindForward), sec(runtime.RoleLearner, runtime.KindBackward)
		t.Average = sec(runtime.RoleServer, runtime.KindWeightAverage)
	case runtime.ModeDataParallel:
		row.Mode = "data-parallel"
		t.Update = sec(runtime.RoleLearner, runtime.KindOptimizer)
		t.Forwardb, t.Backwardb = sec(runtime.RoleWorker, runtime.KindForward), sec(runtime.RoleWorker, runtime.KindBackward)
		t.SubBatchTrans = sec(runtime.RoleLearner, runtime.KindTransfer)
		t.WeightTrans = sec(runtime.RoleWorker, runtime.KindTransfer)
		t.Average = sec(runtime.RoleLearner, runtime.KindGradAverage)
	}
	row.Times = t
	return row, nil
}

// SplitConfig says what Split measures: the per-core throughput curves of
// DQN actors and learners on CartPole-v1 (002 §V-D).
type SplitConfig struct {
	Cores    int           // M, 2..runtime.MaxLearners+1; 0: the number of CPUs (at least 2)
	Duration time.Duration // per point; 0: 1 s
	Batch    int           // learner batch; 0: 128
	Interval float64       // environment steps per gradient step; 0: 10
	Seed     uint64
}

// SplitReport is the output of Split: f_a(x) and f_l(x) for x = 1..M-1, and
// the split of 002 Eq. 5.
type SplitReport struct {
	Schema       string          `json:"schema"`
	Host         machine.Host    `json:"host"`
	Cores        int             `json:"cores"`
	Interval     float64         `json:"interval"`
	ActorCurve   []float64       `json:"actor_curve"`   // environment steps/s on x = 1.. cores
	LearnerCurve []float64       `json:"learner_curve"` // gradient steps/s on x = 1.. cores
	Best         runtime.Split   `json:"best"`
	Candidates   []runtime.Split `json:"candidates"`
}

// Split measures the curves with GOMAXPROCS = x for each point and solves
// 002 Eq. 5 for M cores.
func Split(ctx context.Context, cfg SplitConfig) (SplitReport, error) {
	verr := cfg.defaults()
	rep := SplitReport{Schema: OffPolicySchema, Host: machine.Current(), Cores: cfg.Cores, Interval: cfg.Interval}
	if verr != nil {
		return rep, verr
	}
	lc := LearnConfig{Algo: agents.DQN}
	if err := lc.defaults(); err != nil {
		return rep, err
	}
	agent, rc, err := offPolicyRun(&lc, cfg.Seed)
	if err != nil {
		return rep, err
	}
	for x := 1; x < cfg.Cores; x++ {
		var fa, fl float64
		err := withProcs(x, func() error {
			var err error
			if fa, err = runtime.MeasureActors(ctx, lc.Env, agent, x, cfg.Duration, cfg.Seed); err != nil {
				return err
			}
			fl, err = runtime.MeasureLearners(ctx, lc.Env, agent, rc.Replay, x, cfg.Batch, cfg.Duration, cfg.Seed)
			return err
		})
		if err != nil {
			return rep, err
		}
		rep.ActorCurve = append(rep.ActorCurve, fa)
		rep.LearnerCurve = append(rep.LearnerCurve, fl)
	}
	rep.Best, rep.Candidates, err = runtime.CoreSplit(rep.ActorCurve, rep.LearnerCurve, cfg.Interval, cfg.Cores)
	return rep, err
}

// defaults fills the zero fields of c and validates it. The interval is
// checked here, not only where Eq. 5 is solved, so that a bad one fails
// before the curves are measured.
func (c *SplitConfig) defaults() error {
	// The curves run x = 1..M-1 actors and as many learners: M-1 is
	// bounded by both runtime limits, and the batch by the replay's.
	maxCores := min(runtime.MaxActors, runtime.MaxLearners) + 1
	if c.Cores == 0 {
		c.Cores = min(max(2, goruntime.NumCPU()), maxCores)
	}
	if c.Duration == 0 {
		c.Duration = time.Second
	}
	if c.Batch == 0 {
		c.Batch = 128
	}
	if c.Interval == 0 {
		c.Interval = 10
	}
	switch {
	case c.Cores < 2 || c.Cores > maxCores:
		return fmt.Errorf("bench: %d cores cannot be split: M must be 2..%d", c.Cores, maxCores)
	case c.Duration < 0:
		return fmt.Errorf("bench: duration %v is out of range: it must be > 0", c.Duration)
	case c.Batch < 1 || c.Batch > replay.MaxBatch:
		return fmt.Errorf("bench: batch %d is out of range: it must be 1..%d", c.Batch, replay.MaxBatch)
	case math.IsNaN(c.Interval) || math.IsInf(c.Interval, 0) || c.Interval <= 0:
		return fmt.Errorf("bench: update interval %g is out of range: it must be finite and > 0", c.Interval)
	}
	return nil
}

// Validate returns the error Split would return for c before measuring
// anything, with c's zero fields taking their defaults.
func (c SplitConfig) Validate() error { return c.defaults() }
