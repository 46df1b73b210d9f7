package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rlxdev/rlx/bench"
	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/runtime"
	"github.com/spf13/cobra"
)

// newBenchOffPolicyCmd returns `rlx bench offpolicy`: the learning and
// throughput figures of the off-policy learners on the actor-learner
// runtime (docs/offpolicy.md, docs/runtime.md).
func newBenchOffPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "offpolicy",
		Short: "Train DQN/TD3 with prioritized replay on the actor-learner runtime and measure it",
		Long: `offpolicy runs the off-policy learners (core/dqn, core/ddpg) on the
actor-learner runtime (core/runtime) for real, on the host clock:

  learn    learning runs per seed: returns, env steps/s, gradient steps/s
  relaxed  the relaxed dependency (000 §V-A): D batches sampled ahead
  spo      multi-learner scaling: SPO and data-parallel ApeX beside 001's model
  split    per-core throughput curves and the actor/learner split of 002 Eq. 5

Progress goes to stderr, the table (or JSON with --json) to stdout.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newOffPolicyLearnCmd(), newOffPolicyRelaxedCmd(), newOffPolicySPOCmd(), newOffPolicySplitCmd())
	return cmd
}

func newOffPolicyLearnCmd() *cobra.Command {
	var (
		cfg    bench.LearnConfig
		seeds  string
		pacing string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "learn",
		Short: "Learning runs of DQN, TD3 or DDPG with prioritized replay, one per seed",
		Long: `learn trains with CleanRL's hyperparameters plus prioritized replay (alpha 0.6,
beta 0.4 -> 1, stratified) and reports, per seed, the final rolling mean return,
whether and when it reached the threshold, and env steps/s and gradient
steps/s. dqn runs CartPole-v1 (CleanRL dqn.py: learning starts 10000, train
every 10 steps, batch 128, buffer 10000); td3 and ddpg run Pendulum-v1 (batch
256, one gradient step per env step after --learning-starts). Lockstep runs
are deterministic per seed.`,
		Example: `  rlx bench offpolicy learn --steps 50000 --seeds 1,2,3
  GOMAXPROCS=1 rlx bench offpolicy learn --steps 500000
  rlx bench offpolicy learn --algo td3 --steps 30000 --learning-starts 5000
  rlx bench offpolicy learn --pacing ratio --actors 2 --procs 2 --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := cfg.Algo.CheckOffPolicy(); err != nil {
				return usagef("--algo: %v (rlx bench ppo runs PPO)", err)
			}
			var err error
			if cfg.Seeds, err = parseSeeds(seeds); err != nil {
				return err
			}
			if cfg.Pacing, err = parsePacing(pacing); err != nil {
				return err
			}
			// Every value is checked before any run starts (Validate: the
			// bounds of the runtime that runs it): each is the user's
			// input, not a failure of the run.
			if err := refuseZero(cmd, "depth", "actors"); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			cfg.Progress = learnProgress(cmd.ErrOrStderr())
			rep, err := bench.Learn(cmd.Context(), cfg)
			return writeReport(cmd.OutOrStdout(), asJSON, rep, err, func(w io.Writer) { writeLearnTable(w, rep) })
		},
	}
	f := cmd.Flags()
	f.TextVar(&cfg.Algo, "algo", agents.DQN, "algorithm: dqn, td3 or ddpg")
	f.StringVar(&cfg.Env, "env", "", "environment id (default CartPole-v1 for dqn, Pendulum-v1 otherwise)")
	f.StringVar(&seeds, "seeds", "1,2,3", "seeds, comma-separated")
	f.IntVar(&cfg.TotalSteps, "steps", 0, "environment steps per run (default 50000 for dqn, 30000 otherwise)")
	f.IntVar(&cfg.LearningStarts, "learning-starts", 0, "transitions before the first gradient step (default 10000 for dqn, 5000 otherwise)")
	f.IntVar(&cfg.Depth, "depth", 1, "D: batches sampled ahead of their priority update")
	f.StringVar(&pacing, "pacing", "lockstep", "lockstep (deterministic) or ratio (asynchronous)")
	f.IntVar(&cfg.Actors, "actors", 1, "actors, each with its own environment copy")
	f.IntVar(&cfg.Procs, "procs", 0, "GOMAXPROCS during the runs, at most 4 x the CPUs (0: unchanged)")
	f.IntVar(&cfg.Window, "window", 0, "episodes of the rolling mean (default 100 for dqn, 10 otherwise)")
	f.Float64Var(&cfg.Threshold, "threshold", 0, "return to reach (default 475 for dqn, -250 otherwise)")
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.OffPolicySchema+") instead of a table")
	return cmd
}

func newOffPolicyRelaxedCmd() *cobra.Command {
	var (
		cfg           bench.RelaxedConfig
		seeds, depths string
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "relaxed",
		Short: "DQN + PER on CartPole-v1 with D batches sampled ahead (000 §V-A, §VII-B)",
		Long: `relaxed trains DQN + PER on CartPole-v1 asynchronously (actors paced to the
update interval) for each depth D and seed, and measures the gradient steps/s
of a learner running free on a prefilled buffer with the same D.`,
		Example: `  rlx bench offpolicy relaxed
  rlx bench offpolicy relaxed --depths 1,50,200 --seeds 1,2,3,4,5 --procs 2`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if cfg.Seeds, err = parseSeeds(seeds); err != nil {
				return err
			}
			if cfg.Depths, err = parseInts("--depths", depths, 1); err != nil {
				return err
			}
			if err := refuseZero(cmd, "steps", "free-steps", "repeats", "actors"); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			cfg.Progress = learnProgress(cmd.ErrOrStderr())
			rep, err := bench.Relaxed(cmd.Context(), cfg)
			return writeReport(cmd.OutOrStdout(), asJSON, rep, err, func(w io.Writer) { writeRelaxedTable(w, rep) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&depths, "depths", "1,50", "depths D, comma-separated")
	f.StringVar(&seeds, "seeds", "1,2,3", "seeds, comma-separated")
	f.IntVar(&cfg.Steps, "steps", 50000, "environment steps per learning run")
	f.IntVar(&cfg.FreeSteps, "free-steps", 3000, "gradient steps of the free-running learner measurement")
	f.IntVar(&cfg.Repeats, "repeats", 5, "free-running measurements per D (interleaved); the median is reported")
	f.IntVar(&cfg.Actors, "actors", 1, "actors")
	f.IntVar(&cfg.Procs, "procs", 0, "GOMAXPROCS during the runs, at most 4 x the CPUs (0: unchanged)")
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.OffPolicySchema+") instead of a table")
	return cmd
}

func newOffPolicySPOCmd() *cobra.Command {
	var (
		cfg      bench.ScalingConfig
		learners string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "spo",
		Short: "SPO and data-parallel ApeX against single-learner ApeX, beside 001's model",
		Long: `spo measures DQN learners running free on a prefilled CartPole-v1 buffer:
single-learner ApeX at batch B, SPO with L local-SGD learners at B/L on their own
banks averaging every H steps, and data-parallel ApeX with L local learners.
Each row gives the measured gradient steps/s and scaling factor (speedup / L)
and the model of 001 Eq. 5.1-5.6 with the primitive times measured in the run.`,
		Example: `  rlx bench offpolicy spo
  rlx bench offpolicy spo --learners 1,2 --batch 2048 --h 20 --procs 2`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if cfg.Learners, err = parseInts("--learners", learners, 1); err != nil {
				return err
			}
			if err := refuseZero(cmd, "batch", "h", "grad-steps", "depth"); err != nil {
				return err
			}
			// Each L must divide --batch (SPO gives each learner B/L).
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			rep, err := bench.Scaling(cmd.Context(), cfg)
			return writeReport(cmd.OutOrStdout(), asJSON, rep, err, func(w io.Writer) { writeScalingTable(w, rep) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&learners, "learners", "1,2", "learner counts L, comma-separated")
	def := bench.DefaultScalingConfig()
	f.IntVar(&cfg.Batch, "batch", def.Batch, "B, the batch of single-learner ApeX (SPO learners take B/L)")
	f.IntVar(&cfg.H, "h", def.H, "H, local steps between weight averagings")
	f.IntVar(&cfg.GradSteps, "grad-steps", def.GradSteps, "policy updates per measurement")
	f.IntVar(&cfg.Depth, "depth", def.Depth, "D of each replay manager")
	f.IntVar(&cfg.Procs, "procs", 0, "GOMAXPROCS during the runs, at most 4 x the CPUs (0: unchanged)")
	f.Uint64Var(&cfg.Seed, "seed", def.Seed, "seed")
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.OffPolicySchema+") instead of a table")
	return cmd
}

func newOffPolicySplitCmd() *cobra.Command {
	var (
		cfg    bench.SplitConfig
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "split",
		Short: "Per-core actor and learner throughput and the core split of 002 Eq. 5",
		Long: `split measures f_a(x), the env steps/s of x DQN actors on CartPole-v1, and
f_l(x), the gradient steps/s of x learners, each with GOMAXPROCS = x, for
x = 1..M-1, and solves f_a(x_a) = interval * f_l(x_l), x_a + x_l <= M (002 §V-D).`,
		Example: `  rlx bench offpolicy split
  rlx bench offpolicy split --cores 8 --duration 2s --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := refuseZero(cmd, "duration", "batch", "interval"); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil {
				return usageError{err}
			}
			rep, err := bench.Split(cmd.Context(), cfg)
			return writeReport(cmd.OutOrStdout(), asJSON, rep, err, func(w io.Writer) { writeSplitTable(w, rep) })
		},
	}
	f := cmd.Flags()
	f.IntVar(&cfg.Cores, "cores", 0, "M, the cores to split (0: the CPUs)")
	f.DurationVar(&cfg.Duration, "duration", time.Second, "measurement time per point")
	f.IntVar(&cfg.Batch, "batch", 128, "learner batch")
	f.Float64Var(&cfg.Interval, "interval", 10, "update interval: env steps per gradient step")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed")
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.OffPolicySchema+") instead of a table")
	return cmd
}

// refuseZero refuses a flag of names that the user set to 0. The bench
// configurations read a zero field as "the default", and the flags show
// that default (--depth 1): a 0 typed on the command line would run the
// default without a word. Any other value is the configuration's
// Validate's to check, which names it and the accepted range.
func refuseZero(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		switch v := f.Value.String(); v {
		case "0", "0s":
			return usagef("--%s %s is out of range: it must be > 0 (the default is %s)", name, v, f.DefValue)
		}
	}
	return nil
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, usagef("seed %q is not a non-negative integer: write --seeds 1,2,3", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func parseInts(flag, s string, lo int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < lo {
			return nil, usagef("%s value %q is not allowed: each must be an integer >= %d", flag, f, lo)
		}
		out = append(out, v)
	}
	return out, nil
}

func parsePacing(s string) (runtime.Pacing, error) {
	switch s {
	case "lockstep":
		return runtime.PaceLockstep, nil
	case "ratio":
		return runtime.PaceRatio, nil
	}
	return 0, usagef("--pacing %q is not allowed: use lockstep or ratio", s)
}

// learnProgress prints a run's progress line to w.
func learnProgress(w io.Writer) func(uint64, runtime.Snapshot) {
	return func(seed uint64, s runtime.Snapshot) {
		fmt.Fprintf(w, "seed %d: %d env steps, %d gradient steps, %.0f steps/s, mean return %.1f\n",
			seed, s.EnvSteps, s.GradSteps, s.SPS, s.MeanReturn)
	}
}

// writeReport writes rep as JSON or as a table, and returns err (the
// measurement's) or the write error. On cancellation what was measured is
// still shown.
func writeReport(w io.Writer, asJSON bool, rep any, err error, table func(io.Writer)) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(rep); werr != nil && err == nil {
			err = werr
		}
		return err
	}
	table(w)
	return err
}

func writeLearnTable(w io.Writer, rep bench.LearnReport) {
	fmt.Fprintf(w, "%s + PER on %s: %d steps, learning starts %d, D %d, %s pacing, %d actor(s), GOMAXPROCS %d of %d CPUs\n\n",
		strings.ToUpper(string(rep.Algo)), rep.Env, rep.TotalSteps, rep.LearningStarts, rep.Depth, rep.Pacing, rep.Actors, rep.Host.GOMAXPROCS, rep.Host.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "seed\tfinal mean(%d)\treached %g at\tepisodes\tseconds\tenv steps/s\tgrad steps/s\tstaleness mean/max\t\n", rep.Window, rep.Threshold)
	for _, r := range rep.Results {
		at := "-"
		if r.Reached {
			at = strconv.Itoa(r.ReachStep)
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%s\t%d\t%.1f\t%.0f\t%.0f\t%.2f/%d\t\n", r.Seed, r.FinalMean, at, r.Episodes, r.Seconds, r.SPS, r.GPS, r.MeanStaleness, r.MaxStaleness)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nmedian final %.1f, reached %d of %d, median %.0f env steps/s, %.0f grad steps/s\n",
		rep.MedianFinal, rep.Reached, len(rep.Results), rep.MedianSPS, rep.MedianGPS)
}

func writeRelaxedTable(w io.Writer, rep bench.RelaxedReport) {
	fmt.Fprintf(w, "relaxed dependency, DQN + PER on CartPole-v1, GOMAXPROCS %d of %d CPUs\n\n", rep.Host.GOMAXPROCS, rep.Host.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "D\tfinal mean(100) per seed\tmedian\tgrad steps/s (run)\tstaleness mean/max\tfree learner grad steps/s (median)\t")
	for _, row := range rep.Rows {
		var finals []string
		var stale float64
		var maxStale int64
		for _, r := range row.Learn.Results {
			finals = append(finals, fmt.Sprintf("%.1f", r.FinalMean))
			stale += r.MeanStaleness / float64(len(row.Learn.Results))
			maxStale = max(maxStale, r.MaxStaleness)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.0f\t%.2f/%d\t%.0f\t\n", row.Depth, strings.Join(finals, " "), row.Learn.MedianFinal, row.Learn.MedianGPS, stale, maxStale, row.FreeGPS)
	}
	tw.Flush()
}

func writeScalingTable(w io.Writer, rep bench.ScalingReport) {
	fmt.Fprintf(w, "multi-learner DQN + PER, B = %d, H = %d, D = %d, GOMAXPROCS %d of %d CPUs\n\n", rep.Batch, rep.H, rep.Depth, rep.Host.GOMAXPROCS, rep.Host.CPUs)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tL\tbatch/learner\tGPS\tspeedup\tSF measured\tGPS model\tSF model\tSF printed eq.\t")
	for _, r := range rep.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.2f\t%.2f\t%.0f\t%.2f\t%.2f\t\n", r.Mode, r.L, r.Batch, r.GPS, r.Speedup, r.MeasuredSF, r.ModelGPS, r.ModelSF, r.PrintedSF)
	}
	tw.Flush()
}

func writeSplitTable(w io.Writer, rep bench.SplitReport) {
	fmt.Fprintf(w, "actor/learner core split (002 Eq. 5), DQN on CartPole-v1, M = %d, interval %g\n\n", rep.Cores, rep.Interval)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "cores x\tf_a(x) env steps/s\tf_l(x) grad steps/s\t")
	for i := range rep.ActorCurve {
		fmt.Fprintf(tw, "%d\t%.0f\t%.0f\t\n", i+1, rep.ActorCurve[i], rep.LearnerCurve[i])
	}
	tw.Flush()
	b := rep.Best
	fmt.Fprintf(w, "\nbest: %d actor core(s), %d learner core(s): %.0f env steps/s sustained, imbalance %.2f\n",
		b.ActorCores, b.LearnerCores, b.Throughput, b.Imbalance)
}
