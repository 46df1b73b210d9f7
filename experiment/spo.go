package experiment

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlxdev/rlx/bench"
	"github.com/rlxdev/rlx/internal/machine"
	"github.com/rlxdev/rlx/presets"
	"github.com/rlxdev/rlx/report"
)

func init() { builders["spo"] = buildSPO }

// SPOData is the data of the spo report: the live steps, the controlled
// measurement of both multi-learner schemes, and 001's published scaling
// beside rlx's.
type SPOData struct {
	Steps []SPOStepRow `json:"steps"`
	// BaseStep is the 0-based index of the L = 1 step the live speedups
	// divide by; -1 if no such step ran.
	BaseStep   int                `json:"base_step"`
	NotRun     []int              `json:"not_run,omitempty"`
	Scaling    SPOScaling         `json:"scaling"`
	Published  SPOPublished       `json:"published"`
	Comparison []SPOComparisonRow `json:"comparison"`
}

// SPOStepRow is one live run with L SPO learners (001 §5.2), each training
// the step's batch on its own bank of the replay buffer.
type SPOStepRow struct {
	Step      int    `json:"step"`
	Title     string `json:"title"`
	Env       string `json:"env"`
	Algo      string `json:"algo"`
	Learners  int    `json:"learners"`
	Batch     int    `json:"batch"` // per learner
	EnvSteps  int64  `json:"env_steps"`
	GradSteps int64  `json:"grad_steps"` // policy updates, counted at learner 0
	Episodes  int64  `json:"episodes"`
	// Mean100 is the mean return of the last 100 episodes; null before the
	// first episode. Meaningful is false for workload environments.
	Mean100    *float64 `json:"mean100"`
	Meaningful bool     `json:"meaningful"`
	HostGPS    float64  `json:"host_gps"` // over the whole run
	SimGPS     float64  `json:"sim_gps"`  // over the whole run
	// SimGPSRecent is over the last quarter of the run's simulated time:
	// the steady state.
	SimGPSRecent float64 `json:"sim_gps_recent"`
	// Speedup is HostGPS over that of the L = 1 step, and MeasuredSF is
	// Speedup / L; both are 0 without a baseline.
	Speedup    float64 `json:"speedup"`
	MeasuredSF float64 `json:"measured_sf"`
}

// SPOScaling is the controlled measurement of bench.Scaling: learners
// running free on a prefilled buffer, no actors, the whole measurement
// repeated.
type SPOScaling struct {
	Host      machine.Host    `json:"host"`
	Quick     bool            `json:"quick"`      // the quick sizes: for tests, not for quoting
	Repeats   int             `json:"repeats"`    // of the whole measurement
	GradSteps int             `json:"grad_steps"` // policy updates per configuration
	Batch     int             `json:"batch"`      // B of single-learner ApeX
	H         int             `json:"h"`          // SPO's local steps between weight averagings
	Depth     int             `json:"depth"`
	Rows      []SPOScalingRow `json:"rows"`
	// ComputeShare is the forward and backward time of B over T_ApeX
	// (Eq. 5.2) in the ApeX row: the part of a policy update that divides
	// across learners. 0 without an ApeX row.
	ComputeShare float64 `json:"compute_share"`
}

// SPOScalingRow is one measured configuration: the repeat with the median
// speedup (bench.ScalingRow, with its primitive times; for ApeX the median
// GPS), the range of the speedup over the repeats, and the scaling factor
// the host's processors allow.
type SPOScalingRow struct {
	bench.ScalingRow
	SpeedupMin float64 `json:"speedup_min"`
	SpeedupMax float64 `json:"speedup_max"`
	// CoreBoundSF is min(L, P) / L for P = GOMAXPROCS: with fewer
	// processors than learners, the learners take turns, so a measured
	// scaling factor above it means the ApeX run it divides by was slowed.
	CoreBoundSF float64 `json:"core_bound_sf"`
}

// SPOPublished is the scaling example of 001 §5.1.4 as the seed tables
// hold it.
type SPOPublished struct {
	Scheme  string              `json:"scheme"`  // the scheme the example measures: "data-parallel"
	Network string              `json:"network"` // e.g. "4-layer MLP"
	Batch   int                 `json:"batch"`   // B
	Points  []SPOPublishedPoint `json:"points"`
}

// SPOPublishedPoint is one learner count of the published example.
type SPOPublishedPoint struct {
	L       int     `json:"l"`
	Speedup float64 `json:"speedup"`
	SF      float64 `json:"sf"`
}

// SPOComparisonRow sets rlx's controlled measurement beside a published
// point at the same L; rlx's values are 0 where it measured no such row.
type SPOComparisonRow struct {
	L                   int     `json:"l"`
	PublishedSpeedup    float64 `json:"published_speedup"`
	PublishedSF         float64 `json:"published_sf"`
	DataParallelSpeedup float64 `json:"data_parallel_speedup"`
	DataParallelSF      float64 `json:"data_parallel_sf"`
	DataParallelModelSF float64 `json:"data_parallel_model_sf"`
	SPOSF               float64 `json:"spo_sf"`
	SPOModelSF          float64 `json:"spo_model_sf"`
}

// spoLearners are the learner counts of the controlled measurement: those
// of the preset's steps.
var spoLearners = []int{1, 2, 4}

// spoScalingConfig is the controlled measurement: `rlx bench offpolicy spo`
// at its defaults for L = 1, 2, 4 (about 13 s on two cores) three times,
// or once with a quarter of the batch and a tenth of the updates (a third
// of a second). Both batches divide by every L. On a shared host one
// measurement can land on a busy moment: at the full sizes the speedup of
// two learners on two cores was seen to range from 0.8x to 1.9x between
// runs, so the report keeps the median of three and shows the range.
func spoScalingConfig(quick bool) (c bench.ScalingConfig, repeats int) {
	c = bench.DefaultScalingConfig()
	c.Learners = spoLearners
	if quick {
		c.Batch, c.GradSteps = 256, 100
		return c, 1
	}
	return c, 3
}

// spoMeasure runs the controlled measurement repeats times and keeps, per
// configuration, the repeat with the median speedup.
func spoMeasure(ctx context.Context, quick bool, progress func(string)) (SPOScaling, error) {
	sc, repeats := spoScalingConfig(quick)
	out := SPOScaling{Quick: quick, Repeats: repeats, GradSteps: sc.GradSteps}
	var runs []bench.ScalingReport
	for i := range repeats {
		start := time.Now()
		r, err := bench.Scaling(ctx, sc)
		if err != nil {
			return out, fmt.Errorf("measuring the multi-learner scaling: %w", err)
		}
		if i > 0 && len(r.Rows) != len(runs[0].Rows) {
			return out, fmt.Errorf("measuring the multi-learner scaling: repeat %d has %d rows, the first %d", i+1, len(r.Rows), len(runs[0].Rows))
		}
		runs = append(runs, r)
		if progress != nil {
			progress(fmt.Sprintf("scaling %d/%d: %d configurations in %.1f s", i+1, repeats, len(r.Rows), time.Since(start).Seconds()))
		}
	}
	first := runs[0]
	out.Host, out.Batch, out.H, out.Depth = first.Host, first.Batch, first.H, first.Depth
	out.Rows = spoMedian(runs, first.Host.GOMAXPROCS)
	for _, r := range out.Rows {
		if t := r.Times; r.Mode == "apex" && t.ApeX() > 0 {
			out.ComputeShare = (t.ForwardB + t.BackwardB) / t.ApeX()
		}
	}
	if progress != nil {
		for _, r := range out.Rows {
			progress(fmt.Sprintf("%s L=%d: %s gradient steps/s, speedup %.2f (%.2f-%.2f), SF %.2f measured, %.2f model",
				r.Mode, r.L, num(r.GPS), r.Speedup, r.SpeedupMin, r.SpeedupMax, r.MeasuredSF, r.ModelSF))
		}
	}
	return out, nil
}

// spoMedian returns, per configuration, the repeat with the median speedup
// (the lower middle one for an even number of repeats) with the range of
// the speedups, and the scaling factor procs processors allow. The repeats
// must list the same configurations in the same order, as bench.Scaling
// does; ApeX, whose speedup is 1 by definition, is ranked by GPS.
func spoMedian(runs []bench.ScalingReport, procs int) []SPOScalingRow {
	if len(runs) == 0 {
		return nil
	}
	procs = max(procs, 1)
	key := func(r bench.ScalingRow) float64 {
		if r.Mode == "apex" {
			return r.GPS
		}
		return r.Speedup
	}
	var out []SPOScalingRow
	for i := range runs[0].Rows {
		rows := make([]bench.ScalingRow, len(runs))
		for j, run := range runs {
			rows[j] = run.Rows[i]
		}
		slices.SortStableFunc(rows, func(a, b bench.ScalingRow) int { return cmp.Compare(key(a), key(b)) })
		row := SPOScalingRow{ScalingRow: rows[(len(rows)-1)/2], SpeedupMin: rows[0].Speedup,
			SpeedupMax: rows[len(rows)-1].Speedup}
		row.CoreBoundSF = float64(min(row.L, procs)) / float64(row.L)
		out = append(out, row)
	}
	return out
}

func buildSPO(ctx context.Context, steps []StepResult, opt Options) (Report, error) {
	rep := Report{Title: "001 §5.1.4: scalable policy optimization, learners against speedup"}
	if err := checkSteps(steps); err != nil {
		return rep, err
	}
	pub, err := seedTables()
	if err != nil {
		return rep, err
	}
	example, err := parseSPOExample(pub.SPO.ScalingExample)
	if err != nil {
		return rep, err
	}
	done, notRun := ran(steps)
	data := SPOData{Published: example, NotRun: notRun}
	data.Steps, data.BaseStep = spoSteps(done)

	if data.Scaling, err = spoMeasure(ctx, opt.Quick, opt.Progress); err != nil {
		return rep, err
	}
	data.Comparison = spoCompare(example, data.Scaling.Rows)

	var b strings.Builder
	spoIntro(&b)
	spoStepsMarkdown(&b, data, ranFor(done))
	spoScalingMarkdown(&b, data.Scaling)
	spoPublishedMarkdown(&b, data)
	rep.Markdown, rep.Data = b.String(), data
	return rep, nil
}

// spoSteps returns the rows of the steps that ran (done, in index order)
// and the index of the first L = 1 step, the one the speedups divide by;
// -1 if none ran.
func spoSteps(done []StepResult) (rows []SPOStepRow, base int) {
	base = -1
	var baseGPS float64
	for _, s := range done {
		f := s.Final
		c := s.Config
		if c.Env == "" {
			c = f.Config
		}
		host, sim := f.Averages()
		r := SPOStepRow{Step: s.Index, Title: s.Title, Env: c.Env, Algo: string(c.Algo), Learners: max(c.Learners, 1),
			Batch: c.Batch, EnvSteps: f.Counters.EnvSteps, GradSteps: f.Counters.GradSteps,
			Episodes: f.Counters.Episodes, Mean100: mean100(f), Meaningful: f.Learning.Meaningful,
			HostGPS: host.GPS, SimGPS: sim.GPS, SimGPSRecent: f.SimRecent.GPS}
		if base < 0 && r.Learners == 1 {
			base, baseGPS = s.Index, r.HostGPS
		}
		rows = append(rows, r)
	}
	if base >= 0 {
		for i := range rows {
			rows[i].Speedup = ratio(rows[i].HostGPS, baseGPS)
			rows[i].MeasuredSF = rows[i].Speedup / float64(rows[i].Learners)
		}
	}
	return rows, base
}

// spoCompare pairs each published point with rlx's rows at the same L.
func spoCompare(p SPOPublished, rows []SPOScalingRow) []SPOComparisonRow {
	var out []SPOComparisonRow
	for _, pt := range p.Points {
		c := SPOComparisonRow{L: pt.L, PublishedSpeedup: pt.Speedup, PublishedSF: pt.SF}
		for _, r := range rows {
			if r.L != pt.L {
				continue
			}
			switch r.Mode {
			case "data-parallel":
				c.DataParallelSpeedup, c.DataParallelSF, c.DataParallelModelSF = r.Speedup, r.MeasuredSF, r.ModelSF
			case "spo":
				c.SPOSF, c.SPOModelSF = r.MeasuredSF, r.ModelSF
			}
		}
		out = append(out, c)
	}
	return out
}

var (
	spoBatchRe = regexp.MustCompile(`\bB\s*=\s*(\d+)`)
	// A point reads "L=2 gives 1.25x (scaling factor 0.63)", the words
	// inside the parentheses optional after the first.
	spoPointRe = regexp.MustCompile(`\bL\s*=\s*(\d+)\s+gives\s+([0-9.]+)x\s*\((?:scaling factor\s+)?([0-9.]+)\)`)
)

// parseSPOExample reads the figures out of the seed tables' sentence on
// 001 §5.1.4's example: the network before the first comma, B, and the
// speedup and scaling factor at each L. The comparison assumes the
// example measures data-parallel ApeX, so any other scheme is an error.
func parseSPOExample(s string) (SPOPublished, error) {
	field := presets.SeedTablesFile + ": scalable_policy_optimization.scaling_example"
	var p SPOPublished
	if !strings.Contains(s, "data-parallel") {
		return p, fmt.Errorf("%s %q does not name data-parallel ApeX: the spo report compares against it", field, s)
	}
	p.Scheme = "data-parallel"
	network, _, ok := strings.Cut(s, ",")
	if !ok || strings.TrimSpace(network) == "" {
		return p, fmt.Errorf("%s %q does not begin with the network and a comma", field, s)
	}
	p.Network = strings.TrimSpace(network)
	m := spoBatchRe.FindStringSubmatch(s)
	if m == nil {
		return p, fmt.Errorf("%s %q has no batch: write B=<size>", field, s)
	}
	p.Batch, _ = strconv.Atoi(m[1]) // \d+ of a seed table: small enough
	for _, m := range spoPointRe.FindAllStringSubmatch(s, -1) {
		l, _ := strconv.Atoi(m[1])
		sp, err1 := strconv.ParseFloat(m[2], 64)
		sf, err2 := strconv.ParseFloat(m[3], 64)
		if l < 1 || err1 != nil || err2 != nil {
			return p, fmt.Errorf("%s: point %q is not L=<learners> gives <speedup>x (<scaling factor>)", field, m[0])
		}
		p.Points = append(p.Points, SPOPublishedPoint{L: l, Speedup: sp, SF: sf})
	}
	if len(p.Points) == 0 {
		return p, fmt.Errorf("%s %q has no point: write L=<learners> gives <speedup>x (<scaling factor>)", field, s)
	}
	return p, nil
}

// spoIntro writes what the report compares.
func spoIntro(b *strings.Builder) {
	b.WriteString(paragraph(
		"Two ways of training one policy with L learners (001 ch. 5). Data-parallel ApeX (§5.1.3) keeps one",
		"replay manager: it samples a batch of B, each learner computes the gradient of B/L of it, and the",
		"gradients are averaged before every update. Scalable policy optimization, SPO (§5.2, Algorithm 5),",
		"splits the prioritized buffer into L banks: each learner samples and updates the priorities of its",
		"own bank, runs H steps of local SGD on its own weights, and the weights are averaged every H steps",
		"(the target network only after an averaging). §5.1.4 models both: a policy update costs the sum of",
		"its primitive times (Eq. 5.1, 5.2, 5.5), and the scaling factor SF is the speedup over one learner",
		"divided by L (Eq. 5.3, 5.6), 1 for perfect scaling."))
	b.WriteString(paragraph(
		"This report has three parts: the live steps of the preset, a controlled measurement of both schemes",
		"beside the model, and the figures 001 publishes. Command: `rlx --batch --preset spo --out DIR`."))
}

// spoStepsMarkdown writes the live part; ran says how long the steps ran.
func spoStepsMarkdown(b *strings.Builder, d SPOData, ran string) {
	b.WriteString("### Live steps\n\n")
	cpus := d.Scaling.Host.CPUs
	b.WriteString(paragraph(
		"Each step trained the preset's configuration with L learners (SPO for L > 1):", ran+".",
		"*Host GPS* is policy updates (counted at learner 0) per second of this machine's time over the whole",
		"run; the speedup divides it by the L = 1 step's, and the measured SF divides the speedup by L."))
	b.WriteString(paragraph(
		"What a live run can show is limited. Its gradient steps follow its environment steps at the update",
		"interval, so every step trains about the same number of policy updates, and host GPS is the actors'",
		"pace unless the learners fall behind. Each SPO learner here trains the whole batch on its own bank,",
		"so L learners do L times the work of one per policy update, not the fixed B of §5.1.4; actors and",
		fmt.Sprintf("learners share this host's %d CPUs with whatever else runs on it, and learners beyond them take", cpus),
		"turns. So more learners here slow the run down unless CPUs are idle. The simulated platform models",
		"one learner of batch B (000 Table IV), so *sim GPS* does not change with L. Read the speedup as what",
		"more learners cost this pipeline on this host, not as 001's scaling: that is the next part. The return",
		"column says whether a run learns at all; one short run per L cannot compare how fast they learn.",
		report.RatesNote))
	if len(d.Steps) == 0 {
		b.WriteString(nothingMeasured)
		b.WriteString(notRunNote(d.NotRun))
		return
	}
	whole, recent := simHeads("GPS")
	t := newTable("step", ">L", ">batch/learner", ">env steps", ">grad steps", ">host GPS", whole, recent,
		">speedup vs L=1", ">measured SF", ">mean-100 return")
	for _, r := range d.Steps {
		sf := dash
		if r.MeasuredSF > 0 {
			sf = fmt.Sprintf("%.2f", r.MeasuredSF)
		}
		t.add(stepName(r.Step, r.Title), fmt.Sprint(r.Learners), fmt.Sprint(r.Batch),
			fmt.Sprint(r.EnvSteps), fmt.Sprint(r.GradSteps), num(r.HostGPS), num(r.SimGPS), num(r.SimGPSRecent),
			speedup(r.Speedup), sf, returnCell(r.Mean100, r.Meaningful))
	}
	b.WriteString(t.String())
	if d.BaseStep < 0 {
		b.WriteString(paragraph("No step with L = 1 ran: there is no baseline, and the speedups are left out."))
	}
	b.WriteString(notRunNote(d.NotRun))
}

// spoScalingMarkdown writes the controlled measurement beside the model.
func spoScalingMarkdown(b *strings.Builder, s SPOScaling) {
	b.WriteString("### Controlled: both schemes, measured and modelled\n\n")
	how := fmt.Sprintf("the sizes of `rlx bench offpolicy spo --learners 1,2,4`, the whole measurement made %d times", s.Repeats)
	if s.Quick {
		how = fmt.Sprintf("the quick sizes of `rlx bench offpolicy spo --learners 1,2,4 --batch %d --grad-steps %d`,"+
			" once (figures for tests, not for quoting)", s.Batch, s.GradSteps)
	}
	b.WriteString(paragraph(
		"DQN learners (CleanRL's 120-84 MLP) running free on a CartPole-v1 buffer prefilled with random",
		fmt.Sprintf("transitions, no actors, %d policy updates per configuration, with %s, on this host", s.GradSteps, how),
		"("+s.Host.String()+").",
		fmt.Sprintf("Single-learner ApeX trains B = %d; SPO's L learners train B/L each on their own banks and", s.Batch),
		fmt.Sprintf("average weights every H = %d steps; data-parallel ApeX splits B across L local learners; D = %d.", s.H, s.Depth)))
	b.WriteString(paragraph(
		"Every policy update covers B samples in all, so *GPS* (policy updates per second) compares like with",
		"like; *speedup* is over ApeX in the same repeat, and *SF measured* is the speedup over L. Each row is",
		"the repeat with the median speedup; *range* is the lowest and highest speedup of the repeats, a",
		"measure of how much the host's other load moved the figures. *SF cores allow* is",
		"min(L, GOMAXPROCS) / L: learners beyond the processors take turns, so a measured SF above it means",
		"the ApeX run it divides by was slowed.",
		"*GPS model* is one over the time of a policy update by Eq. 5.2 (ApeX), 5.5 (SPO) or 5.1",
		"(data-parallel), with each primitive's mean host time measured in the same run (the B-sized ones in",
		"the ApeX run), and *SF model* is T_ApeX / (L T). *SF printed* evaluates Eq. 5.3 or 5.6 as 001 prints",
		"them, with their simplifying assumptions (the B/L-sized primitives take 1/L of the B-sized ones;",
		"Eq. 5.6 counts only the averaging as overhead). The model adds up primitive times as if every",
		"learner had a processor to itself: beyond the processors it predicts more than the host can give."))
	t := newTable("mode", ">L", ">batch/learner", ">GPS", ">speedup", ">range", ">SF measured", ">SF cores allow",
		">GPS model", ">SF model", ">SF printed")
	for _, r := range s.Rows {
		printed := dash
		switch r.Mode {
		case "spo":
			printed = fmt.Sprintf("%.2f (Eq. 5.6)", r.PrintedSF)
		case "data-parallel":
			printed = fmt.Sprintf("%.2f (Eq. 5.3)", r.PrintedSF)
		}
		batch := r.Batch
		if r.Mode == "data-parallel" {
			batch /= r.L // bench.Scaling gives the batch the replay manager samples
		}
		t.add(r.Mode, fmt.Sprint(r.L), fmt.Sprint(batch), num(r.GPS), speedup(r.Speedup),
			fmt.Sprintf("%.2f-%.2f", r.SpeedupMin, r.SpeedupMax), fmt.Sprintf("%.2f", r.MeasuredSF),
			fmt.Sprintf("%.2f", r.CoreBoundSF), num(r.ModelGPS), fmt.Sprintf("%.2f", r.ModelSF), printed)
	}
	b.WriteString(t.String())
	var over []string
	for _, r := range s.Rows {
		// 0.05 of slack: a learner's share of a processor is not exact.
		if r.MeasuredSF > r.CoreBoundSF+0.05 {
			over = append(over, fmt.Sprintf("%s at L = %d", r.Mode, r.L))
		}
	}
	if len(over) > 0 {
		b.WriteString(paragraph(fmt.Sprintf("**The measured SF of %s exceeds what the processors allow:**", strings.Join(over, ", ")),
			"the ApeX run its speedup divides by was slowed, most likely by other load on the host, and the",
			"speedup is too high. Measure again on a quieter host."))
	}
}

// spoPublishedMarkdown writes 001's example beside rlx's rows at the same
// L, and why they may differ.
func spoPublishedMarkdown(b *strings.Builder, d SPOData) {
	b.WriteString("### Published: 001 §5.1.4\n\n")
	p := d.Published
	s := d.Scaling
	b.WriteString(paragraph(
		fmt.Sprintf("001 §5.1.4 gives the scaling of data-parallel ApeX for one network (%s, B = %d): the", p.Network, p.Batch),
		"speedups and scaling factors below, from the seed tables (`scalable_policy_optimization`). They hold",
		"no figure for SPO, which is shown here against the model only."))
	t := newTable(">L", ">001 speedup", ">001 SF", ">rlx data-parallel speedup", ">rlx data-parallel SF measured",
		">rlx data-parallel SF model", ">rlx SPO SF measured", ">rlx SPO SF model")
	sf := func(v float64) string {
		if v == 0 {
			return dash
		}
		return fmt.Sprintf("%.2f", v)
	}
	for _, c := range d.Comparison {
		t.add(fmt.Sprint(c.L), speedup(c.PublishedSpeedup), sf(c.PublishedSF), speedup(c.DataParallelSpeedup),
			sf(c.DataParallelSF), sf(c.DataParallelModelSF), sf(c.SPOSF), sf(c.SPOModelSF))
	}
	b.WriteString(t.String())
	if v := spoVerdict(d.Comparison); v != "" {
		b.WriteString(paragraph(v))
	}
	compute := dash
	if s.ComputeShare > 0 {
		compute = percent(s.ComputeShare)
	}
	b.WriteString(paragraph(
		"Why rlx's scaling factors may differ from 001's. *The machine:* 001's figures come from its own",
		fmt.Sprintf("platform, rlx's from this host with %d processors for Go, so learners beyond them take turns and", s.Host.GOMAXPROCS),
		"*SF cores allow* bounds what it can show. *The network and batch:* rlx's DQN is CleanRL's 120-84 MLP",
		fmt.Sprintf("at B = %d, 001's example a %s at B = %d. What divides across learners is the forward and", s.Batch, p.Network, p.Batch),
		"backward passes; Eq. 5.3 rises with their time over that of the rest (sampling and priority update of",
		fmt.Sprintf("B, transfers, averaging). In rlx's ApeX run the passes took %s of a policy update on this host;", compute),
		"the seed tables do not give 001's primitive times, so which way the network size moves the factor",
		"cannot be read off them. *Transfers:* rlx's learners share memory, so the transfers 001's model",
		"counts cost almost nothing here, which favours rlx. The comparison says whether the same model",
		"explains both, not that the numbers should match."))
}

// spoVerdict says, per published L, whether rlx's measured data-parallel
// scaling factor is above or below 001's; empty when rlx measured none.
func spoVerdict(rows []SPOComparisonRow) string {
	var parts []string
	for _, c := range rows {
		if c.DataParallelSF == 0 || c.PublishedSF == 0 {
			continue
		}
		// Within 0.05 counts as equal: one host run does not repeat closer.
		rel := "about equal to"
		switch d := c.DataParallelSF - c.PublishedSF; {
		case d > 0.05:
			rel = "above"
		case d < -0.05:
			rel = "below"
		}
		parts = append(parts, fmt.Sprintf("at L = %d rlx's data-parallel SF (%.2f) is %s 001's (%.2f)",
			c.L, c.DataParallelSF, rel, c.PublishedSF))
	}
	if len(parts) == 0 {
		return ""
	}
	s := strings.Join(parts, "; ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
