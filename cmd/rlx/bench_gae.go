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
	"github.com/spf13/cobra"
)

// newBenchGAECmd returns `rlx bench gae`: elements per second of the GAE
// kernel on this machine (docs/gae.md).
func newBenchGAECmd() *cobra.Command {
	var (
		asJSON    bool
		shapes    []string
		repeats   int
		minTime   time.Duration
		lookahead int
		seed      uint64
	)
	cmd := &cobra.Command{
		Use:   "gae",
		Short: "Measure generalized advantage estimation in elements per second",
		Long: `gae measures core/gae.Compute, the time-major GAE kernel, in advantage
elements per second on this machine (host wall clock), for each rollout
shape TxN (T time steps of N environments). Each repeat runs whole calls
for at least --min-time; the median of --repeats repeats is reported, with
the slowest and fastest. --lookahead K also measures the k-step lookahead
form of seed 004 §III-B. For scale: one HEPPO processing element does 3e8
elements/s (004 §V-D1).`,
		Example: `  rlx bench gae
  rlx bench gae --shapes 1024x64,4096x256 --repeats 9 --json
  rlx bench gae --lookahead 2`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg := bench.GAEConfig{Repeats: repeats, MinTime: minTime, Lookahead: lookahead, Seed: seed}
			var err error
			if cfg.Shapes, err = parseGAEShapes(shapes); err != nil {
				return err
			}
			if repeats < 1 {
				return usagef("--repeats %d is not allowed: it must be >= 1", repeats)
			}
			if minTime <= 0 {
				return usagef("--min-time %v is not allowed: it must be > 0", minTime)
			}
			if lookahead < 0 {
				return usagef("--lookahead %d is not allowed: it must be >= 1, or 0 to skip it", lookahead)
			}
			rep, err := bench.GAE(cmd.Context(), cfg)
			// On cancellation, still show what was measured, then fail.
			out := cmd.OutOrStdout()
			if asJSON {
				if werr := writeGAEJSON(out, rep); werr != nil && err == nil {
					err = werr
				}
			} else {
				writeGAETable(out, rep)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "emit JSON (schema "+bench.GAESchema+") instead of a table")
	f.StringSliceVar(&shapes, "shapes", defaultGAEShapes(), "rollout shapes `TxN`, comma-separated")
	f.IntVar(&repeats, "repeats", 5, "timed repeats per shape; the median is reported")
	f.DurationVar(&minTime, "min-time", 100*time.Millisecond, "minimum duration of one repeat")
	f.IntVar(&lookahead, "lookahead", 0, "also measure the k-step lookahead form with this `k` (0: skip)")
	f.Uint64Var(&seed, "seed", 1, "seed of the random rollout")
	return cmd
}

func defaultGAEShapes() []string {
	s := make([]string, len(bench.DefaultGAEShapes))
	for i, sh := range bench.DefaultGAEShapes {
		s[i] = sh.String()
	}
	return s
}

// parseGAEShapes reads shapes written TxN ("1024x64"). A bad one is a usage
// error naming it.
func parseGAEShapes(in []string) ([]bench.GAEShape, error) {
	if len(in) == 0 {
		return nil, usagef("--shapes is empty: give at least one TxN, e.g. 1024x64")
	}
	out := make([]bench.GAEShape, 0, len(in))
	for _, s := range in {
		ts, ns, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
		t, terr := strconv.Atoi(ts)
		n, nerr := strconv.Atoi(ns)
		if !ok || terr != nil || nerr != nil {
			return nil, usagef("shape %q is not TxN: write it like 1024x64", s)
		}
		if t < 1 || n < 1 {
			return nil, usagef("shape %q is not allowed: T and N must be >= 1", s)
		}
		if t > bench.MaxGAEElements/n {
			return nil, usagef("shape %q is too large: T*N must be at most %d", s, bench.MaxGAEElements)
		}
		out = append(out, bench.GAEShape{T: t, N: n})
	}
	return out, nil
}

func writeGAEJSON(w io.Writer, rep bench.GAEReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func writeGAETable(w io.Writer, rep bench.GAEReport) {
	repeats := 0
	if len(rep.Results) > 0 {
		repeats = rep.Results[0].Repeats
	}
	fmt.Fprintf(w, "GAE on the host: kernel %s, %s, median of %d repeats\n\n", rep.Kernel, rep.Host, repeats)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "method\tT\tN\tcores\telements/s\tmin\tmax\tns/element\tus/call\tallocs/call\tvs HEPPO PE\t")
	for _, r := range rep.Results {
		method := r.Method
		if r.K > 0 {
			method = fmt.Sprintf("%s k=%d", r.Method, r.K)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3g\t%.3g\t%.3g\t%.3f\t%.1f\t%.2f\t%.1fx\t\n",
			method, r.T, r.N, r.Cores, r.ElementsPerSec, r.MinElementsPerSec, r.MaxElementsPerSec,
			r.NsPerElement, r.NsPerCall/1e3, r.AllocsPerCall, r.ElementsPerSec/bench.HEPPOElementsPerSec)
	}
	tw.Flush()
}
