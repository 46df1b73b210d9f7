package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/rlxdev/rlx/internal/machine"
)

// PPOSchema versions the JSON of PPOReport (docs/ppo.md). v2: the machine
// is the object "host", as in run.json (v1: top-level fields, "num_cpu").
const PPOSchema = "rlx.bench.ppo/v2"

// PPOWorkload is a PPO run that PPO measures: a name for the command line
// and the environment it trains on, with CleanRL's defaults for its action
// space (ppo.Defaults).
type PPOWorkload struct {
	Name string
	Env  string
}

// PPOWorkloads are the workloads PPO knows: CartPole-v1 with ppo.py's
// defaults, and the Hopper workload (observations 11, actions 3, seed 003
// §5.1) with ppo_continuous_action.py's.
var PPOWorkloads = []PPOWorkload{
	{"cartpole", "CartPole-v1"},
	{"hopper", "Hopper-workload"},
}

// PPOConfig says what PPO measures. The zero value measures every workload
// for 10 iterations, without warm-up, the Hopper workload's step cost not
// spent on the host.
type PPOConfig struct {
	// Workloads are names from PPOWorkloads; nil: all of them.
	Workloads []string
	// Iterations are the measured iterations per workload; 0: 10.
	Iterations int
	// Warmup iterations run before the measured ones.
	Warmup int
	// Seed seeds the runs.
	Seed uint64
	// BusyWait makes the workload environments spend their per-step cost
	// (env.StepCost, 85 µs for Hopper) on the host, so that the phase table
	// has a realistic environment share.
	BusyWait bool
	// GAE selects the numerics of 004 §II (zero: float32).
	GAE gae.Options
}

// PPOPhase is one row of the phase table of 004 Table I, per iteration.
type PPOPhase struct {
	Group string `json:"group"` // "trajectory collection", "gae", "network update" or "other"
	Phase string `json:"phase"` // ppo.Phase names, or "other"
	// Seconds is the host time per iteration (mean over the measured
	// iterations), Percent its share of the iteration.
	Seconds float64 `json:"seconds_per_iteration"`
	Percent float64 `json:"percent"`
	// Calls and Items per iteration: primitives executed and the items
	// they processed (steps, observations, elements, samples, parameters).
	Calls float64 `json:"calls_per_iteration"`
	Items float64 `json:"items_per_iteration"`
}

// PPOResult is the measurement of one workload. Rates are on the host
// wall clock.
type PPOResult struct {
	Workload string `json:"workload"`
	Env      string `json:"env"`
	// Synthetic marks a workload environment: its returns mean nothing.
	Synthetic bool `json:"synthetic"`
	// StepCostSeconds is the simulated cost of one environment step
	// (workloads), spent on the host only with BusyWait.
	StepCostSeconds float64 `json:"step_cost_seconds"`
	BusyWait        bool    `json:"busy_wait"`
	// The run: N environments, T steps, minibatches of M, K epochs, the
	// trainable parameters, and the GAE numerics.
	N      int    `json:"n"`
	T      int    `json:"t"`
	M      int    `json:"minibatch"`
	K      int    `json:"epochs"`
	Params int    `json:"params"`
	GAE    string `json:"gae"`
	// Warmup and Iterations; EnvSteps and Seconds of the measured ones.
	Warmup     int     `json:"warmup"`
	Iterations int     `json:"iterations"`
	EnvSteps   int64   `json:"env_steps"`
	Seconds    float64 `json:"seconds"`
	// SPS is environment steps per second over the measured iterations;
	// IPS is 003 §5.3.1's N*T per iteration time, median over the
	// iterations, with the slowest and fastest.
	SPS    float64 `json:"sps"`
	IPS    float64 `json:"ips"`
	MinIPS float64 `json:"min_ips"`
	MaxIPS float64 `json:"max_ips"`
	// Phases is the phase table, Table I's rows in its order.
	Phases []PPOPhase `json:"phases"`
	// RecentReturn is the mean raw return of the last 100 episodes at the
	// end (null before any); meaningless for a synthetic workload.
	RecentReturn *float64 `json:"recent_return"`
	Episodes     int      `json:"episodes"`
}

// PPOReport is the output of PPO: the machine and one result per workload.
type PPOReport struct {
	Schema  string       `json:"schema"`
	Host    machine.Host `json:"host"`
	Results []PPOResult  `json:"results"`
}

// ppoRows is the order and grouping of 004 Table I, plus the optimizer.
var ppoRows = []struct {
	group string
	phase ppo.Phase
}{
	{"trajectory collection", ppo.PhaseInference},
	{"trajectory collection", ppo.PhaseEnv},
	{"trajectory collection", ppo.PhaseStore},
	{"gae", ppo.PhaseGAE},
	{"network update", ppo.PhaseLoss},
	{"network update", ppo.PhaseBackward},
	{"network update", ppo.PhaseOptimizer},
}

// ppoCounter counts the primitives of the measured iterations.
type ppoCounter struct {
	on           bool
	calls, items [ppo.NumPhases]int64
}

func (c *ppoCounter) Observe(e ppo.Event) {
	if c.on {
		c.calls[e.Phase]++
		c.items[e.Phase] += int64(e.Items)
	}
}

// LookupPPOWorkload returns the workload called name, or an error listing
// the known names.
func LookupPPOWorkload(name string) (PPOWorkload, error) {
	for _, w := range PPOWorkloads {
		if w.Name == name {
			return w, nil
		}
	}
	names := make([]string, len(PPOWorkloads))
	for i, w := range PPOWorkloads {
		names[i] = w.Name
	}
	return PPOWorkload{}, fmt.Errorf("bench: unknown PPO workload %q: known are %s", name, strings.Join(names, ", "))
}

// MaxPPOIterations bounds the measured and warm-up iterations.
const MaxPPOIterations = 1 << 20

// PPO trains each workload of cfg for cfg.Warmup then cfg.Iterations PPO
// iterations and reports its throughput (SPS, IPS) and the time of each
// phase per iteration (004 Table I). The run keeps its defaults' length
// (and so its learning-rate schedule) when the iterations fit, and is
// lengthened otherwise. It returns an error for a setting out of range,
// and, if ctx is cancelled, the results finished so far with ctx's error.
func PPO(ctx context.Context, cfg PPOConfig) (PPOReport, error) {
	rep := PPOReport{
		Schema: PPOSchema, Host: machine.Current(), Results: []PPOResult{},
	}
	if cfg.Workloads == nil {
		for _, w := range PPOWorkloads {
			cfg.Workloads = append(cfg.Workloads, w.Name)
		}
	}
	if cfg.Iterations == 0 {
		cfg.Iterations = 10
	}
	if len(cfg.Workloads) == 0 {
		return rep, fmt.Errorf("bench: no PPO workloads: give at least one of cartpole, hopper")
	}
	if cfg.Iterations < 1 || cfg.Iterations > MaxPPOIterations {
		return rep, fmt.Errorf("bench: %d PPO iterations is not allowed: it must be 1..%d", cfg.Iterations, MaxPPOIterations)
	}
	if cfg.Warmup < 0 || cfg.Warmup > MaxPPOIterations {
		return rep, fmt.Errorf("bench: %d warm-up iterations is not allowed: it must be 0..%d", cfg.Warmup, MaxPPOIterations)
	}
	if err := cfg.GAE.Validate(); err != nil {
		return rep, fmt.Errorf("bench: %w", err)
	}
	ws := make([]PPOWorkload, len(cfg.Workloads))
	for i, name := range cfg.Workloads {
		w, err := LookupPPOWorkload(name)
		if err != nil {
			return rep, err
		}
		ws[i] = w
	}
	for _, w := range ws {
		res, err := measurePPO(ctx, cfg, w)
		if err != nil {
			return rep, err
		}
		rep.Results = append(rep.Results, res)
	}
	return rep, nil
}

func measurePPO(ctx context.Context, cfg PPOConfig, w PPOWorkload) (PPOResult, error) {
	pc, err := ppo.Defaults(w.Env)
	if err != nil {
		return PPOResult{}, err
	}
	pc.Seed, pc.GAE = cfg.Seed, cfg.GAE
	pc.EnvOptions = []env.Option{env.BusyWait(cfg.BusyWait)}
	if need := (cfg.Warmup + cfg.Iterations) * pc.BatchSize(); pc.TotalSteps < need {
		pc.TotalSteps = need
	}
	tr, err := ppo.New(pc)
	if err != nil {
		return PPOResult{}, err
	}
	spec := tr.Spec()
	res := PPOResult{
		Workload: w.Name, Env: w.Env, Synthetic: spec.Workload,
		StepCostSeconds: spec.StepCost.Seconds(), BusyWait: cfg.BusyWait && spec.Workload,
		N: pc.NumEnvs, T: pc.NumSteps, M: pc.MinibatchSize(), K: pc.Epochs, Params: tr.Params(),
		GAE: pc.GAE.String(), Warmup: cfg.Warmup, Iterations: cfg.Iterations,
	}
	counter := &ppoCounter{}
	tr.SetObserver(counter)
	for range cfg.Warmup {
		if _, err := tr.Iterate(ctx); err != nil {
			return res, err
		}
	}
	counter.on = true
	startSteps := tr.EnvSteps()
	var phases [ppo.NumPhases]time.Duration
	var wall time.Duration
	ips := make([]float64, 0, cfg.Iterations)
	start := time.Now()
	for range cfg.Iterations {
		st, err := tr.Iterate(ctx)
		if err != nil {
			return res, err
		}
		for p, d := range st.Phases {
			phases[p] += d
		}
		wall += st.Wall
		ips = append(ips, st.IPS())
		res.Episodes += st.Episodes
	}
	elapsed := time.Since(start)
	res.EnvSteps = tr.EnvSteps() - startSteps
	res.Seconds = elapsed.Seconds()
	res.SPS = float64(res.EnvSteps) / res.Seconds
	res.IPS, res.MinIPS, res.MaxIPS = median(ips), slices.Min(ips), slices.Max(ips)
	iters := float64(cfg.Iterations)
	var inPhases time.Duration
	for _, row := range ppoRows {
		d := phases[row.phase]
		inPhases += d
		res.Phases = append(res.Phases, PPOPhase{
			Group: row.group, Phase: row.phase.String(),
			Seconds: d.Seconds() / iters, Percent: 100 * d.Seconds() / wall.Seconds(),
			Calls: float64(counter.calls[row.phase]) / iters, Items: float64(counter.items[row.phase]) / iters,
		})
	}
	other := wall - inPhases
	res.Phases = append(res.Phases, PPOPhase{Group: "other", Phase: "other",
		Seconds: other.Seconds() / iters, Percent: 100 * other.Seconds() / wall.Seconds()})
	if m := tr.Recent().Mean(); !math.IsNaN(m) {
		res.RecentReturn = &m
	}
	return res, nil
}
