package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/spf13/cobra"
)

// dseSchema versions the JSON of `rlx dse` (docs/dse.md).
const dseSchema = "rlx.dse/v1"

// loadPlatform is engine.LoadPlatform for --devices; a bad file or name is
// a usage error: it is the user's input.
func loadPlatform(path string) (*hw.Platform, error) {
	p, err := engine.LoadPlatform(path)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

func newDSECmd() *cobra.Command {
	var (
		env, algo, devices string
		batch              int
		asJSON, sweep      bool
	)
	cmd := &cobra.Command{
		Use:   "dse",
		Short: "Map the learner, replay manager and storage onto CPU, GPU and FPGA",
		Long: `dse runs the design-space exploration of seed 000 §VI for one configuration:
the FPGA architecture exploration (DP, PI, f, S), the primitive-platform
performance table, the mapping algorithm (Algorithm 3) and the throughput
of every learner-RMM mapping, with the speedups of the chosen one.
--sweep runs the grid of 000 Table V. Times are on the simulated platform
(--devices, default: the embedded Table IV platform).`,
		Example: `  rlx dse --env Hopper --algo DDPG --batch 16384
  rlx dse --sweep --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := loadPlatform(devices)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if sweep {
				if cmd.Flags().Changed("env") || cmd.Flags().Changed("batch") {
					return usagef("--sweep runs the Table V grid: leave out --env and --batch")
				}
				rs, err := dse.Sweep(cmd.Context(), p, dse.TableVGrid)
				if err != nil {
					return err
				}
				if asJSON {
					objs := make([]dseJSON, len(rs))
					for i, r := range rs {
						objs[i] = toDSEJSON(dse.TableVGrid[i], r)
					}
					return writeJSON(out, objs)
				}
				return printSweep(out, rs)
			}
			if env == "" {
				return usagef("--env is required (CartPole, Hopper or Pong), or use --sweep")
			}
			if batch < 1 || batch > hw.MaxBatch {
				return usagef("--batch %d is out of range: must be 1..%d", batch, hw.MaxBatch)
			}
			e, err := dse.FindEnv(env)
			if err != nil {
				return usageError{err}
			}
			if algo == "" {
				algo = e.Algos[0]
			}
			c := dse.Config{Env: e.Name, Algo: strings.ToUpper(algo), Batch: batch}
			w, err := dse.Workload(e, c.Algo, batch)
			if err != nil {
				return usageError{err}
			}
			r, err := dse.Explore(p, &w)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(out, toDSEJSON(c, r))
			}
			return printDSE(out, p, c, r)
		},
	}
	f := cmd.Flags()
	f.StringVar(&env, "env", "", "environment of 000 Table III: CartPole, Hopper or Pong")
	f.StringVar(&algo, "algo", "", "algorithm: DDPG or TD3 (CartPole, Hopper), DQN (Pong, CartPole); default: Table III's")
	f.IntVar(&batch, "batch", 0, "learner batch size B")
	f.StringVar(&devices, "devices", "", "platform YAML (copy presets/devices/table-iv.yaml) or an embedded platform name; default: Table IV")
	f.BoolVar(&asJSON, "json", false, "write JSON (schema "+dseSchema+")")
	f.BoolVar(&sweep, "sweep", false, "run the Table V grid")
	return cmd
}

// dseJSON is one configuration's result in the stable JSON form.
type dseJSON struct {
	Schema     string        `json:"schema"`
	Env        string        `json:"env"`
	Algo       string        `json:"algo"`
	Batch      int           `json:"batch"`
	Mapping    string        `json:"mapping"`
	GPS        float64       `json:"gps"`
	Bottleneck string        `json:"bottleneck"`
	Watts      float64       `json:"watts"`
	GPSPerWatt float64       `json:"gps_per_watt"`
	SecondBest *mappingJSON  `json:"second_best"`
	Worst      *mappingJSON  `json:"worst"`
	OptimumGPS float64       `json:"optimum_gps"`
	PrunedGPU  bool          `json:"pruned_gpu_rmm"`
	Tie        string        `json:"tie,omitempty"`
	TableUS    tableJSON     `json:"table_us"`
	Mappings   []mappingJSON `json:"mappings"`
	FPGA       fpgaJSON      `json:"fpga"`
}

type mappingJSON struct {
	Mapping    string  `json:"mapping"`
	GPS        float64 `json:"gps"`
	Speedup    float64 `json:"speedup,omitempty"`
	Bottleneck string  `json:"bottleneck,omitempty"`
	Watts      float64 `json:"watts,omitempty"`
	GPSPerWatt float64 `json:"gps_per_watt,omitempty"`
	Infeasible string  `json:"infeasible,omitempty"`
}

type tableJSON struct {
	Learner map[string]float64 `json:"learner"`
	RMM     map[string]float64 `json:"rmm"`
}

type fpgaJSON struct {
	DP               int          `json:"dp"`
	PI               int          `json:"pi"`
	F                float64      `json:"f"`
	TMaxCycles       int64        `json:"t_max_cycles"`
	Stages           int          `json:"stages"`
	S                int          `json:"s"`
	LearnerResources hw.Resources `json:"learner_resources"`
	LearnerBudget    hw.Resources `json:"learner_budget"`
	RMMResources     hw.Resources `json:"rmm_resources"`
	RMMBudget        hw.Resources `json:"rmm_budget"`
}

func toDSEJSON(c dse.Config, r *dse.Result) dseJSON {
	j := dseJSON{
		Schema: dseSchema, Env: c.Env, Algo: c.Algo, Batch: c.Batch,
		Mapping: r.Decision.Mapping.String(), GPS: r.Chosen.GPS, Bottleneck: r.Chosen.Bottleneck,
		Watts: r.Chosen.Watts, GPSPerWatt: r.Chosen.GPSPerWatt,
		OptimumGPS: r.Optimum.GPS, PrunedGPU: r.Decision.PrunedGPU, Tie: r.Decision.Tie,
		TableUS: tableJSON{Learner: map[string]float64{}, RMM: map[string]float64{}},
	}
	if r.SecondBest.GPS > 0 {
		j.SecondBest = &mappingJSON{Mapping: r.SecondBest.Mapping.String(), GPS: r.SecondBest.GPS, Speedup: r.SpeedupOverSecond()}
	}
	if r.Worst.GPS > 0 {
		j.Worst = &mappingJSON{Mapping: r.Worst.Mapping.String(), GPS: r.Worst.GPS, Speedup: r.SpeedupOverWorst()}
	}
	for _, k := range hw.Kinds {
		j.TableUS.Learner[strings.ToLower(k.String())] = 1e6 * r.Table.Seconds[dse.Learner][k]
		j.TableUS.RMM[strings.ToLower(k.String())] = 1e6 * r.Table.Seconds[dse.RMM][k]
	}
	for _, ev := range r.Evals {
		j.Mappings = append(j.Mappings, mappingJSON{Mapping: ev.Mapping.String(), GPS: ev.GPS, Bottleneck: ev.Bottleneck,
			Watts: ev.Watts, GPSPerWatt: ev.GPSPerWatt, Infeasible: ev.Infeasible})
	}
	j.FPGA = fpgaJSON{S: r.Arch.RMM.S, RMMResources: r.Arch.RMM.Resources, RMMBudget: r.Arch.RMMBudget, LearnerBudget: r.Arch.LearnerBudget}
	if l := r.Arch.Learner; l != nil {
		j.FPGA.DP, j.FPGA.PI, j.FPGA.F, j.FPGA.TMaxCycles = l.DP, l.PI, l.F, l.TMax
		j.FPGA.Stages, j.FPGA.LearnerResources = len(l.StageCycles), l.Resources
	}
	return j
}

// watts and gpsPerWatt print a power figure, or "-" where the platform
// gives none.
func watts(w float64) string {
	if w <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", w)
}

func gpsPerWatt(e float64) string {
	if e <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.3g", e)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printDSE(out io.Writer, p *hw.Platform, c dse.Config, r *dse.Result) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s %s, batch %d on %s (simulated platform clock)\n\n", c.Env, c.Algo, c.Batch, p.Name)
	fmt.Fprintf(tw, "primitive-platform table (000 §VI-A3)\tlearner us\tRMM us\tlearner TP/s\tRMM TP/s\n")
	for _, k := range hw.Kinds {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.4g\t%.4g\n", k, 1e6*r.Table.Seconds[dse.Learner][k], 1e6*r.Table.Seconds[dse.RMM][k], r.Table.TP[dse.Learner][k], r.Table.TP[dse.RMM][k])
	}
	fmt.Fprintf(tw, "\nmapping (L-R-S)\tGPS\tbottleneck\tW\tGPS/W\t\n")
	for _, ev := range r.Evals {
		mark := ""
		if ev.Mapping == r.Decision.Mapping {
			mark = "  <- chosen"
		}
		if ev.GPS == 0 {
			fmt.Fprintf(tw, "%s\t-\t%s\t%s\n", ev.Mapping, ev.Infeasible, mark)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%s\n", ev.Mapping, ev.GPS, ev.Bottleneck, watts(ev.Watts), gpsPerWatt(ev.GPSPerWatt), mark)
	}
	tw.Flush()
	fmt.Fprintf(out, "\nmapping %s: %.1f GPS (optimum over all mappings %.1f)\n", r.Decision.Mapping, r.Chosen.GPS, r.Optimum.GPS)
	if r.Decision.PrunedGPU {
		fmt.Fprintln(out, "  GPU pruned for the RMM: the FPGA RMM keeps up with the GPU learner (Algorithm 3 line 6)")
	}
	if r.Decision.Tie != "" {
		fmt.Fprintf(out, "  tie: %s\n", r.Decision.Tie)
	}
	if r.SecondBest.GPS > 0 {
		fmt.Fprintf(out, "  speedup over 2nd best %s: %.2fx\n", r.SecondBest.Mapping, r.SpeedupOverSecond())
	}
	if r.Worst.GPS > 0 {
		fmt.Fprintf(out, "  speedup over worst %s: %.1fx\n", r.Worst.Mapping, r.SpeedupOverWorst())
	}
	a := r.Arch
	if l := a.Learner; l != nil {
		fmt.Fprintf(out, "\nFPGA learner (000 §VI-A2): DP=%d PI=%d f=%.4g n=%d T_max=%d cycles, T_learner=%d cycles\n", l.DP, l.PI, l.F, len(l.StageCycles), l.TMax, l.Cycles())
		fmt.Fprintf(out, "  resources DSP %d of %d, SRAM %.1f of %.1f MB\n", l.Resources.DSP, a.LearnerBudget.DSP, l.Resources.SRAMMB, a.LearnerBudget.SRAMMB)
	} else {
		fmt.Fprintln(out, "\nFPGA learner: no design fits the learner SLRs")
	}
	fmt.Fprintf(out, "FPGA RMM: S=%d H=%d, DSP %d of %d, LUT %d of %d, REG %d of %d, SRAM %.1f of %.1f MB\n", a.RMM.S, a.RMM.H,
		a.RMM.Resources.DSP, a.RMMBudget.DSP, a.RMM.Resources.LUT, a.RMMBudget.LUT, a.RMM.Resources.FF, a.RMMBudget.FF, a.RMM.Resources.SRAMMB, a.RMMBudget.SRAMMB)
	return nil
}

func printSweep(out io.Writer, rs []*dse.Result) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "env\talgo\tbatch\tmapping\tGPS\t2nd best\tspeedup\tworst\tspeedup\tDP\tS")
	for i, r := range rs {
		c := dse.TableVGrid[i]
		dp := "-"
		if r.Arch.Learner != nil {
			dp = fmt.Sprint(r.Arch.Learner.DP)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1f\t%s\t%.2fx\t%s\t%.1fx\t%s\t%d\n", c.Env, c.Algo, c.Batch, r.Decision.Mapping, r.Chosen.GPS,
			r.SecondBest.Mapping, r.SpeedupOverSecond(), r.Worst.Mapping, r.SpeedupOverWorst(), dp, r.Arch.RMM.S)
	}
	return tw.Flush()
}
