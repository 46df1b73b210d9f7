package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/experiment"
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
	}
	return sum
}

func TestWalkthroughHeadless(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "why-kary", "--steps", "400", "--out", dir}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p, _ := engine.FindPreset("why-kary")
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
	isolateUserConfig(t)
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
