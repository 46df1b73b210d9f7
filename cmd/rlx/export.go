package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/report"
	"github.com/rlxdev/rlx/tui"
)

// liveRun is a run in the explorer: the engine's run, recorded from start
// to end so that the user can export its results at any time (tui.Exporter).
type liveRun struct {
	*engine.Run
	rec    report.Recorder
	outDir string // exports go into a new directory in it
}

var _ interface {
	tui.LiveRun
	tui.Exporter
} = (*liveRun)(nil)

// startEngine returns the explorer's Starter: it starts each run on the
// engine and records it, for an export into a new directory in outDir.
// On error the Starter returns a nil interface, not a nil *liveRun in one.
func startEngine(outDir string) tui.Starter {
	return func(ctx context.Context, cfg engine.Config) (tui.LiveRun, error) {
		r, err := engine.Start(ctx, cfg)
		if err != nil {
			return nil, err
		}
		l := &liveRun{Run: r, outDir: outDir}
		go l.record()
		return l, nil
	}
}

// record adds the run's latest snapshot to its recording at the batch
// mode's rate (report.RecordTick) until the run ends; an export adds the
// snapshot it describes itself (report.Write). It reads Latest, not
// Events, which the explorer reads: the rows are samples of counters and
// rates that only grow or move smoothly, so a snapshot between two reads
// loses nothing the next one does not carry.
func (l *liveRun) record() {
	tick := time.NewTicker(report.RecordTick)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			l.rec.Add(l.Latest())
		case <-l.Done():
			return
		}
	}
}

// Export writes the run's results as rlx --batch does (run.json,
// metrics.csv and the plots) into a new directory in the --out directory,
// named after the run and the time: <name>-YYYYMMDD-HHMMSS, or
// <env>-<algo>-... for a run without a name. run.json describes the latest
// snapshot: the run's state when the user asked, live or ended. It
// returns the directory and the names of the files in it.
func (l *liveRun) Export() (string, []string, error) {
	cfg := l.Config()
	name := cfg.Name
	if name == "" {
		name = fmt.Sprintf("%s-%s", cfg.Env, cfg.Algo)
	}
	dir, err := newExportDir(l.outDir, name, time.Now())
	if err != nil {
		return "", nil, err
	}
	files, err := report.Write(dir, l.Latest(), &l.rec)
	return dir, files, err
}

// newExportDir creates and returns a new directory in parent (created if
// needed) for an export of the run called name at time at:
// <name>-YYYYMMDD-HHMMSS, with -2, -3, ... added when an export of the
// same second holds that name. name is reduced to a slug, as a step's
// directory is (lower-case words joined by dashes, at most 40 characters,
// "run" when nothing is left): it comes from a user's preset.
func newExportDir(parent, name string, at time.Time) (string, error) {
	if parent == "" {
		return "", fmt.Errorf("the output directory is empty: give one with --out")
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("output directory %s cannot be created: %v", parent, err)
	}
	base := slug(name, "run") + "-" + at.Format("20060102-150405")
	const tries = 1000 // exports in one second, far beyond what a key can ask for
	for i := 1; i <= tries; i++ {
		dir := filepath.Join(parent, base)
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", dir, i)
		}
		// Mkdir, not MkdirAll: an existing directory is an earlier
		// export's, which this one must not overwrite.
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("export directory %s cannot be created: %v", dir, err)
		}
	}
	return "", fmt.Errorf("%d exports of %s in one second already in %s", tries, base, parent)
}
