package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/report"
)

// dseRunSchema versions the JSON of `rlx dse --env ID` for a run
// environment outside 000 Table III (docs/dse.md).
const dseRunSchema = "rlx.dse.run/v1"

// dseRunJSON is the exploration of a run's own workload: the run's
// configuration, defaults filled in, and its mapping in run.json's form.
type dseRunJSON struct {
	Schema  string         `json:"schema"`
	Config  engine.Config  `json:"config"`
	Mapping report.Mapping `json:"mapping"`
}

// dseRunRequest is what rlx dse was asked about a run environment.
type dseRunRequest struct {
	env, algo, devices string
	batch              int
	batchSet           bool // --batch was given, not its default
	capacity           int  // --capacity, 0 for the run's default
}

// exploreRunWorkload explores the workload a run of environment req.env
// puts on the platform: its own networks and replay, not a 000 Table III
// learner. The figures are engine.Predict's, so they are the ones the
// explorer's mapping pane and run.json show for the same run before it
// starts. An off-policy algorithm that handles the environment's actions
// is explored when none is named (engine.OffPolicyFor).
func exploreRunWorkload(out io.Writer, req dseRunRequest, asJSON bool) error {
	cfg := engine.Config{Env: req.env, Devices: req.devices}
	var err error
	if req.algo == "" {
		cfg.Algo, err = engine.OffPolicyFor(req.env)
	} else {
		cfg.Algo, err = engine.ParseAlgorithm(req.algo)
	}
	if err != nil {
		return usageError{fmt.Errorf("--algo: %w", err)}
	}
	switch {
	case cfg.Algo.OnPolicy() && req.batchSet:
		return usagef("--batch %d: a PPO run has no learner batch (its minibatch is envs × horizon / minibatches); leave out --batch, or explore the run with rlx --batch --set env=%s --set algo=ppo", req.batch, req.env)
	case cfg.Algo.OnPolicy() && req.capacity != 0:
		return usagef("--capacity %d: a PPO run has no replay buffer (it learns from its rollout); leave out --capacity", req.capacity)
	case cfg.Algo.OnPolicy():
	case req.batch > engine.MaxBatch:
		// The run's own workload is built from the run's networks, as a
		// live run builds it, so a live run's limit applies.
		return usagef("--batch %d is out of range for a run environment: it must be 1..%d (a run's own workload is built as the run builds it; the Table III environments take up to the models' limit)", req.batch, engine.MaxBatch)
	default:
		cfg.Batch, cfg.Capacity = req.batch, req.capacity
	}
	v, err := engine.Predict(cfg)
	if err != nil {
		var fe *engine.FieldError
		if !errors.As(err, &fe) {
			return err
		}
		if fe.Field == "batch" || fe.Field == "capacity" {
			// The run's rule (the batch fits the replay); the flags
			// that set them here.
			err = fmt.Errorf("%w (rlx dse: --batch and --capacity set them)", err)
		}
		return usageError{err}
	}
	cfg = cfg.Defaults()
	if asJSON {
		return writeJSON(out, dseRunJSON{Schema: dseRunSchema, Config: cfg, Mapping: report.NewMapping(v)})
	}
	return printRunWorkload(out, cfg, v)
}

// printRunWorkload writes the mapping view v of a run of cfg as rlx dse's
// text: the primitive-platform table, every mapping, the chosen one and
// its speedups.
func printRunWorkload(out io.Writer, cfg engine.Config, v engine.MappingView) error {
	what := fmt.Sprintf("batch %d, replay capacity %d", cfg.Batch, cfg.Capacity)
	if cfg.Algo.OnPolicy() {
		what = fmt.Sprintf("%d envs × horizon %d, %d epochs × %d minibatches", cfg.Envs, cfg.Horizon, cfg.Epochs, cfg.Minibatches)
	}
	fmt.Fprintf(out, "%s %s, %s on %s (simulated platform clock)\n", cfg.Env, cfg.Algo, what, cfg.Devices)
	fmt.Fprintf(out, "the run's own workload, not a 000 Table III learner: the figures the explorer's mapping pane and run.json give this run before it starts\n\n")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	var table []tableRow
	for _, t := range v.Table {
		table = append(table, tableRow{device: t.Device, sec: [2]float64{t.LearnerSec, t.RMMSec}, tp: [2]float64{t.LearnerTP, t.RMMTP}})
	}
	printTable(tw, v.Columns, table)
	order := "L-R-S"
	if cfg.Algo.OnPolicy() {
		order = "L-G-S"
	}
	var rows []mappingRow
	for _, a := range v.All {
		rows = append(rows, mappingRow{mapping: a.Mapping, rate: a.GPS, bottleneck: a.Bottleneck, watts: a.Watts, perWatt: a.GPSPerWatt})
	}
	printMappings(tw, order, v.Unit, rows, v.Chosen)
	fmt.Fprintf(out, "\nmapping %s → %s: %.1f %s, bound by %s\n", v.Requested, v.Chosen, v.PredictedGPS, v.Unit, v.Bottleneck)
	if v.Note != "" {
		fmt.Fprintf(out, "  %s\n", v.Note)
	}
	printSpeedups(out, v.SecondBest, v.SpeedupOver, v.Worst, v.SpeedupOverWorst)
	if f := v.FPGA; f.DP > 0 || f.S > 0 {
		fmt.Fprintf(out, "FPGA: DP %d learner pipelines · PI %d per pipeline · S %d RMM banks\n", f.DP, f.PI, f.S)
	}
	return nil
}
