package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/report"
)

func init() { builders["relaxed-d"] = buildRelaxedD }

// RelaxedDData is the data of the relaxed-d report.
type RelaxedDData struct {
	// PublishedD is the D that 000 §VII-B settles on for all its
	// environments.
	PublishedD int           `json:"published_d"`
	Rows       []RelaxedDRow `json:"rows"`
	NotRun     []int         `json:"not_run,omitempty"`
}

// RelaxedDRow is one live run at one D, the batches sampled ahead of their
// priority updates (000 §V-A).
type RelaxedDRow struct {
	Step      int    `json:"step"`
	Title     string `json:"title"`
	Env       string `json:"env"`
	Algo      string `json:"algo"`
	Depth     int    `json:"depth"`
	EnvSteps  int64  `json:"env_steps"`
	GradSteps int64  `json:"grad_steps"`
	Episodes  int64  `json:"episodes"`
	// Mean100 is the mean return of the last 100 episodes; null before the
	// first episode. Meaningful is false for workload environments, whose
	// returns mean nothing.
	Mean100    *float64 `json:"mean100"`
	Meaningful bool     `json:"meaningful"`
	HostGPS    float64  `json:"host_gps"` // over the whole run
	SimGPS     float64  `json:"sim_gps"`  // over the whole run
	// SimGPSRecent is over the last quarter of the run's simulated time:
	// the steady state.
	SimGPSRecent  float64 `json:"sim_gps_recent"`
	MeanStaleness float64 `json:"mean_staleness"` // priority updates a batch missed, mean
	MaxStaleness  int64   `json:"max_staleness"`
	// The exploration's view of the mapping that ran: its predicted GPS
	// and what bounds it, one step's dependency chain (sampling to
	// priority update) and the PCIe transfer latency in it, in simulated
	// microseconds, and how much of the chain sampling D ahead takes off
	// each step's critical path: chain - 1 / predicted GPS, at least 0.
	Mapping      string  `json:"mapping"`
	PredictedGPS float64 `json:"predicted_gps"`
	Bound        string  `json:"bound"`
	ChainUS      float64 `json:"chain_us"`
	LatencyUS    float64 `json:"pcie_latency_us"`
	HiddenUS     float64 `json:"hidden_us"`
}

func buildRelaxedD(_ context.Context, steps []StepResult, _ Options) (Report, error) {
	rep := Report{Title: "000 Fig. 10: the relaxed dependency, return and throughput against D"}
	if err := checkSteps(steps); err != nil {
		return rep, err
	}
	pub, err := seedTables()
	if err != nil {
		return rep, err
	}
	done, notRun := ran(steps)
	data := RelaxedDData{PublishedD: pub.Heterogeneous.Hyperparameters.PresampledD, NotRun: notRun}
	for _, s := range done {
		f := s.Final
		c := s.Config
		if c.Env == "" {
			c = f.Config
		}
		host, sim := f.Averages()
		data.Rows = append(data.Rows, RelaxedDRow{
			Step: s.Index, Title: s.Title, Env: c.Env, Algo: string(c.Algo), Depth: max(c.Depth, 1),
			EnvSteps: f.Counters.EnvSteps, GradSteps: f.Counters.GradSteps, Episodes: f.Counters.Episodes,
			Mean100: mean100(f), Meaningful: f.Learning.Meaningful, HostGPS: host.GPS, SimGPS: sim.GPS, SimGPSRecent: f.SimRecent.GPS,
			MeanStaleness: f.Replay.MeanStaleness, MaxStaleness: f.Replay.MaxStaleness,
			Mapping: f.Mapping.Chosen, PredictedGPS: f.Mapping.PredictedGPS, Bound: f.Mapping.Bottleneck,
			ChainUS: 1e6 * f.Mapping.LoopSeconds, LatencyUS: 1e6 * f.Mapping.LoopLatency,
		})
		if r := &data.Rows[len(data.Rows)-1]; r.PredictedGPS > 0 {
			r.HiddenUS = max(0, r.ChainUS-1e6/r.PredictedGPS)
		}
	}
	var b strings.Builder
	b.WriteString(paragraph(
		"The relaxed dependency of 000 §V-A: the replay manager samples D batches ahead of the learner, so",
		"sampling need not wait for the priority update of the batch before, at the price of priorities up to",
		"D updates stale. 000 §VII-B (Fig. 10) trains each environment with 5 seeds for several D and finds",
		fmt.Sprintf("the loss of return negligible at D = %d, which it uses everywhere, while larger D", data.PublishedD),
		"(D = 200 on Hopper) degrades it. Here each step is one live run at one D with one seed:",
		ranFor(done)+".",
		"Host GPS is the real training on this machine over the whole run, sim GPS the simulated platform;",
		report.RatesNote, "The speedup over the smallest D divides the whole-run figures. Staleness counts",
		"the priority updates a sampled batch missed before its own. Command: `rlx --batch --preset relaxed-d --out DIR`."))
	if len(data.Rows) == 0 {
		b.WriteString(nothingMeasured)
		b.WriteString(notRunNote(notRun))
		rep.Markdown, rep.Data = b.String(), data
		return rep, nil
	}
	base := data.Rows[0]
	for _, r := range data.Rows[1:] {
		if r.Depth < base.Depth {
			base = r
		}
	}
	whole, recent := simHeads("GPS")
	t := newTable("step", "env", "algo", ">D", ">env steps", ">grad steps", ">episodes", ">mean-100 return",
		">host GPS", whole, fmt.Sprintf(">sim GPS vs D=%d", base.Depth), recent, ">mean staleness", ">max staleness")
	for _, r := range data.Rows {
		t.add(stepName(r.Step, r.Title), r.Env, r.Algo, fmt.Sprint(r.Depth), fmt.Sprint(r.EnvSteps),
			fmt.Sprint(r.GradSteps), fmt.Sprint(r.Episodes), returnCell(r.Mean100, r.Meaningful),
			num(r.HostGPS), num(r.SimGPS), speedup(ratio(r.SimGPS, base.SimGPS)), num(r.SimGPSRecent),
			fmt.Sprintf("%.2f", r.MeanStaleness), fmt.Sprint(r.MaxStaleness))
	}
	b.WriteString(t.String())
	b.WriteString(paragraph(
		"Where the speed comes from, on the simulated clock: each batch waits for the priority update D",
		"steps back, so D steps take at least one step's dependency chain (sampling, the indices to the",
		"storage, the gather, the rows to the learner, training, the TD errors back, the update, each PCIe",
		"transfer with its latency). At D = 1 the chain is the step; sampling ahead takes the part of it",
		"that other units' work can cover off the critical path (*hidden*), until the slowest unit bounds",
		"the step. With the RMM on the CPU the loop crosses PCIe twice, so that part includes the transfers'",
		"latency; on F-F-F nothing crosses PCIe and only the units' own times overlap."))
	t = newTable("step", ">D", "mapping", ">predicted GPS", "bound", ">chain (us)", ">of it PCIe latency (us)", ">hidden per step (us)")
	for _, r := range data.Rows {
		// The times with one decimal, not num: a hidden time of 0 is a
		// result, not a missing one.
		t.add(stepName(r.Step, r.Title), fmt.Sprint(r.Depth), orDash(r.Mapping), num(r.PredictedGPS), orDash(r.Bound),
			units.Fixed(r.ChainUS), units.Fixed(r.LatencyUS), units.Fixed(r.HiddenUS))
	}
	b.WriteString(t.String())
	b.WriteString(paragraph(
		"What a run of this length can and cannot show: the throughput and the staleness are measured",
		"directly, and staleness should grow with D. The claims about return are not tested by it: 000's",
		"curves span full training runs averaged over 5 seeds, and one short run per D cannot tell the effect",
		"of D from that of the seed. Read the return column as whether a run learns at all, not as Fig. 10.",
		"A return marked *(workload)* is from a synthetic environment and means nothing."))
	b.WriteString(notRunNote(notRun))
	rep.Markdown, rep.Data = b.String(), data
	return rep, nil
}
