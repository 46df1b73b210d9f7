package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/hw"
)

// JSON schemas of `rlx hw` (docs/models.md).
const (
	hwSystolicSchema = "rlx.hw.systolic/v1"
	hwGAESchema      = "rlx.hw.gae/v1"
)

func newHWCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hw",
		Short: "Run the cycle-level simulations of the simulated devices",
		Long: `hw runs one cycle-level simulation of a simulated device and prints its
cycles and occupancy: a systolic array GEMM (003) or the GAE processing
elements (004). Cycles are simulated device cycles.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newHWSystolicCmd(), newHWGAECmd())
	return cmd
}

// rowJSON is the occupancy of one stage (PE row or PE).
type rowJSON struct {
	Name        string  `json:"name"`
	BusyCycles  int64   `json:"busy_cycles"`
	Utilization float64 `json:"utilization"`
}

func rows(tl *hw.Timeline) []rowJSON {
	out := make([]rowJSON, len(tl.Stages))
	for i := range tl.Stages {
		s := &tl.Stages[i]
		out[i] = rowJSON{Name: s.Name, BusyCycles: s.BusyCycles, Utilization: s.Utilization(0, tl.Cycles)}
	}
	return out
}

// strip renders a stage's busy fraction over the run as width glyphs.
func strip(s *hw.StageTrace, cycles int64, width int) string {
	bins := s.Bins(make([]float64, width), 0, cycles)
	glyphs := []rune(" ░▒▓█")
	out := make([]rune, width)
	for i, b := range bins {
		out[i] = glyphs[int(b*4+0.5)]
	}
	return string(out)
}

func printTimeline(out io.Writer, tl *hw.Timeline, maxRows int) {
	for i := range tl.Stages {
		if i == maxRows {
			fmt.Fprintf(out, "  ... %d more\n", len(tl.Stages)-maxRows)
			break
		}
		s := &tl.Stages[i]
		fmt.Fprintf(out, "  %-6s |%s| %5.1f%%\n", s.Name, strip(s, tl.Cycles, 48), 100*s.Utilization(0, tl.Cycles))
	}
}

// intFlag is an integer flag's accepted range.
type intFlag struct {
	name   string
	lo, hi int
}

// The ranges of rlx hw's flags are those of hw.CheckSystolic and
// hw.SimulateGAE, from the limits hw exports, checked here first so that
// an error names the flag the user typed rather than the model's letter
// for it (003 Eq. 5 calls --n "a"). TestHWFlagRangesAreTheModels checks
// that each flag has its own argument's limits.
var (
	systolicFlags = []intFlag{{"m", 1, hw.MaxGEMMDim}, {"k", 1, hw.MaxGEMMDim}, {"n", 1, hw.MaxGEMMDim}, {"p", 1, hw.MaxArrayEdge}}
	gaeFlags      = []intFlag{{"t", 1, hw.MaxGAELength}, {"n", 1, hw.MaxGAETrajectories}, {"pes", 1, hw.MaxGAEPEs},
		{"lookahead", 1, hw.MaxGAELookahead}, {"loop-latency", 1, hw.MaxGAELoopLatency}}
)

// checkIntFlags returns a usage error naming the first of flags whose
// value in cmd is out of its range.
func checkIntFlags(cmd *cobra.Command, flags []intFlag) error {
	for _, f := range flags {
		v, err := cmd.Flags().GetInt(f.name)
		if err != nil {
			panic("rlx: " + err.Error()) // a flag of the table the command does not define
		}
		if v < f.lo || v > f.hi {
			return usagef("--%s %d is out of range: it must be %d..%d", f.name, v, f.lo, f.hi)
		}
	}
	return nil
}

func newHWSystolicCmd() *cobra.Command {
	var (
		m, k, n, p                 int
		dataflow                   string
		separate, scaleSim, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "systolic",
		Short: "Simulate one GEMM on a P x P systolic array (NS, WS or IS)",
		Long: `systolic simulates out = X W^T for X of M x K (M batch rows, K reduction) and W
of N x K (N output features) on a P x P array, in 003 Eq. 5's terms the
weight a x b = N x K times the input b x c = K x M. By default folds stream
back to back (PPOAccel; Eq. 5 is then the closed form); --separate-folds gives
each fold its own preload, fill and drain, charging a partial fold only the
rows and columns it uses; --scalesim counts as SCALE-Sim v2 does (each fold
padded to the whole array, T + 2P - 2 cycles, T + 3P - 2 with the WS/IS
preload, the total reported minus 1) to compare with its figures.
Without flags it runs a layer of 003's Hopper policy (11-64-64-3, §5.1):
the 64 -> 64 hidden layer at minibatch M = 64 (Table 2) on the 16 x 16
array 003 builds for MuJoCo (§5.2).`,
		Example: `  rlx hw systolic                   003's Hopper 64 -> 64 layer at M = 64 on 16 x 16, NS
  rlx hw systolic --m 64 --k 256 --n 256 --p 16 --dataflow ws --json
  rlx hw systolic --m 64 --k 11 --n 64 --p 16 --dataflow ws --scalesim`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if separate && scaleSim {
				return usagef("--separate-folds and --scalesim both choose how folds are counted: give one of them")
			}
			df, err := hw.ParseDataflow(dataflow)
			if err != nil {
				return usageError{err}
			}
			if err := checkIntFlags(cmd, systolicFlags); err != nil {
				return err
			}
			d := hw.GEMMDims{A: n, B: k, C: m}
			if err := hw.CheckSystolic(d, p); err != nil {
				// Each flag is in range: what is left is their product.
				return usageError{fmt.Errorf("--m %d --k %d --n %d: %w", m, k, n, err)}
			}
			mode := hw.Streamed
			switch {
			case separate:
				mode = hw.Separate
			case scaleSim:
				mode = hw.ScaleSim
			}
			r, err := hw.SimulateGEMM(d, p, df, mode)
			if err != nil {
				return usageError{err}
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, struct {
					Schema      string    `json:"schema"`
					M           int       `json:"m"`
					K           int       `json:"k"`
					N           int       `json:"n"`
					P           int       `json:"p"`
					Dataflow    string    `json:"dataflow"`
					Mode        string    `json:"mode"`
					Cycles      int64     `json:"cycles"`
					Folds       int       `json:"folds"`
					Utilization float64   `json:"utilization"`
					MACs        int64     `json:"macs"`
					Eq5Cycles   int64     `json:"eq5_cycles"`
					Rows        []rowJSON `json:"rows"`
				}{hwSystolicSchema, m, k, n, p, df.String(), mode.String(), r.Cycles, r.Folds, r.Utilization, r.MACs, r.Eq5, rows(&r.Timeline)})
			}
			how := mode.String() + " folds"
			if mode == hw.ScaleSim {
				how = "folds counted as SCALE-Sim v2 (padded, total minus 1)"
			}
			fmt.Fprintf(out, "GEMM M=%d K=%d N=%d on %dx%d %s, %s\n", m, k, n, p, p, df, how)
			fmt.Fprintf(out, "cycles %d (Eq. 5: %d), folds %d, MACs %d, PE utilization %.1f%%\n", r.Cycles, r.Eq5, r.Folds, r.MACs, 100*r.Utilization)
			printTimeline(out, &r.Timeline, 32)
			return nil
		},
	}
	f := cmd.Flags()
	// The defaults are a layer of 003's Hopper policy (11-64-64-3, §5.1),
	// the 64 -> 64 hidden layer, at its smallest minibatch M = 64 (Table
	// 2), on the 16 x 16 array 003 builds for MuJoCo (§5.2).
	f.IntVar(&m, "m", 64, "M: batch rows (times output pixels for a convolution); default 003's Hopper minibatch M = 64 (Table 2)")
	f.IntVar(&k, "k", 64, "K: reduction length (input features); default 64, 003's Hopper hidden layer (11-64-64-3, §5.1)")
	f.IntVar(&n, "n", 64, "N: output features; default 64, 003's Hopper hidden layer")
	f.IntVar(&p, "p", 16, "P: the array is P x P; default 16, 003's array for MuJoCo (§5.2)")
	f.StringVar(&dataflow, "dataflow", "ns", "ns (output stationary), ws or is")
	f.BoolVar(&separate, "separate-folds", false, "each fold pays its own preload, fill and drain")
	f.BoolVar(&scaleSim, "scalesim", false, "count cycles as SCALE-Sim v2 (folds padded to the array, total minus 1)")
	f.BoolVar(&asJSON, "json", false, "write JSON (schema "+hwSystolicSchema+")")
	return cmd
}

func newHWGAECmd() *cobra.Command {
	var (
		t, n, pes, lookahead, loop int
		clockMHz                   float64
		asJSON                     bool
	)
	cmd := &cobra.Command{
		Use:   "gae",
		Short: "Simulate the GAE processing elements of HEPPO (004)",
		Long: `gae simulates PEs computing advantages and rewards-to-go for N trajectories of
T steps with k-step lookahead (004 §III-B): one element per cycle per PE when
the lookahead covers the feedback loop latency, bubbles otherwise. Without
flags it runs HEPPO's design point: 64 trajectories of 1024 timesteps
(004 §IV-A) on 64 PEs with 2-step lookahead at 300 MHz (§V-D).`,
		Example: `  rlx hw gae                        004's 64 trajectories of 1024 steps on 64 PEs, 2-step lookahead
  rlx hw gae --t 16 --n 4 --pes 2 --lookahead 1   bubbles: the lookahead does not cover the loop`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkIntFlags(cmd, gaeFlags); err != nil {
				return err
			}
			if err := checkFloatFlag("clock-mhz", clockMHz, floatRange{lo: 0, hi: 2000, loOpen: true}); err != nil {
				return err
			}
			r, err := hw.SimulateGAE(t, n, pes, lookahead, loop)
			if err != nil {
				return usageError{fmt.Errorf("--t %d --n %d --pes %d --lookahead %d --loop-latency %d: %w", t, n, pes, lookahead, loop, err)}
			}
			sec := float64(r.Cycles) / (clockMHz * 1e6)
			out := cmd.OutOrStdout()
			if asJSON {
				return writeJSON(out, struct {
					Schema            string    `json:"schema"`
					T                 int       `json:"t"`
					N                 int       `json:"n"`
					PEs               int       `json:"pes"`
					Lookahead         int       `json:"lookahead"`
					LoopLatency       int       `json:"loop_latency"`
					Interval          int       `json:"interval"`
					Cycles            int64     `json:"cycles"`
					Utilization       float64   `json:"utilization"`
					ElementsPerCycle  float64   `json:"elements_per_cycle"`
					ElementsPerSecond float64   `json:"elements_per_second"`
					ClockMHz          float64   `json:"clock_mhz"`
					PEsDetail         []rowJSON `json:"pe_occupancy"`
				}{hwGAESchema, t, n, pes, lookahead, loop, r.Interval, r.Cycles, r.Utilization, r.ElementsPerCycle, float64(r.Elements) / sec, clockMHz, rows(&r.Timeline)})
			}
			fmt.Fprintf(out, "GAE T=%d N=%d on %d PEs, %d-step lookahead (loop %d cycles): one element every %d cycle(s) per PE\n", t, n, pes, lookahead, loop, r.Interval)
			fmt.Fprintf(out, "cycles %d, %.2f elements/cycle, %.3g elements/s at %g MHz, PE utilization %.1f%%\n", r.Cycles, r.ElementsPerCycle, float64(r.Elements)/sec, clockMHz, 100*r.Utilization)
			printTimeline(out, &r.Timeline, 16)
			return nil
		},
	}
	f := cmd.Flags()
	// The defaults are HEPPO's design point (004 §IV-A, §V-D): 64
	// trajectories of 1024 timesteps on 64 PEs with 2-step lookahead.
	f.IntVar(&t, "t", 1024, "T: trajectory length; default 004's 1024 timesteps (§IV-A)")
	f.IntVar(&n, "n", 64, "N: trajectories; default 004's 64 (§IV-A)")
	f.IntVar(&pes, "pes", 64, "processing elements; default 004's 64 (§V-D1)")
	f.IntVar(&lookahead, "lookahead", 2, "k of the k-step lookahead; default 004's 2 (§V-D1)")
	f.IntVar(&loop, "loop-latency", 2, "feedback loop latency in cycles (004: 2 at 300 MHz)")
	f.Float64Var(&clockMHz, "clock-mhz", 300, "PE clock (004: 300 MHz)")
	f.BoolVar(&asJSON, "json", false, "write JSON (schema "+hwGAESchema+")")
	return cmd
}
