package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlxdev/rlx/bench"
	"github.com/rlxdev/rlx/core/gae"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/spf13/cobra"
)

// newBenchPPOCmd returns `rlx bench ppo`: SPS, IPS and the phase table of
// seed 004 Table I for PPO iterations on this machine (docs/ppo.md).
func newBenchPPOCmd() *cobra.Command {
	var (
		asJSON     bool
		workloads  []string
		iterations int
		warmup     int
		seed       uint64
		busyWait   bool
		experiment int
		bits       int
	)
	cmd := &cobra.Command{
		Use:   "ppo",
		Short: "Measure PPO iterations: SPS, IPS and the time of each phase",
		Long: `ppo trains each workload with core/ppo for --warmup, then --iterations PPO
iterations, on the host wall clock, and prints environment steps per second
(SPS), IPS (N*T samples per iteration time, seed 003 §5.3.1) and the time of
each phase per iteration in the rows of seed 004 Table I: DNN inference,
environment run, storing trajectories, GAE, loss calculation,
backpropagation, and the optimizer step.

Workloads: cartpole is CartPole-v1 with CleanRL ppo.py's defaults (4 envs,
128 steps, 4 minibatches, 4 epochs); hopper is the Hopper workload
environment (observations 11, actions 3) with ppo_continuous_action.py's
(1 env, 2048 steps, 32 minibatches, 10 epochs). The Hopper workload is
synthetic: its returns mean nothing. With --busy-wait (the default) it
spends its 85 µs step cost on the host, as a MuJoCo step would.

--experiment selects the GAE numerics of seed 004 §V-C (1 float32 baseline,
... 5 HEPPO), quantized to --bits where the experiment quantizes.
The full CartPole run of the issue is --workloads cartpole --warmup 0
--iterations 976 (500k steps); run it with GOMAXPROCS=1 for one core.`,
		Example: `  rlx bench ppo
  rlx bench ppo --workloads cartpole --iterations 50 --json
  GOMAXPROCS=1 rlx bench ppo --workloads cartpole --warmup 0 --iterations 976
  rlx bench ppo --workloads hopper --experiment 5 --bits 8`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(workloads) == 0 {
				return usagef("--workloads is empty: give at least one of %s", ppoWorkloadNames())
			}
			for i, w := range workloads {
				workloads[i] = strings.ToLower(strings.TrimSpace(w))
				if _, err := bench.LookupPPOWorkload(workloads[i]); err != nil {
					return usagef("workload %q is not known: use %s", w, ppoWorkloadNames())
				}
			}
			if iterations < 1 || iterations > bench.MaxPPOIterations {
				return usagef("--iterations %d is not allowed: it must be 1..%d", iterations, bench.MaxPPOIterations)
			}
			if warmup < 0 || warmup > bench.MaxPPOIterations {
				return usagef("--warmup %d is not allowed: it must be 0..%d", warmup, bench.MaxPPOIterations)
			}
			if experiment < 1 || experiment > 5 {
				return usagef("--experiment %d is not allowed: seed 004 Table III has experiments 1..5", experiment)
			}
			if bits < 1 || bits > gae.MaxBits {
				return usagef("--bits %d is not allowed: it must be 1..%d", bits, gae.MaxBits)
			}
			opts, err := ppo.Experiment(experiment, bits)
			if err != nil {
				return usageError{err}
			}
			cfg := bench.PPOConfig{Workloads: workloads, Iterations: iterations, Warmup: warmup,
				Seed: seed, BusyWait: busyWait, GAE: opts}
			rep, err := bench.PPO(cmd.Context(), cfg)
			// On cancellation, still show what was measured, then fail.
			out := cmd.OutOrStdout()
			if asJSON {
				if werr := writePPOJSON(out, rep); werr != nil && err == nil {
					err = werr
				}
			} else {
				writePPOTable(out, rep)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.PPOSchema+") instead of a table")
	f.StringSliceVar(&workloads, "workloads", []string{"cartpole", "hopper"}, "workloads to measure, comma-separated: "+ppoWorkloadNames())
	f.IntVar(&iterations, "iterations", 10, "measured PPO iterations per workload")
	f.IntVar(&warmup, "warmup", 1, "iterations run before measuring")
	f.Uint64Var(&seed, "seed", 1, "seed of the runs")
	f.BoolVar(&busyWait, "busy-wait", true, "workload environments spend their per-step cost on the host")
	f.IntVar(&experiment, "experiment", 1, "GAE numerics of seed 004 §V-C, experiment `n` = 1..5")
	f.IntVar(&bits, "bits", 8, "code width of the quantized experiments (3, 4, 5), 1..16")
	return cmd
}

func ppoWorkloadNames() string {
	names := make([]string, len(bench.PPOWorkloads))
	for i, w := range bench.PPOWorkloads {
		names[i] = w.Name
	}
	return strings.Join(names, ", ")
}

func writePPOJSON(w io.Writer, rep bench.PPOReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func writePPOTable(w io.Writer, rep bench.PPOReport) {
	fmt.Fprintf(w, "PPO on the host (wall clock): %s\n", rep.Host)
	for _, r := range rep.Results {
		fmt.Fprintf(w, "\n%s (%s): N=%d T=%d minibatch %d, %d epochs, %d parameters; GAE %s\n",
			r.Env, r.Workload, r.N, r.T, r.M, r.K, r.Params, r.GAE)
		if r.Synthetic {
			spent := "not spent on the host (--busy-wait=false)"
			if r.BusyWait {
				spent = "spent on the host"
			}
			fmt.Fprintf(w, "synthetic workload: its returns mean nothing; step cost %.0f µs, %s\n", r.StepCostSeconds*1e6, spent)
		}
		fmt.Fprintf(w, "%d iterations after %d warm-up: %d env steps in %.3f s\n", r.Iterations, r.Warmup, r.EnvSteps, r.Seconds)
		ret := "none yet"
		if r.RecentReturn != nil {
			ret = fmt.Sprintf("%.1f", *r.RecentReturn)
			if r.Synthetic {
				ret += " (meaningless)"
			}
		}
		fmt.Fprintf(w, "SPS %.0f, IPS %.0f (slowest %.0f, fastest %.0f), mean return of the last 100 episodes %s\n",
			r.SPS, r.IPS, r.MinIPS, r.MaxIPS, ret)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "group\tphase\tms/iteration\tshare\tcalls/iteration\titems/iteration\t")
		for _, p := range r.Phases {
			fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.1f%%\t%.0f\t%.0f\t\n", p.Group, p.Phase, p.Seconds*1e3, p.Percent, p.Calls, p.Items)
		}
		tw.Flush()
	}
}
