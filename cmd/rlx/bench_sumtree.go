package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/bench"
)

func newBenchSumtreeCmd() *cobra.Command {
	opt := bench.DefaultSumTreeOptions()
	var asJSON, quick bool
	cmd := &cobra.Command{
		Use:   "sumtree",
		Short: "Time the K-ary sum tree and the two-lock replay buffer",
		Long: `sumtree measures, on this machine's host clock:

  - FindBatch and SetBatch, in ns per sampled or updated index, for each
    fanout K and batch size B, beside a plain binary implicit-array tree;
  - the experiment of 002 Fig. 9: goroutines sharing one replay buffer, each
    sampling a batch and updating its priorities in turn, with the two-lock
    K-ary buffer against one global lock on a binary tree, and the best K
    for each capacity.

Every figure is the median of --repeats measurements. The defaults take
about a minute; --quick takes a few seconds: it shortens --repeats,
--min-time, --batch, --fanout and --lock-fanout, each only when not given.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if quick {
				quickUnlessSet(cmd.Flags().Changed, &opt)
			}
			// Every option is checked as the user gave it, --quick or not;
			// a 0 is an error, not a default.
			if err := opt.Validate(); err != nil {
				return usageError{err}
			}
			progress := func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }
			res, err := bench.SumTree(cmd.Context(), opt, progress)
			if err != nil {
				if cmd.Context().Err() != nil {
					return err
				}
				return usageError{err}
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			writeSumTreeTables(cmd.OutOrStdout(), res)
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&asJSON, "json", false, "print the figures as JSON (schema "+bench.SumTreeSchema+")")
	f.BoolVar(&quick, "quick", false, "fewer sizes and shorter measurements (flags you give are kept)")
	f.IntSliceVar(&opt.Capacities, "capacity", opt.Capacities, "tree capacities for the per-index tables")
	f.IntSliceVar(&opt.Batches, "batch", opt.Batches, "batch sizes B")
	f.IntSliceVar(&opt.Fanouts, "fanout", opt.Fanouts, "fanouts K")
	f.IntSliceVar(&opt.LockCapacities, "lock-capacity", opt.LockCapacities, "buffer capacities for the two-lock experiment")
	f.IntSliceVar(&opt.LockFanouts, "lock-fanout", opt.LockFanouts, "fanouts for the two-lock experiment")
	f.IntVar(&opt.LockBatch, "lock-batch", opt.LockBatch, "batch per round in the two-lock experiment")
	f.IntVar(&opt.Goroutines, "goroutines", opt.Goroutines, "goroutines sharing the buffer")
	f.IntVar(&opt.Repeats, "repeats", opt.Repeats, "measurements per figure (the median is reported)")
	f.DurationVar(&opt.MinTime, "min-time", opt.MinTime, "time each measurement runs at least")
	return cmd
}

// quickUnlessSet applies bench.SumTreeOptions.Quick to the options whose
// flags the user did not set (changed reports those set): --quick shortens
// the run, it does not overrule what was asked for.
func quickUnlessSet(changed func(flag string) bool, opt *bench.SumTreeOptions) {
	q := *opt
	q.Quick()
	for _, o := range []struct {
		flag  string
		apply func()
	}{
		{"repeats", func() { opt.Repeats = q.Repeats }},
		{"min-time", func() { opt.MinTime = q.MinTime }},
		{"batch", func() { opt.Batches = q.Batches }},
		{"fanout", func() { opt.Fanouts = q.Fanouts }},
		{"lock-fanout", func() { opt.LockFanouts = q.LockFanouts }},
	} {
		if !changed(o.flag) {
			o.apply()
		}
	}
}

// writeSumTreeTables prints the figures as plain tables.
func writeSumTreeTables(out io.Writer, res bench.SumTreeResult) {
	fmt.Fprintf(out, "host: %s, vector search %v (host wall clock, medians)\n", res.Host.Host, res.Host.VectorSearch)
	for _, op := range []string{"find", "set"} {
		name := map[string]string{"find": "FindBatch, ns per sampled index", "set": "SetBatch, ns per updated index"}[op]
		var caps, batches []int
		for _, r := range res.Ops {
			if r.Op == op {
				caps = appendNew(caps, r.Capacity)
				batches = appendNew(batches, r.Batch)
			}
		}
		for _, c := range caps {
			fmt.Fprintf(out, "\n%s, capacity %d\n", name, c)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			header := []string{"tree"}
			for _, b := range batches {
				header = append(header, fmt.Sprintf("B=%d", b))
			}
			fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
			var rows []string
			cells := map[string][]string{}
			for _, r := range res.Ops {
				if r.Op != op || r.Capacity != c {
					continue
				}
				row := "binary"
				if r.Tree == "k-ary" {
					row = fmt.Sprintf("K=%d", r.Fanout)
				}
				if _, ok := cells[row]; !ok {
					rows = append(rows, row)
				}
				cells[row] = append(cells[row], fmt.Sprintf("%.1f", r.NsPerIndex))
			}
			for _, row := range rows {
				fmt.Fprintln(tw, row+"\t"+strings.Join(cells[row], "\t")+"\t")
			}
			tw.Flush()
		}
	}
	if len(res.Locks) == 0 {
		return
	}
	g, batch := res.Locks[0].Goroutines, res.Locks[0].Batch
	fmt.Fprintf(out, "\nTwo-lock K-ary buffer against one global lock on a binary tree (002 Fig. 9):\n")
	plural := "s"
	if g == 1 {
		plural = ""
	}
	fmt.Fprintf(out, "speedup in sample+update rounds per second, %d goroutine%s, batch %d\n", g, plural, batch)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	var fanouts []int
	for _, l := range res.Locks {
		if l.Locking == "two-locks" {
			fanouts = appendNew(fanouts, l.Fanout)
		}
	}
	header := []string{"capacity", "global rounds/s"}
	for _, k := range fanouts {
		header = append(header, fmt.Sprintf("K=%d", k))
	}
	fmt.Fprintln(tw, strings.Join(append(header, "best K"), "\t")+"\t")
	for _, best := range res.BestK {
		row := []string{fmt.Sprint(best.Capacity)}
		for _, l := range res.Locks {
			if l.Capacity != best.Capacity {
				continue
			}
			if l.Locking == "global-lock" {
				row = append(row, fmt.Sprintf("%.0f", l.RoundsPerS))
			} else {
				row = append(row, fmt.Sprintf("%.2fx", l.Speedup))
			}
		}
		row = append(row, fmt.Sprintf("%d (%.2fx)", best.Fanout, best.Speedup))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
}

func appendNew(s []int, v int) []int {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
