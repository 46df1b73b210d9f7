package main

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/tui"
)

// testPreset returns the embedded preset called name.
func testPreset(t *testing.T, name string) engine.Preset {
	t.Helper()
	set, err := engine.LoadPresets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := set.Find(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readMetrics parses dir/metrics.csv and returns its rows, header first.
func readMetrics(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("metrics.csv does not parse: %v", err)
	}
	if len(rows) < 2 || rows[0][0] != "seq" {
		t.Fatalf("metrics.csv has no rows under its header: %q", rows)
	}
	return rows
}

// TestExportLiveAndEnded exports a real engine run twice at once while it
// runs, and once after it ended: each export is a directory of its own
// whose run.json and metrics.csv parse, and the last one holds the run's
// last snapshot. Run with -race, it checks that exporting and recording
// share nothing unguarded.
func TestExportLiveAndEnded(t *testing.T) {
	cfg := testPreset(t, "cartpole-dqn-per").Run
	cfg.Steps, cfg.Duration = 0, 30*time.Second // stopped by the test long before
	out := filepath.Join(t.TempDir(), "results")
	lr, err := startEngine(out)(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := lr.(*liveRun)
	defer func() { l.Stop(); <-l.Done() }()
	ex, ok := lr.(tui.Exporter)
	if !ok {
		t.Fatal("the explorer's run is no tui.Exporter")
	}
	// Wait for some rows: the recorder reads the run four times a second.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rows := l.rec.Len()
		if rows >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d rows recorded after 20 s", rows)
		}
	}

	var wg sync.WaitGroup
	dirs := make([]string, 2)
	for i := range dirs {
		wg.Go(func() {
			dir, files, err := ex.Export()
			if err != nil {
				t.Errorf("export %d: %v", i, err)
				return
			}
			if !strings.Contains(strings.Join(files, " "), "metrics.csv") {
				t.Errorf("export %d wrote %q", i, files)
			}
			dirs[i] = dir
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if dirs[0] == dirs[1] {
		t.Fatalf("two exports wrote into one directory %s", dirs[0])
	}
	for _, dir := range dirs {
		if filepath.Dir(dir) != out || !strings.HasPrefix(filepath.Base(dir), "cartpole-dqn-per-") {
			t.Errorf("export directory %s: want cartpole-dqn-per-<time> in %s", dir, out)
		}
		if run := readRun(t, dir); run.State != "running" {
			t.Errorf("%s: run.json state %q, want running", dir, run.State)
		}
		readMetrics(t, dir)
	}

	l.Stop()
	<-l.Done()
	dir, _, err := ex.Export()
	if err != nil {
		t.Fatal(err)
	}
	run := readRun(t, dir)
	final := l.Latest()
	rows := readMetrics(t, dir)
	if run.State != "stopped" || rows[len(rows)-1][0] != strconv.FormatUint(final.Seq, 10) {
		t.Errorf("after the end: run.json state %q, last metrics row seq %s; want stopped and the last snapshot's %d",
			run.State, rows[len(rows)-1][0], final.Seq)
	}
}

// TestExportDir: exports of one run in one second get directories of
// their own; a name from a user's file is made one path element.
func TestExportDir(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "out")
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	var got []string
	for range 3 {
		dir, err := newExportDir(parent, "../my run/é", at)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(dir))
		if filepath.Dir(dir) != parent {
			t.Errorf("%s is not in %s", dir, parent)
		}
	}
	want := []string{"my-run-20260304-050607", "my-run-20260304-050607-2", "my-run-20260304-050607-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("directories %q, want %q", got, want)
	}
	if dir, err := newExportDir(parent, "..", at); err != nil || filepath.Base(dir) != "run-20260304-050607" {
		t.Errorf("name \"..\": %q, %v", dir, err)
	}
	// A long name is cut, as a step's directory is.
	if dir, err := newExportDir(parent, strings.Repeat("walkthrough ", 20), at); err != nil ||
		len(filepath.Base(dir)) > 40+len("-20260304-050607") || !strings.HasPrefix(filepath.Base(dir), "walkthrough-walkthrough-") {
		t.Errorf("a long name: %q, %v", dir, err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newExportDir(file, "x", at); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a file as the output directory: %v", err)
	}
}
