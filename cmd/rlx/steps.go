package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/experiment"
	"github.com/rlxdev/rlx/internal/atomicfile"
	"github.com/rlxdev/rlx/internal/machine"
	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/report"
)

// StepsSchema versions steps.json, the summary of a headless walkthrough
// or experiment.
const StepsSchema = "rlx.steps/v1"

// stepsSummary is steps.json: the preset, each step as it ran, and the
// experiment's report.
type stepsSummary struct {
	Schema  string        `json:"schema"`
	Preset  string        `json:"preset"`
	Kind    string        `json:"kind"`
	Partial bool          `json:"partial"` // interrupted, or a step failed
	Steps   []stepSummary `json:"steps"`
	Report  *reportData   `json:"report,omitempty"`
	Files   []string      `json:"files"` // in the output directory, steps.json last
}

// stepSummary is one step of steps.json.
type stepSummary struct {
	Index   int        `json:"index"` // 1-based, as shown
	Title   string     `json:"title"`
	Section string     `json:"section,omitempty"`
	Dir     string     `json:"dir"` // the step's run.json, metrics.csv and plots
	Rate    runRate    `json:"rate"`
	Run     report.Run `json:"run"`
}

// runRate is a run's throughput in its own unit, the figures a step's
// narrative speaks of: the prediction, the whole-run averages and the
// steady state. The whole-run average includes the start, before the
// platform is warm, so a narrative's "the sim rate reaching 173" is the
// steady state's figure, not the average's. It is a convenience of
// steps.json (docs/batch.md): each figure repeats one of the step's
// run.json, picked by the run's unit, so that a reader need not know
// which of gps and ips applies.
type runRate struct {
	Unit      string  `json:"unit"`      // "GPS" off-policy, "IPS" PPO
	Predicted float64 `json:"predicted"` // the exploration's, for the mapping that ran
	// SimWholeRun and HostWholeRun are the averages over the whole run on
	// each clock (run.json's summary.sim and summary.host).
	SimWholeRun float64 `json:"sim_whole_run"`
	// SimLastQuarter is the simulated rate over the last quarter of the
	// run's simulated time, the steady state the prediction is for
	// (run.json's summary.sim_recent).
	SimLastQuarter float64 `json:"sim_last_quarter"`
	HostWholeRun   float64 `json:"host_whole_run"`
}

// reportData is an experiment's comparison in steps.json.
type reportData struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Data  any    `json:"data"`
	Error string `json:"error,omitempty"` // why the report could not be built
}

// runSteps runs the steps of a walkthrough or experiment headless, one
// after the other, each with its own directory under opt.out holding
// run.json, metrics.csv and the plots. Then it writes README.md (the
// narrative with what each step measured, and an experiment's comparison
// with the paper) and steps.json. An interrupt stops the step running,
// keeps what it measured and skips the rest.
func runSteps(ctx context.Context, p engine.Preset, override func(engine.Config) engine.Config, opt batchOptions, stdout, stderr io.Writer) error {
	_, err := runStepsReport(ctx, p, override, opt, stdout, stderr)
	return err
}

// runStepsReport is runSteps returning an experiment's report as well; it
// is nil for a walkthrough and when the report could not be built.
func runStepsReport(ctx context.Context, p engine.Preset, override func(engine.Config) engine.Config, opt batchOptions, stdout, stderr io.Writer) (*experiment.Report, error) {
	if err := checkWritable(opt.out); err != nil {
		return nil, usageError{err}
	}
	if p.Kind == engine.KindExperiment && !knownReport(p.Report) {
		return nil, usagef("experiment %s names report %q: use one of %s", p.Name, p.Report, strings.Join(experiment.Names(), ", "))
	}
	sum := stepsSummary{Schema: StepsSchema, Preset: p.Name, Kind: p.Kind}
	var results []experiment.StepResult
	var stop error
	cfgs := p.StepConfigs() // cfgs[i+1] is step i's: one pass, not one per step
	for i, st := range p.Steps {
		cfg := override(cfgs[i+1])
		cfg.Name = p.Name
		dir := fmt.Sprintf("%02d-%s", i+1, slug(st.Title, "step"))
		if err := os.MkdirAll(filepath.Join(opt.out, dir), 0o755); err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		fmt.Fprintf(stderr, "step %d/%d: %s\n", i+1, len(p.Steps), st.Title)
		o := opt
		o.label = fmt.Sprintf("step %d/%d · ", i+1, len(p.Steps))
		res, err := executeRun(ctx, cfg, filepath.Join(opt.out, dir), o, stderr)
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i+1, st.Title, err)
		}
		run := report.NewRun(res.final)
		run.Files = res.files
		sum.Steps = append(sum.Steps, stepSummary{Index: i + 1, Title: st.Title, Section: st.Section, Dir: dir, Rate: rateOf(run), Run: run})
		results = append(results, experiment.StepResult{Index: i, Title: st.Title, Config: res.final.Config, Final: res.final})
		if stop = res.outcome(filepath.Join(opt.out, dir)); stop != nil {
			sum.Partial = true
			break
		}
	}

	var rep *experiment.Report
	if p.Kind == engine.KindExperiment {
		sum.Report = &reportData{Name: p.Report}
		if stop != nil {
			sum.Report.Error = "not built: the steps did not all finish"
		} else {
			fmt.Fprintf(stderr, "report %s: measuring and comparing\n", p.Report)
			r, err := experiment.Build(ctx, p.Report, results, experiment.Options{Quick: opt.quick,
				Progress: func(line string) { fmt.Fprintln(stderr, "  "+line) }})
			if err != nil {
				sum.Report.Error = err.Error()
				sum.Partial = true
				stop = fmt.Errorf("report %s: %v", p.Report, err)
			} else {
				rep = &r
				sum.Report.Title, sum.Report.Data = r.Title, r.Data
			}
		}
	}

	readme := stepsMarkdown(p, sum, rep)
	if err := atomicfile.Write(filepath.Join(opt.out, "README.md"), []byte(readme), 0o644); err != nil {
		return rep, err
	}
	sum.Files = append(sum.Files, "README.md", "steps.json")
	data, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return rep, err
	}
	if err := atomicfile.Write(filepath.Join(opt.out, "steps.json"), append(data, '\n'), 0o644); err != nil {
		return rep, err
	}
	if opt.asJSON {
		if _, err := stdout.Write(append(data, '\n')); err != nil {
			return rep, err
		}
	} else {
		writeStepsSummary(stdout, p, sum, opt.out)
	}
	if stop != nil {
		return rep, fmt.Errorf("%v; %d of %d steps ran, see %s", stop, len(sum.Steps), len(p.Steps), filepath.Join(opt.out, "README.md"))
	}
	return rep, nil
}

// knownReport reports whether package experiment builds report name.
func knownReport(name string) bool { return slices.Contains(experiment.Names(), name) }

// slug turns a title into a directory name: lower case, words joined by
// dashes, at most 40 characters; fallback when title has no letter or
// digit (a-z, 0-9).
func slug(title, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if b.Len() >= 40 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// rateOf returns a run's rates in its unit: GPS, or IPS for PPO.
func rateOf(r report.Run) runRate {
	if r.Config.Algo.OnPolicy() {
		return runRate{Unit: "IPS", Predicted: r.Mapping.Predicted(),
			SimWholeRun: r.Summary.Sim.IPS, SimLastQuarter: r.Summary.SimRecent.IPS, HostWholeRun: r.Summary.Host.IPS}
	}
	return runRate{Unit: "GPS", Predicted: r.Mapping.Predicted(),
		SimWholeRun: r.Summary.Sim.GPS, SimLastQuarter: r.Summary.SimRecent.GPS, HostWholeRun: r.Summary.Host.GPS}
}

// stepsMarkdown is README.md of a headless walkthrough or experiment: the
// preset's description, each step's narrative beside what it measured, and
// the experiment's comparison.
func stepsMarkdown(p engine.Preset, sum stepsSummary, rep *experiment.Report) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", p.Name)
	fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(p.Summary))
	if d := strings.TrimSpace(p.Description); d != "" {
		fmt.Fprintf(&b, "%s\n\n", d)
	}
	fmt.Fprintf(&b, "Run headless by `rlx --batch --preset %s` on %s (%s); ", p.Name, time.Now().UTC().Format("2006-01-02"), hostLine())
	fmt.Fprintf(&b, "%d of %d steps ran", len(sum.Steps), len(p.Steps))
	if sum.Partial {
		b.WriteString(" and the results are **partial**")
	}
	b.WriteString(". Every rate says its clock: **sim** is the simulated platform, **host** this machine.\n\n")

	if len(sum.Steps) > 0 {
		fmt.Fprintf(&b, "| step | configuration | mapping | predicted | sim, %s | sim, %s | host, %s | busiest unit | return (mean of 100) |\n",
			report.LabelWholeRun, report.LabelLastQuarter, report.LabelWholeRun)
		b.WriteString("|---|---|---|---:|---:|---:|---:|---|---:|\n")
		for _, s := range sum.Steps {
			r := s.Run
			rate := rateOf(r)
			ret := units.Dash
			if r.Summary.ReturnMean100 != nil && r.Summary.ReturnsMeaningful {
				ret = fmt.Sprintf("%.1f", *r.Summary.ReturnMean100)
			}
			busiest := units.Dash
			if u := r.Summary.Busiest; u != nil {
				busiest = fmt.Sprintf("%s %s (%s)", u.Device, u.Stage, units.Percent(u.Utilization, 0))
			}
			fmt.Fprintf(&b, "| [%d. %s](%s/) | %s | %s | %s %s | %s | %s | %s | %s | %s |\n",
				s.Index, s.Title, s.Dir, configLine(r.Config), r.Mapping.Chosen,
				units.SI(rate.Predicted), rate.Unit, units.SI(rate.SimWholeRun), units.SI(rate.SimLastQuarter), units.SI(rate.HostWholeRun), busiest, ret)
		}
		b.WriteString("\n" + report.RatesNote + " Each step's run.json and metrics.csv have the details.\n\n")
	}

	for i, st := range p.Steps {
		fmt.Fprintf(&b, "## %d. %s\n\n", i+1, st.Title)
		if st.Section != "" {
			fmt.Fprintf(&b, "*%s*\n\n", st.Section)
		}
		fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(st.Text))
		if st.Expect != "" {
			fmt.Fprintf(&b, "**Look for:** %s\n\n", strings.TrimSpace(st.Expect))
		}
		if i >= len(sum.Steps) {
			b.WriteString("*Not run.*\n\n")
			continue
		}
		s := sum.Steps[i]
		r := s.Run
		rate := rateOf(r)
		fmt.Fprintf(&b, "**Measured** (%s, %s env steps in %s of host time, %s simulated): mapping %s (requested %s), predicted %s %s; simulated %s %s over the %s, %s %s over the %s; host %s %s over the %s.",
			r.State, units.Count(r.Final.EnvSteps), units.Seconds(r.Final.HostElapsedS), units.Seconds(r.Final.SimElapsedS),
			r.Mapping.Chosen, r.Mapping.Requested, units.SI(rate.Predicted), rate.Unit,
			units.SI(rate.SimLastQuarter), rate.Unit, report.LabelLastQuarter, units.SI(rate.SimWholeRun), rate.Unit, report.LabelWholeRun,
			units.SI(rate.HostWholeRun), rate.Unit, report.LabelWholeRun)
		if u := r.Summary.Busiest; u != nil {
			fmt.Fprintf(&b, " Busiest simulated unit: %s %s, %s busy.", u.Device, u.Stage, units.Percent(u.Utilization, 0))
		}
		b.WriteString("\n\n")
		fmt.Fprintf(&b, "![throughput](%s/throughput.png) ![occupancy](%s/occupancy.png)\n\n", s.Dir, s.Dir)
	}

	if sum.Report != nil {
		title := sum.Report.Title
		if title == "" {
			title = "Comparison: " + sum.Report.Name
		}
		fmt.Fprintf(&b, "## %s\n\n", title)
		switch {
		case rep != nil:
			fmt.Fprintf(&b, "%s\n", strings.TrimSpace(rep.Markdown))
		default:
			fmt.Fprintf(&b, "*The comparison was not built: %s.*\n", sum.Report.Error)
		}
	}
	return b.String()
}

// configLine is the part of a configuration that tells the steps apart.
func configLine(c engine.Config) string {
	parts := []string{c.Env, string(c.Algo)}
	if c.Algo.OnPolicy() {
		parts = append(parts, fmt.Sprintf("N %d T %d", c.Envs, c.Horizon))
		if c.GAE > 1 {
			parts = append(parts, fmt.Sprintf("GAE exp. %d", c.GAE))
		}
	} else {
		parts = append(parts, fmt.Sprintf("B %d K %d D %d", c.Batch, c.Fanout, c.Depth))
		if c.Actors > 1 {
			parts = append(parts, fmt.Sprintf("%d actors", c.Actors))
		}
		if c.Learners > 1 {
			parts = append(parts, fmt.Sprintf("%d learners", c.Learners))
		}
	}
	return strings.Join(parts, " · ")
}

// hostLine names the machine the steps ran on.
func hostLine() string { return machine.Current().String() }

// writeStepsSummary prints a table of the steps, a line each, and where
// the report is. The columns line up whatever the number of steps and the
// length of the titles.
func writeStepsSummary(w io.Writer, p engine.Preset, sum stepsSummary, dir string) {
	fmt.Fprintf(w, "%s (%s): %d of %d steps\n", p.Name, p.Kind, len(sum.Steps), len(p.Steps))
	if len(sum.Steps) > 0 {
		heads := []string{"predicted", "sim, " + report.LabelWholeRun, "sim, " + report.LabelLastQuarter, "host, " + report.LabelWholeRun}
		numW, titleW, mapW := 1, 0, len("mapping")
		for _, s := range sum.Steps {
			numW = max(numW, len(strconv.Itoa(s.Index)))
			titleW = max(titleW, utf8.RuneCountInString(s.Title))
			mapW = max(mapW, utf8.RuneCountInString(s.Run.Mapping.Chosen))
		}
		stepW := numW + 2 + titleW // "12. " less its space, and the title
		fmt.Fprintf(w, "  %-*s  %-*s", stepW, "step", mapW, "mapping")
		for _, h := range heads {
			fmt.Fprintf(w, "  %s", h)
		}
		fmt.Fprintln(w, "  state")
		for _, s := range sum.Steps {
			rate := rateOf(s.Run)
			fmt.Fprintf(w, "  %*d. %-*s  %-*s", numW, s.Index, titleW, s.Title, mapW, s.Run.Mapping.Chosen)
			for i, v := range []float64{rate.Predicted, rate.SimWholeRun, rate.SimLastQuarter, rate.HostWholeRun} {
				fmt.Fprintf(w, "  %*s", len(heads[i]), units.SI(v)+" "+rate.Unit)
			}
			fmt.Fprintf(w, "  %s\n", s.Run.State)
		}
	}
	if r := sum.Report; r != nil {
		if r.Error != "" {
			fmt.Fprintf(w, "report %s: %s\n", r.Name, r.Error)
		} else {
			fmt.Fprintf(w, "report %s: %s\n", r.Name, r.Title)
		}
	}
	fmt.Fprintf(w, "wrote %s: README.md, steps.json and a directory per step\n", dir)
}
