package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/presets"
	"github.com/spf13/cobra"
)

// dseSchema versions the JSON of `rlx dse` (docs/dse.md).
const dseSchema = "rlx.dse/v1"

// claimsSchema versions the JSON of `rlx dse --claims` (docs/dse.md).
const claimsSchema = "rlx.dse.claims/v1"

// loadPlatform is engine.LoadPlatform for --devices; a bad file or name is
// a usage error: it is the user's input. So is a platform the mapping
// exploration cannot use (dse.CheckPlatform): a platform of one device
// (heppo-zcu106, for sizing HEPPO's GAE in the heppo experiment) would
// only fail later.
func loadPlatform(path string) (*hw.Platform, error) {
	p, err := engine.LoadPlatform(path)
	if err != nil {
		return nil, usageError{err}
	}
	if err := dse.CheckPlatform(p); err != nil {
		return nil, usageError{fmt.Errorf("--devices %s: %w", path, err)}
	}
	return p, nil
}

// dseDefaultBatch is rlx dse's batch when --batch is not given: 256, one
// of the two batch sizes (with 32) 000 Table V measures for CartPole,
// Hopper and Pong alike.
const dseDefaultBatch = 256

// tableIIIEnv resolves --env: a 000 Table III environment by its name, in
// any case, or by the id of the run environment that stands in for it
// (engine.TableIIIEnv: CartPole-v1, Hopper-workload, Hopper-v4, Pong-workload). For
// the id of another run environment it returns that id as runID, and rlx
// dse explores the run's own workload (exploreRunWorkload).
func tableIIIEnv(name string) (dse.Env, string, error) {
	if e, err := dse.FindEnv(name); err == nil {
		return e, "", nil
	}
	for _, id := range engine.Environments() {
		if !strings.EqualFold(id, name) {
			continue
		}
		if tableName, ok := engine.TableIIIEnv(id); ok {
			e, err := dse.FindEnv(tableName)
			return e, "", err
		}
		return dse.Env{}, id, nil
	}
	if err := env.MissingMuJoCo(name); err != nil {
		return dse.Env{}, "", fmt.Errorf("--env %s: %w", name, err)
	}
	names := make([]string, len(dse.Environments))
	for i, e := range dse.Environments {
		names[i] = e.Name
	}
	return dse.Env{}, "", fmt.Errorf("--env %q is not known: use %s of 000 Table III, or a run's %s",
		name, strings.Join(names, ", "), strings.Join(engine.Environments(), ", "))
}

func newDSECmd() *cobra.Command {
	var (
		env, algo, devices string
		batch, capacity    int
		asJSON, sweep      bool
		claims, sensitive  bool
	)
	cmd := &cobra.Command{
		Use:   "dse",
		Short: "Map the learner, replay manager and storage onto CPU, GPU and FPGA",
		Long: `dse runs the design-space exploration of seed 000 §VI for one configuration:
the FPGA architecture exploration (DP, PI, f, S), the primitive-platform
performance table, the mapping algorithm (Algorithm 3) and the throughput
of every learner-RMM mapping, with the speedups of the chosen one.
--env names a Table III environment (CartPole, Hopper, Pong) or the run id
that stands in for it (CartPole-v1, Hopper-workload or, built with MuJoCo,
Hopper-v4, Pong-workload);
--batch defaults to 256, which Table V measures (with 32) for all three.
Any other run environment (Pendulum-v1, Acrobot-v1, Humanoid-workload...)
is explored on the run's own workload, as the explorer's mapping pane
predicts it (JSON schema ` + dseRunSchema + `): --algo takes any algorithm
that fits it, ppo too (no --batch then), --batch at most a live run's
65536, and --capacity sets its replay.
--sweep runs the grid of 000 Table V. --claims lists every quantitative
claim of seeds 000, 001 §5.1.4 and 003 that the models address, the
paper's figure beside the model's, and counts those within a factor of 2.
--sensitivity scales each constant the platform file marks "assumption"
by 0.5 and 2, one at a time, and lists the claims and Table V mappings
that move.
Times are on the simulated platform (--devices, default: the embedded
Table IV platform, the one the claims' notes describe).`,
		Example: `  rlx dse --env Hopper
  rlx dse --env Hopper-workload --algo TD3 --batch 16384
  rlx dse --env Pendulum-v1
  rlx dse --sweep --json
  rlx dse --claims
  rlx dse --sensitivity --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if sensitive {
				for _, f := range []string{"claims", "sweep", "env", "batch", "algo"} {
					if cmd.Flags().Changed(f) {
						return usagef("--sensitivity perturbs the claims and the Table V grid: leave out --%s", f)
					}
				}
				// It reads the platform file itself, comments and all.
				return runSensitivity(cmd.Context(), out, cmd.ErrOrStderr(), devices, asJSON)
			}
			p, err := loadPlatform(devices)
			if err != nil {
				return err
			}
			if claims {
				for _, f := range []string{"sweep", "env", "batch", "algo"} {
					if cmd.Flags().Changed(f) {
						return usagef("--claims lists the papers' claims: leave out --%s", f)
					}
				}
				cs, err := dse.Claims(p, presets.SeedTables())
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(out, claimsJSON{Schema: claimsSchema, Claims: cs})
				}
				return printClaims(out, p, cs)
			}
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
				return usagef("--env is required (CartPole, Hopper or Pong, or a run's environment id: %s), or use --sweep", strings.Join(engine.Environments(), ", "))
			}
			// The models take batches a live run cannot train (its
			// engine.MaxBatch bounds host memory): the exploration
			// trains nothing.
			if batch < 1 || batch > hw.MaxBatch {
				return usagef("--batch %d is out of range: it must be 1..%d (the models' limit; a live run, which trains for real, takes at most %d)",
					batch, hw.MaxBatch, engine.MaxBatch)
			}
			e, runID, err := tableIIIEnv(env)
			if err != nil {
				return usageError{err}
			}
			if runID != "" {
				return exploreRunWorkload(out, dseRunRequest{env: runID, algo: algo, devices: devices, batch: batch, batchSet: cmd.Flags().Changed("batch"), capacity: capacity}, asJSON)
			}
			if cmd.Flags().Changed("capacity") {
				return usagef("--capacity sets a run environment's replay; 000 Table III's %s learner takes Table V's: leave out --capacity", e.Name)
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
			if !strings.EqualFold(env, e.Name) {
				fmt.Fprintf(out, "--env %s: 000 Table III's %s learner, with Table V's replay, actors and D\n", env, e.Name)
			}
			return printDSE(out, p, c, r)
		},
	}
	f := cmd.Flags()
	f.StringVar(&env, "env", "", "environment of 000 Table III: CartPole, Hopper or Pong, or the id a run gives it: CartPole-v1, Hopper-workload, Pong-workload; any other run environment explores that run's own workload")
	f.StringVar(&algo, "algo", "", "algorithm: DDPG or TD3 (CartPole, Hopper), DQN (Pong, CartPole); another run environment takes any that fits it, ppo too; default: Table III's, or DQN or TD3 by the actions")
	f.IntVar(&batch, "batch", dseDefaultBatch, "learner batch size B, 1.."+strconv.Itoa(hw.MaxBatch)+" (another run environment: 1.."+strconv.Itoa(engine.MaxBatch)+", none for ppo); the default is a batch 000 Table V measures for all three environments")
	f.IntVar(&capacity, "capacity", 0, "replay capacity of another run environment's workload, at least the batch; default: the run's")
	f.StringVar(&devices, "devices", "", "platform YAML (copy presets/devices/table-iv.yaml), an embedded platform name or one of yours in rlx/devices (host: rlx calibrate); default: Table IV")
	f.BoolVar(&asJSON, "json", false, "write JSON (schema "+dseSchema+"; another run environment: "+dseRunSchema+")")
	f.BoolVar(&sweep, "sweep", false, "run the Table V grid")
	f.BoolVar(&sensitive, "sensitivity", false, "scale each unanchored constant of the platform by 0.5 and 2 and list what moves (JSON schema "+sensitivitySchema+")")
	f.BoolVar(&claims, "claims", false, "list the papers' quantitative claims beside the models' figures (JSON schema "+claimsSchema+")")
	return cmd
}

// claimsJSON is the JSON of rlx dse --claims.
type claimsJSON struct {
	Schema string      `json:"schema"`
	Claims []dse.Claim `json:"claims"`
}

// claimNum formats a claim's figure: SI digits from 10000 up (13.8k,
// 278k), four significant digits below (1005, 10.5, 0.2174).
func claimNum(v float64) string {
	if math.Abs(v) >= 1e4 {
		return units.SI(v)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// claimRange formats a claim's range, one figure when its ends agree.
func claimRange(lo, hi float64) string {
	a, b := claimNum(lo), claimNum(hi)
	if a == b {
		return a
	}
	return a + ".." + b
}

// claimsRule states the factor-2 rule the summaries apply.
const claimsRule = "each end of rlx's range within a factor of 2 of the same end of the paper's: " +
	"paper_low/2 <= rlx_low <= 2 paper_low and paper_high/2 <= rlx_high <= 2 paper_high"

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func printClaims(out io.Writer, p *hw.Platform, cs []dse.Claim) error {
	fmt.Fprintf(out, "Quantitative claims of seeds 000, 001 §5.1.4 and 003 against rlx's models on %s (simulated platform)\n\n", p.Name)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tsource\tpaper\trlx\tunit\twithin 2x\tfitted")
	for _, c := range cs {
		fit := ""
		if c.Fitted {
			fit = "fitted"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, c.Source, claimRange(c.PaperLow, c.PaperHigh), claimRange(c.RlxLow, c.RlxHigh),
			c.Unit, yesNo(c.WithinFactor2()), fit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	within, counted, fitted := dse.Tally(cs)
	fmt.Fprintf(out, "\n%d of %d non-fitted claims are within a factor of 2 (%s); %d fitted claims match by construction and are not counted.\n",
		within, counted, claimsRule, fitted)
	fmt.Fprintf(out, "\nmisses (%d):\n", counted-within)
	for _, c := range cs {
		if c.Fitted || c.WithinFactor2() {
			continue
		}
		fmt.Fprintf(out, "  %s: paper %s, rlx %s %s. %s\n", c.ID, claimRange(c.PaperLow, c.PaperHigh), claimRange(c.RlxLow, c.RlxHigh), c.Unit, c.Note)
	}
	return nil
}

// claimsMarkdown is the claims section of the comparison page: the
// tally, the rule and a row per claim.
func claimsMarkdown(cs []dse.Claim) string {
	var b strings.Builder
	within, counted, fitted := dse.Tally(cs)
	fmt.Fprintf(&b, "Every quantitative claim of seeds 000, 001 §5.1.4 and 003 that rlx's models address, the paper's figure beside the model's on the Table IV platform (`rlx dse --claims`; docs/dse.md \"Claims\"). "+
		"**%d of %d** non-fitted claims are within a factor of 2, %s. %d fitted claims (a constant back-computed from the same table) match by construction and are not counted.\n\n",
		within, counted, claimsRule, fitted)
	b.WriteString("| id | source | claim | paper | rlx | unit | within 2x | fitted | note |\n|---|---|---|---:|---:|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, c := range cs {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c.ID, cell(c.Source), cell(c.Statement),
			claimRange(c.PaperLow, c.PaperHigh), claimRange(c.RlxLow, c.RlxHigh), cell(c.Unit), yesNo(c.WithinFactor2()), yesNo(c.Fitted), cell(c.Note))
	}
	return b.String()
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
	// NoLearner and NoRMM say why there is no learner design (dp 0) or
	// no RMM design (s 0) on the FPGA.
	NoLearner string `json:"no_learner,omitempty"`
	NoRMM     string `json:"no_rmm,omitempty"`
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
	j.FPGA = fpgaJSON{S: r.Arch.RMM.S, RMMResources: r.Arch.RMM.Resources, RMMBudget: r.Arch.RMMBudget, LearnerBudget: r.Arch.LearnerBudget,
		NoLearner: r.Arch.NoLearner, NoRMM: r.Arch.NoRMM}
	if l := r.Arch.Learner; l != nil {
		j.FPGA.DP, j.FPGA.PI, j.FPGA.F, j.FPGA.TMaxCycles = l.DP, l.PI, l.F, l.TMax
		j.FPGA.Stages, j.FPGA.LearnerResources = len(l.StageCycles), l.Resources
	}
	return j
}

// watts and gpsPerWatt print a power figure, or units.Dash where the
// platform gives none.
func watts(w float64) string {
	if w <= 0 {
		return units.Dash
	}
	return fmt.Sprintf("%.0f", w)
}

func gpsPerWatt(e float64) string {
	if e <= 0 {
		return units.Dash
	}
	return fmt.Sprintf("%.3g", e)
}

// tableRow is a device's row of the primitive-platform table (000
// §VI-A3): seconds per call and calls per second of each of two
// primitives, 0 where the device cannot run it.
type tableRow struct {
	device  string
	sec, tp [2]float64
}

// printTable writes the primitive-platform table of the primitives named
// cols. A device that cannot run a primitive prints a dash, not 0.00 us,
// which would read as infinitely fast; why it cannot is under the
// mappings.
func printTable(tw *tabwriter.Writer, cols [2]string, rows []tableRow) {
	fmt.Fprintf(tw, "primitive-platform table (000 §VI-A3)\t%s us\t%s us\t%s TP/s\t%s TP/s\n", cols[0], cols[1], cols[0], cols[1])
	for _, r := range rows {
		cell := func(i int, v string) string {
			if r.tp[i] == 0 {
				return units.Dash
			}
			return v
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.device,
			cell(0, fmt.Sprintf("%.2f", 1e6*r.sec[0])), cell(1, fmt.Sprintf("%.2f", 1e6*r.sec[1])),
			cell(0, fmt.Sprintf("%.4g", r.tp[0])), cell(1, fmt.Sprintf("%.4g", r.tp[1])))
	}
}

// mappingRow is one mapping of rlx dse's list with its predicted rate.
type mappingRow struct {
	mapping, bottleneck, infeasible string
	rate, watts, perWatt            float64
}

// printMappings writes the mappings (in order, e.g. L-R-S) with their
// rates in unit, marking chosen, and flushes tw.
func printMappings(tw *tabwriter.Writer, order, unit string, rows []mappingRow, chosen string) {
	fmt.Fprintf(tw, "\nmapping (%s)\t%s\tbottleneck\tW\t%s/W\t\n", order, unit, unit)
	for _, r := range rows {
		mark := ""
		if r.mapping == chosen {
			mark = "  <- chosen"
		}
		if r.rate == 0 {
			fmt.Fprintf(tw, "%s\t-\t%s\t%s\n", r.mapping, r.infeasible, mark)
			continue
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%s\t%s\t%s\n", r.mapping, r.rate, r.bottleneck, watts(r.watts), gpsPerWatt(r.perWatt), mark)
	}
	tw.Flush()
}

// printSpeedups writes the chosen mapping's speedups over the second best
// and the worst of the others, each left out when its name is "".
func printSpeedups(out io.Writer, second string, overSecond float64, worst string, overWorst float64) {
	if second != "" {
		fmt.Fprintf(out, "  speedup over 2nd best %s: %.2fx\n", second, overSecond)
	}
	if worst != "" {
		fmt.Fprintf(out, "  speedup over worst %s: %.1fx\n", worst, overWorst)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printDSE(out io.Writer, p *hw.Platform, c dse.Config, r *dse.Result) error {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s %s, batch %d on %s (simulated platform clock)\n\n", c.Env, c.Algo, c.Batch, p.Name)
	var table []tableRow
	for _, k := range hw.Kinds {
		row := tableRow{device: k.String()}
		for i, col := range []dse.Column{dse.Learner, dse.RMM} {
			if r.Table.TP[col][k] > 0 {
				row.sec[i], row.tp[i] = r.Table.Seconds[col][k], r.Table.TP[col][k]
			}
		}
		table = append(table, row)
	}
	printTable(tw, [2]string{"learner", "RMM"}, table)
	var rows []mappingRow
	for _, ev := range r.Evals {
		rows = append(rows, mappingRow{mapping: ev.Mapping.String(), rate: ev.GPS, bottleneck: ev.Bottleneck, infeasible: ev.Infeasible, watts: ev.Watts, perWatt: ev.GPSPerWatt})
	}
	printMappings(tw, "L-R-S", "GPS", rows, r.Decision.Mapping.String())
	fmt.Fprintf(out, "\nmapping %s: %.1f GPS (optimum over all mappings %.1f)\n", r.Decision.Mapping, r.Chosen.GPS, r.Optimum.GPS)
	if r.Decision.PrunedGPU {
		fmt.Fprintln(out, "  GPU pruned for the RMM: the FPGA RMM keeps up with the GPU learner (Algorithm 3 line 6)")
	}
	if r.Decision.Tie != "" {
		fmt.Fprintf(out, "  tie: %s\n", r.Decision.Tie)
	}
	var second, worst string
	if r.SecondBest.GPS > 0 {
		second = r.SecondBest.Mapping.String()
	}
	if r.Worst.GPS > 0 {
		worst = r.Worst.Mapping.String()
	}
	printSpeedups(out, second, r.SpeedupOverSecond(), worst, r.SpeedupOverWorst())
	a := r.Arch
	if l := a.Learner; l != nil {
		fmt.Fprintf(out, "\nFPGA learner (000 §VI-A2): DP=%d PI=%d f=%.4g n=%d T_max=%d cycles, T_learner=%d cycles\n", l.DP, l.PI, l.F, len(l.StageCycles), l.TMax, l.Cycles())
		fmt.Fprintf(out, "  resources DSP %d of %d, SRAM %.1f of %.1f MB\n", l.Resources.DSP, a.LearnerBudget.DSP, l.Resources.SRAMMB, a.LearnerBudget.SRAMMB)
	} else {
		fmt.Fprintf(out, "\nFPGA learner: no design fits the learner SLRs: %s\n", a.NoLearner)
	}
	if a.RMM.S == 0 {
		fmt.Fprintf(out, "FPGA RMM: no design fits: %s\n", a.NoRMM)
		return nil
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
