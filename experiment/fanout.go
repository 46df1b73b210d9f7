package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/bench"
	"github.com/rlxdev/rlx/report"
)

func init() { builders["fanout"] = buildFanout }

// FanoutData is the data of the fanout report: host measurements.
type FanoutData struct {
	Host       bench.SumTreeHost `json:"host"`
	Goroutines int               `json:"goroutines"`
	LockBatch  int               `json:"lock_batch"`
	Best       []FanoutBestRow   `json:"best"`
	Sweep      []bench.Locks     `json:"sweep"` // every point of the two-lock experiment
	Ops        []bench.OpNs      `json:"ops"`   // the batched tree operations, ns per index
	Steps      []FanoutStepRow   `json:"steps"`
	NotRun     []int             `json:"not_run,omitempty"`
}

// FanoutBestRow is the best fanout at one capacity, measured, beside 002's.
type FanoutBestRow struct {
	Capacity int     `json:"capacity"`
	K        int     `json:"k"`       // the fanout with the most rounds per second
	Speedup  float64 `json:"speedup"` // its rounds per second over one global lock on a binary tree
	// PublishedK is 002's best K at this capacity, 0 where 002 gives none;
	// SpeedupAtPublishedK the speedup measured here at that K, 0 if it was
	// not swept.
	PublishedK          int     `json:"published_k,omitempty"`
	SpeedupAtPublishedK float64 `json:"speedup_at_published_k,omitempty"`
}

// FanoutStepRow is one live run of the fanout experiment.
type FanoutStepRow struct {
	Step     int     `json:"step"`
	Title    string  `json:"title"`
	Env      string  `json:"env"`
	Algo     string  `json:"algo"`
	Fanout   int     `json:"fanout"`
	Capacity int     `json:"capacity"`
	Batch    int     `json:"batch"`
	HostGPS  float64 `json:"host_gps"` // over the whole run
	SimGPS   float64 `json:"sim_gps"`  // over the whole run
	// SimGPSRecent is over the last quarter of the run's simulated time:
	// the steady state.
	SimGPSRecent float64 `json:"sim_gps_recent"`
}

// sumTreeOptions are the measurements of the fanout report: those of
// rlx bench sumtree, or its --quick sizes. Either way the two-lock sweep
// covers every fanout 002 names (up to 256), which --quick stops at 64.
func sumTreeOptions(quick bool) bench.SumTreeOptions {
	opt := bench.DefaultSumTreeOptions()
	if quick {
		opt.Quick()
		opt.LockFanouts = bench.DefaultSumTreeOptions().LockFanouts
	}
	return opt
}

func buildFanout(ctx context.Context, steps []StepResult, opt Options) (Report, error) {
	rep := Report{Title: "002 Fig. 9: the sum tree's fanout K and the two-lock buffer, measured on this host"}
	if err := checkSteps(steps); err != nil {
		return rep, err
	}
	pub, err := seedTables()
	if err != nil {
		return rep, err
	}
	so := sumTreeOptions(opt.Quick)
	res, err := bench.SumTree(ctx, so, opt.Progress)
	if err != nil {
		return rep, fmt.Errorf("measuring the sum tree: %w", err)
	}
	data := FanoutData{Host: res.Host, Goroutines: so.Goroutines, LockBatch: so.LockBatch, Sweep: res.Locks, Ops: res.Ops}
	published := map[int]int{}
	for _, b := range pub.ParallelReplay.BestFanout {
		published[b.Capacity] = b.K
	}
	for _, bk := range res.BestK {
		row := FanoutBestRow{Capacity: bk.Capacity, K: bk.Fanout, Speedup: bk.Speedup, PublishedK: published[bk.Capacity]}
		for _, l := range res.Locks {
			if l.Capacity == bk.Capacity && l.Locking != "global-lock" && l.Fanout == row.PublishedK {
				row.SpeedupAtPublishedK = l.Speedup
			}
		}
		data.Best = append(data.Best, row)
	}
	done, notRun := ran(steps)
	data.Steps, data.NotRun = fanoutStepRows(done), notRun
	rep.Markdown, rep.Data = fanoutMarkdown(data, opt.Quick), data
	return rep, nil
}

// fanoutStepRows lists the live runs.
func fanoutStepRows(done []StepResult) []FanoutStepRow {
	var rows []FanoutStepRow
	for _, s := range done {
		c := s.Config
		if c.Env == "" {
			c = s.Final.Config
		}
		host, sim := s.Final.Averages()
		rows = append(rows, FanoutStepRow{Step: s.Index, Title: s.Title, Env: c.Env, Algo: string(c.Algo),
			Fanout: c.Fanout, Capacity: c.Capacity, Batch: c.Batch, HostGPS: host.GPS, SimGPS: sim.GPS, SimGPSRecent: s.Final.SimRecent.GPS})
	}
	return rows
}

func fanoutMarkdown(d FanoutData, quick bool) string {
	var b strings.Builder
	how := "the sizes of `rlx bench sumtree`"
	if quick {
		how = "the quick sizes of `rlx bench sumtree --quick`, its two-lock sweep widened to every K up to 256 (seconds: figures for tests, not for quoting)"
	}
	b.WriteString(paragraph(
		"The fanout K of the sum tree and the two-lock replay buffer of 002 (§IV-C, §VI-D, Fig. 9), measured on",
		fmt.Sprintf("this host (%s) with %s.", d.Host.Host, how),
		fmt.Sprintf("In the two-lock experiment %d goroutines share one buffer, each sampling a batch of %d and updating", d.Goroutines, d.LockBatch),
		"its priorities in turn; the speedup is over the same rounds with one global lock on a plain binary tree.",
		"All figures are host wall clock, medians of repeats. Command: `rlx --batch --preset fanout --out DIR`."))
	b.WriteString("### Best fanout per capacity\n\n")
	bt := newTable(">capacity", ">rlx best K", ">speedup", ">002 best K", ">rlx speedup at 002's K")
	for _, r := range d.Best {
		pk, at := dash, dash
		if r.PublishedK > 0 {
			pk, at = fmt.Sprint(r.PublishedK), speedup(r.SpeedupAtPublishedK)
		}
		bt.add(fmt.Sprint(r.Capacity), fmt.Sprint(r.K), speedup(r.Speedup), pk, at)
	}
	b.WriteString(bt.String())
	b.WriteString(fanoutVerdict(d))
	b.WriteString("### The K sweep\n\n")
	var fanouts []int
	for _, r := range d.Sweep {
		if r.Locking != "global-lock" && !slices.Contains(fanouts, r.Fanout) {
			fanouts = append(fanouts, r.Fanout)
		}
	}
	head := []string{">capacity", ">global lock rounds/s"}
	for _, k := range fanouts {
		head = append(head, fmt.Sprintf(">K=%d", k))
	}
	st := newTable(head...)
	for _, best := range d.Best {
		cells := []string{fmt.Sprint(best.Capacity), dash}
		cells = append(cells, make([]string, len(fanouts))...)
		for i := range fanouts {
			cells[2+i] = dash
		}
		for _, r := range d.Sweep {
			if r.Capacity != best.Capacity {
				continue
			}
			if r.Locking == "global-lock" {
				cells[1] = num(r.RoundsPerS)
			} else {
				cells[2+slices.Index(fanouts, r.Fanout)] = speedup(r.Speedup)
			}
		}
		st.add(cells...)
	}
	b.WriteString(st.String())
	b.WriteString(fanoutOpsTables(d.Ops))
	if len(d.Steps) > 0 {
		b.WriteString("### Live runs\n\n")
		b.WriteString(paragraph("The experiment's steps, with the fanout each ran; host GPS over the whole run.", report.RatesNote))
		whole, recent := simHeads("GPS")
		t := newTable("step", "env", "algo", ">K", ">capacity", ">B", ">host GPS", whole, recent)
		for _, r := range d.Steps {
			t.add(stepName(r.Step, r.Title), r.Env, r.Algo, fmt.Sprint(r.Fanout), fmt.Sprint(r.Capacity),
				fmt.Sprint(r.Batch), num(r.HostGPS), num(r.SimGPS), num(r.SimGPSRecent))
		}
		b.WriteString(t.String())
	}
	b.WriteString(notRunNote(d.NotRun))
	return b.String()
}

// fanoutVerdict compares the measured sweep with what 002 reports.
func fanoutVerdict(d FanoutData) string {
	falls := true
	for i := 1; i < len(d.Best); i++ {
		falls = falls && d.Best[i].K <= d.Best[i-1].K
	}
	trend := "falls (or stays) as the capacity grows, as in 002"
	if !falls {
		trend = "does not fall steadily with the capacity here, unlike 002's"
	}
	lo, hi := 0.0, 0.0
	for i, r := range d.Best {
		if i == 0 || r.Speedup < lo {
			lo = r.Speedup
		}
		hi = max(hi, r.Speedup)
	}
	return paragraph(
		"002 ran 4 threads on an 8-core Intel i7-6700 and found every speedup above 4x: one global lock lets one",
		"thread run at a time, its locks let them all run. Here", fmt.Sprintf("%d goroutines on %d CPUs", d.Goroutines, d.Host.CPUs),
		fmt.Sprintf("bound the parallel part of the speedup by %d; the rest comes from the K-ary tree's shorter walk.", min(d.Goroutines, d.Host.CPUs)),
		fmt.Sprintf("The best speedups measured are %s to %s. The best K %s;", speedup(lo), speedup(hi), trend),
		"it depends on the cache sizes and the vector search of this CPU, and neighbouring K are often within",
		"the noise of a shared machine.")
}

// fanoutOpsTables renders the per-index costs, one table per operation.
func fanoutOpsTables(ops []bench.OpNs) string {
	if len(ops) == 0 {
		return ""
	}
	var b strings.Builder
	var batches []int
	var trees []string
	for _, o := range ops {
		if !slices.Contains(batches, o.Batch) {
			batches = append(batches, o.Batch)
		}
		tree := treeName(o)
		if !slices.Contains(trees, tree) {
			trees = append(trees, tree)
		}
	}
	b.WriteString("### Per-index cost of the batched operations\n\n")
	b.WriteString(paragraph(fmt.Sprintf("FindBatch (prefix-sum sampling) and SetBatch (priority update) on a tree of capacity %d,", ops[0].Capacity),
		"in host nanoseconds per index, for the K-ary tree and a plain binary implicit-array tree."))
	for _, op := range []string{"find", "set"} {
		head := []string{"FindBatch ns/index"}
		if op == "set" {
			head[0] = "SetBatch ns/index"
		}
		for _, bs := range batches {
			head = append(head, fmt.Sprintf(">B=%d", bs))
		}
		t := newTable(head...)
		for _, tree := range trees {
			cells := []string{tree}
			for _, bs := range batches {
				cell := dash
				for _, o := range ops {
					if o.Op == op && o.Batch == bs && treeName(o) == tree {
						cell = num(o.NsPerIndex)
					}
				}
				cells = append(cells, cell)
			}
			t.add(cells...)
		}
		b.WriteString(t.String())
	}
	return b.String()
}

// treeName is "binary" or "K=16".
func treeName(o bench.OpNs) string {
	if o.Tree == "binary" {
		return "binary"
	}
	return fmt.Sprintf("K=%d", o.Fanout)
}
