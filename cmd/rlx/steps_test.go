package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/experiment"
	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/report"
)

// readSteps reads steps.json of a headless walkthrough and checks that
// every file it lists exists and every step's run.json is whole.
func readSteps(t *testing.T, dir string) stepsSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "steps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum stepsSummary
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatalf("steps.json does not parse: %v", err)
	}
	if sum.Schema != StepsSchema {
		t.Errorf("schema %q", sum.Schema)
	}
	for _, f := range sum.Files {
		if info, err := os.Stat(filepath.Join(dir, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, s := range sum.Steps {
		readRun(t, filepath.Join(dir, s.Dir))
		checkStepRate(t, dir, s)
	}
	return sum
}

// checkStepRate checks that a step's rate in steps.json, a convenience,
// repeats the figures the step's own run.json on disk gives under the
// names runRate's documentation cites (docs/batch.md), read here by those
// names, not through report.Run.
func checkStepRate(t *testing.T, dir string, s stepSummary) {
	t.Helper()
	var disk struct {
		Config struct {
			Algo string `json:"algo"`
		} `json:"config"`
		Mapping struct {
			PredictedGPS float64 `json:"predicted_gps"`
			PredictedIPS float64 `json:"predicted_ips"`
		} `json:"mapping"`
		Summary struct {
			Sim       map[string]float64 `json:"sim"`
			SimRecent map[string]float64 `json:"sim_recent"`
			Host      map[string]float64 `json:"host"`
		} `json:"summary"`
	}
	data, err := os.ReadFile(filepath.Join(dir, s.Dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &disk); err != nil {
		t.Fatalf("%s/run.json: %v", s.Dir, err)
	}
	unit, key, predicted := "GPS", "gps", disk.Mapping.PredictedGPS
	if disk.Config.Algo == "ppo" {
		unit, key, predicted = "IPS", "ips", disk.Mapping.PredictedIPS
	}
	d := disk.Summary
	if r := s.Rate; r.Unit != unit || r.Predicted != predicted || r.SimWholeRun != d.Sim[key] || r.SimLastQuarter != d.SimRecent[key] || r.HostWholeRun != d.Host[key] {
		t.Errorf("step %d: steps.json's rate %+v; its run.json: algo %s, predicted %v, summary sim %v, sim_recent %v, host %v",
			s.Index, r, disk.Config.Algo, predicted, d.Sim, d.SimRecent, d.Host)
	}
}

func TestWalkthroughHeadless(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "why-kary", "--steps", "11000", "--out", dir}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p := testPreset(t, "why-kary")
	sum := readSteps(t, dir)
	if len(sum.Steps) != len(p.Steps) || sum.Partial || sum.Kind != engine.KindWalkthrough || sum.Report != nil {
		t.Fatalf("steps.json %+v", sum)
	}
	for i, s := range sum.Steps {
		want := p.StepConfig(i)
		if s.Run.Config.Fanout != want.Fanout || s.Run.Final.EnvSteps < 400 || s.Run.State != "finished" {
			t.Errorf("step %d ran %+v with %d steps (%s), want fanout %d", i+1, s.Run.Config, s.Run.Final.EnvSteps, s.Run.State, want.Fanout)
		}
		if !strings.HasPrefix(s.Dir, "0") {
			t.Errorf("step dir %q", s.Dir)
		}
		// steps.json's rate holds the run's figures, each named (and
		// readSteps found them in the step's run.json on disk).
		sm := s.Run.Summary
		if r := s.Rate; r.Unit != "GPS" || r.SimWholeRun != sm.Sim.GPS || r.SimLastQuarter != sm.SimRecent.GPS || r.HostWholeRun != sm.Host.GPS ||
			r.Predicted != s.Run.Mapping.PredictedGPS || r.Predicted <= 0 {
			t.Errorf("step %d: rate %+v; run summary sim %+v, sim_recent %+v, host %+v", i+1, r, sm.Sim, sm.SimRecent, sm.Host)
		}
		// Figures, not zeros: 11,000 steps pass DQN's 10,000 before
		// learning starts.
		if r := s.Rate; r.SimWholeRun <= 0 || r.SimLastQuarter <= 0 || r.HostWholeRun <= 0 {
			t.Errorf("step %d: rate %+v, want every figure above 0", i+1, r)
		}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# why-kary", "## 1. A prefix-sum search", "**Look for:**", "**Measured** (finished", "](01-a-prefix-sum-search/)", "throughput.png"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	if out := stdout.String(); !strings.Contains(out, "why-kary (walkthrough): 5 of 5 steps") || !strings.Contains(out, "wrote "+dir) {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "step 3/5: Sixteen children") {
		t.Errorf("stderr lacks the step header:\n%s", stderr.String())
	}
}

// TestWalkthroughInterrupted: an interrupt during the first step keeps
// what it measured, skips the rest and says the results are partial.
func TestWalkthroughInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout bytes.Buffer
	stderr := &cancelOnWrite{after: "step 1/", cancel: cancel}
	code := run(ctx, []string{"--batch", "--preset", "why-kary", "--duration", "30s", "--out", dir}, &stdout, stderr)
	if code != exitFailure {
		t.Fatalf("exit %d, want %d: %s", code, exitFailure, stderr.String())
	}
	sum := readSteps(t, dir)
	if !sum.Partial || len(sum.Steps) != 1 || sum.Steps[0].Run.State != "stopped" {
		t.Fatalf("steps.json %+v", sum)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	if !bytes.Contains(readme, []byte("**partial**")) || !bytes.Contains(readme, []byte("*Not run.*")) {
		t.Errorf("README.md does not say the results are partial:\n%s", readme)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// cancelOnWrite cancels a context once a line containing after is
// written: a test's Ctrl-C at a known point of the output.
type cancelOnWrite struct {
	bytes.Buffer
	after  string
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.after) {
		w.cancel()
	}
	return w.Buffer.Write(p)
}

// TestEveryStepPresetRunsHeadless runs every embedded walkthrough and
// experiment headless with a few hundred steps and at most a second per
// step, and the reports' quick measurements: they must all finish and
// write their files. (The time limit matters for the workload presets,
// whose learners take a host second per gradient step at B = 16384.)
//
// is-the-model-right runs on the host platform: with none in a fresh
// configuration directory, the command calibrates this machine first.
func TestEveryStepPresetRunsHeadless(t *testing.T) {
	all, err := engine.Presets()
	if err != nil {
		t.Fatal(err)
	}
	testenv.UserConfig(t)
	n, ran := 0, 0
	for _, p := range all {
		if p.Kind == engine.KindRun {
			continue
		}
		n++
		if raceEnabled && p.Name != "gae-hardware" {
			continue // one is enough to race the runner
		}
		ran++
		t.Run(p.Name, func(t *testing.T) {
			if p.Kind == engine.KindExperiment && !knownReport(p.Report) {
				t.Fatalf("experiment %s names report %q: known are %v", p.Name, p.Report, experiment.Names())
			}
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"--batch", "--preset", p.Name, "--steps", "300", "--duration", "1s", "--quick", "--out", dir}, &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			sum := readSteps(t, dir)
			if len(sum.Steps) != len(p.Steps) || sum.Partial {
				t.Errorf("%d of %d steps, partial %v", len(sum.Steps), len(p.Steps), sum.Partial)
			}
			if p.Kind == engine.KindExperiment && (sum.Report == nil || sum.Report.Error != "" || sum.Report.Data == nil) {
				t.Errorf("report %+v", sum.Report)
			}
		})
	}
	if n < 10 {
		t.Errorf("%d walkthroughs and experiments, want at least 10", n)
	}
	if !raceEnabled {
		if _, err := engine.LoadPlatform(engine.HostDevices); err != nil {
			t.Errorf("is-the-model-right left no host platform: %v", err)
		}
	}
	if ran == 0 {
		t.Error("no preset ran: the one the race build runs was renamed")
	}
}

// stepsOf returns a summary of n steps, each an off-policy run that the
// simulated platform ran at 56.5 GPS over the whole run and at 173 over its
// last quarter, titled by title.
func stepsOf(n int, title func(i int) string) stepsSummary {
	sum := stepsSummary{Schema: StepsSchema, Preset: "where-rmm", Kind: engine.KindWalkthrough}
	for i := range n {
		s := &engine.Snapshot{
			State:  engine.Finished,
			Config: engine.Config{Env: "Hopper-workload", Algo: "ddpg", Batch: 16384}.Defaults(),
			// 113 gradient steps in 2 simulated seconds: 56.5 GPS.
			SimElapsed: 2, SimGradSteps: 113, HostElapsed: 20 * time.Second,
			Counters:  engine.Counters{EnvSteps: 25000, GradSteps: 120},
			SimRecent: engine.Rates{GPS: 173},
			Mapping:   engine.MappingView{Requested: "auto", Chosen: "G-F-G", PredictedGPS: 173, Unit: "GPS"},
		}
		run := report.NewRun(s)
		dir := fmt.Sprintf("%02d-step", i+1)
		sum.Steps = append(sum.Steps, stepSummary{Index: i + 1, Title: title(i), Dir: dir, Rate: rateOf(run), Run: run})
	}
	return sum
}

// TestStepsSummaryColumnsAlign prints the summary of twelve steps of
// titles of every length: the mapping, each rate and the state start in
// the same column on every line, from step 10 on too, and each rate is
// under its heading.
func TestStepsSummaryColumnsAlign(t *testing.T) {
	titles := []string{"Let the DSE choose", "Pong, batch 64", "A", "A much longer title than the others have here"}
	sum := stepsOf(12, func(i int) string { return titles[i%len(titles)] })
	var out bytes.Buffer
	writeStepsSummary(&out, engine.Preset{Name: "where-rmm", Kind: engine.KindWalkthrough, Steps: make([]engine.Step, 12)}, sum, "out")
	lines := strings.Split(out.String(), "\n")
	head := lines[1]
	rows := lines[2:14]
	col := func(line string, i int) int { return utf8.RuneCountInString(line[:i]) }
	// Each rate ends where its heading ends (right-aligned under it).
	var headEnds []int
	for _, h := range []string{"predicted", "sim, whole run", "sim, last quarter (steady state)", "host, whole run"} {
		headEnds = append(headEnds, col(head, strings.Index(head, h)+len(h)))
	}
	rate := regexp.MustCompile(`\S+ GPS`)
	for i, row := range rows {
		if got, want := col(row, strings.Index(row, "G-F-G")), col(head, strings.Index(head, "mapping")); got != want {
			t.Errorf("step %d: the mapping starts at %d, its heading at %d:\n%s\n%s", i+1, got, want, head, row)
		}
		if got, want := col(row, strings.LastIndex(row, "finished")), col(head, strings.LastIndex(head, "state")); got != want {
			t.Errorf("step %d: the state starts at %d, its heading at %d:\n%s\n%s", i+1, got, want, head, row)
		}
		var ends []int
		var rates []string
		for _, m := range rate.FindAllStringIndex(row, -1) {
			ends = append(ends, col(row, m[1]))
			rates = append(rates, row[m[0]:m[1]])
		}
		if !slices.Equal(ends, headEnds) {
			t.Errorf("step %d: the rates end at %v, their headings at %v:\n%s\n%s", i+1, ends, headEnds, head, row)
		}
		if want := []string{"173 GPS", "56.5 GPS", "173 GPS", "6.00 GPS"}; !slices.Equal(rates, want) {
			t.Errorf("step %d: rates %q, want %q (predicted, whole run, last quarter, host)", i+1, rates, want)
		}
		if want := fmt.Sprintf("%2d. ", i+1); !strings.HasPrefix(strings.TrimPrefix(row, "  "), want) {
			t.Errorf("step %d: row %q does not start %q", i+1, row, want)
		}
	}
}

// TestStepsReportTheSteadyState checks that README.md and steps.json give
// each step's simulated rate over the whole run and over its last quarter,
// each named: the narrative speaks of the steady state ("the sim rate
// reaching 173"), which the whole-run average, its start included, is not.
func TestStepsReportTheSteadyState(t *testing.T) {
	sum := stepsOf(1, func(int) string { return "Let the DSE choose" })
	p := engine.Preset{Name: "where-rmm", Kind: engine.KindWalkthrough, Steps: []engine.Step{{Title: "Let the DSE choose", Text: "G-F-G."}}}
	readme := stepsMarkdown(p, sum, nil)
	for _, want := range []string{
		"| predicted | sim, whole run | sim, last quarter (steady state) | host, whole run |",
		"| G-F-G | 173 GPS | 56.5 | 173 | 6.00 |",
		"simulated 173 GPS over the last quarter (steady state), 56.5 GPS over the whole run; host 6.00 GPS over the whole run",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q:\n%s", want, readme)
		}
	}
	data, err := json.Marshal(sum.Steps[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"unit":"GPS"`, `"predicted":173`, `"sim_whole_run":56.5`, `"sim_last_quarter":173`, `"host_whole_run":6`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("steps.json's step lacks %s: %s", want, data[:min(len(data), 300)])
		}
	}
}
