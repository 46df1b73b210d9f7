package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/report"
)

// defaultBatchDuration bounds a headless run whose preset and flags set no
// budget.
const defaultBatchDuration = time.Minute

// batchOptions are the flags of a headless run.
type batchOptions struct {
	out      string
	asJSON   bool
	progress time.Duration // between progress lines when stderr is not a terminal; 0 for none
	quick    bool          // experiments: shorten the reports' own host measurements
	label    string        // before each progress line, e.g. "step 2/5 · "
}

// runBatch runs cfg without a terminal UI and writes run.json, metrics.csv
// and the plots into opt.out. It prints progress to stderr and the summary
// (or JSON) to stdout. If ctx is cancelled (Ctrl-C, SIGTERM) it stops the
// run, writes what it measured and returns an error saying so.
func runBatch(ctx context.Context, cfg engine.Config, opt batchOptions, stdout, stderr io.Writer) error {
	if err := checkWritable(opt.out); err != nil {
		return usageError{err}
	}
	if err := checkRunDir(opt.out, stderr); err != nil {
		return usageError{err}
	}
	res, err := executeRun(ctx, cfg, opt.out, opt, stderr)
	if err != nil {
		return err
	}
	if opt.asJSON {
		run := report.NewRun(res.final)
		run.Files = res.files
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(run); err != nil {
			return err
		}
	} else {
		writeSummary(stdout, res.final, opt.out, res.files)
	}
	return res.outcome(opt.out)
}

// executed is one headless run's outcome.
type executed struct {
	final       *engine.Snapshot // its Config is the one run, budget included
	files       []string         // written into the run's directory
	interrupted bool             // ctx was cancelled: the run was stopped early
	runErr      error            // the run itself failed
}

// outcome is the error the command returns for the run: nil if it reached
// its budget.
func (e *executed) outcome(dir string) error {
	switch {
	case e.interrupted:
		return fmt.Errorf("interrupted: the results in %s are partial (%s)", dir, reached(e.final))
	case e.runErr != nil:
		return fmt.Errorf("the run failed: %v (partial results in %s)", e.runErr, dir)
	}
	return nil
}

// executeRun runs cfg on the engine, shows progress on stderr and writes
// run.json, metrics.csv and the plots into dir, which must be writable. If
// ctx is cancelled (Ctrl-C, SIGTERM) it stops the run and writes what it
// measured. The error is for what could not be started or written; a run
// that failed or was interrupted is in the result.
func executeRun(ctx context.Context, cfg engine.Config, dir string, opt batchOptions, stderr io.Writer) (*executed, error) {
	if cfg.Steps == 0 && cfg.Duration == 0 {
		cfg.Duration = defaultBatchDuration
		fmt.Fprintf(stderr, "rlx: no --steps or --duration and none in the preset: running for %v\n", cfg.Duration)
	}
	// The run gets its own context: an interrupt stops it through Stop, so
	// that its last snapshot is complete and marked stopped.
	r, err := engine.Start(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, usageError{err}
	}
	res := &executed{}
	var rec report.Recorder
	p := newProgress(stderr)
	tick := time.NewTicker(report.RecordTick)
	defer tick.Stop()
	lastLine := time.Now()
	events := r.Events()
	done := ctx.Done()
loop:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break loop
			}
			rec.Add(e.Snapshot)
		case <-tick.C:
			s := r.Latest()
			rec.Add(s)
			if p.live || (opt.progress > 0 && time.Since(lastLine) >= opt.progress) {
				p.line(opt.label + progressLine(s))
				lastLine = time.Now()
			}
		case <-done:
			res.interrupted = true
			r.Stop()
			done = nil // then wait for the run's last event
		}
	}
	p.end()
	res.final, res.runErr = r.Wait()
	if res.files, err = report.Write(dir, res.final, &rec); err != nil {
		return nil, err
	}
	return res, nil
}

// checkRunDir checks, before a run, that nothing stands where its files
// go (a directory called run.json would fail the run only at its end),
// and says when dir holds the summary of an earlier walkthrough or
// experiment, which this run's files do not replace.
func checkRunDir(dir string, stderr io.Writer) error {
	for _, name := range report.FileNames() {
		if info, err := os.Lstat(filepath.Join(dir, name)); err == nil && !info.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file: a run writes its %s there; move it or choose another --out", filepath.Join(dir, name), name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "steps.json")); err == nil {
		fmt.Fprintf(stderr, "rlx: %s holds steps.json of an earlier walkthrough or experiment: it stays beside this run's files\n", dir)
	}
	return nil
}

// checkWritable makes sure dir exists (creating it) and can take files.
func checkWritable(dir string) error {
	if dir == "" {
		return fmt.Errorf("the output directory is empty: give one with --out")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory %s cannot be created: %v", dir, err)
	}
	f, err := os.CreateTemp(dir, ".rlx-write-check*")
	if err != nil {
		return fmt.Errorf("output directory %s cannot be written: %v", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine is one line of progress: steps, rates on both clocks, return.
func progressLine(s *engine.Snapshot) string {
	c := s.Counters
	rate, unit := s.Host.GPS, "GPS"
	sim := s.Sim.GPS
	if s.Config.Algo.OnPolicy() {
		rate, sim, unit = s.Host.IPS, s.Sim.IPS, "IPS"
	}
	line := fmt.Sprintf("%s %s steps · %s grad steps · host %s %s · sim %s %s (%s)",
		units.Duration(s.HostElapsed), units.Count(c.EnvSteps), units.Count(c.GradSteps),
		units.SI(rate), unit, units.SI(sim), unit, s.Mapping.Chosen)
	if c.Episodes > 0 {
		line += fmt.Sprintf(" · return %.1f", s.Learning.Mean100)
	}
	return line
}

// writeSummary prints the final figures for people.
func writeSummary(w io.Writer, s *engine.Snapshot, dir string, files []string) {
	c := s.Counters
	fmt.Fprintf(w, "%s %s: %s, %s env steps, %s gradient steps, %s episodes\n",
		s.Config.Env, s.Config.Algo, s.State, units.Count(c.EnvSteps), units.Count(c.GradSteps), units.Count(c.Episodes))
	rate := rateOf(report.NewRun(s))
	fmt.Fprintf(w, "mapping %s (requested %s), predicted %s %s\n", s.Mapping.Chosen, s.Mapping.Requested, units.SI(rate.Predicted), rate.Unit)
	fmt.Fprintf(w, "throughput, %s: host %s %s over %s, simulated %s %s over %s\n", report.LabelWholeRun,
		units.SI(rate.HostWholeRun), rate.Unit, units.Seconds(s.HostElapsed.Seconds()), units.SI(rate.SimWholeRun), rate.Unit, units.Seconds(s.SimElapsed))
	fmt.Fprintf(w, "throughput, %s: simulated %s %s\n", report.LabelLastQuarter, units.SI(rate.SimLastQuarter), rate.Unit)
	if b := s.Busiest; b.Device != "" {
		fmt.Fprintf(w, "busiest simulated unit at the end: %s\n", b)
	}
	if c.Episodes > 0 {
		note := ""
		if !s.Learning.Meaningful {
			note = " (a workload environment: returns mean nothing)"
		}
		fmt.Fprintf(w, "return: mean of the last 100 episodes %.1f, last %.1f%s\n", s.Learning.Mean100, s.Learning.LastReturn, note)
	}
	fmt.Fprintf(w, "wrote %s: %s\n", dir, strings.Join(files, ", "))
}

// reached says how far a stopped run got, in the terms of its budget:
// "1.2M of 5M steps", "1.2M steps in 3.1s of 20s".
func reached(s *engine.Snapshot) string {
	steps, cfg := units.Count(s.Counters.EnvSteps), s.Config
	switch {
	case cfg.Steps > 0:
		return fmt.Sprintf("%s of %s steps", steps, units.Count(cfg.Steps))
	case cfg.Duration > 0:
		return fmt.Sprintf("%s steps in %s of %s", steps, units.Duration(s.HostElapsed), cfg.Duration)
	}
	return fmt.Sprintf("%s steps in %s, no budget", steps, units.Duration(s.HostElapsed))
}
