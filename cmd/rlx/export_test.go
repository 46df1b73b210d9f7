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
	p, err := engine.FindPreset("cartpole-dqn-per")
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Run
	cfg.Steps, cfg.Duration = 0, 30*time.Second // stopped by the test long before
	out := filepath.Join(t.TempDir(), "results")
	lr, err := startEngine(out)(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	l := lr.(*liveRun)
	defer func() { l.Stop(); <-l.recorded }()
	ex, ok := lr.(tui.Exporter)
	if !ok {
		t.Fatal("the explorer's run is no tui.Exporter")
	}
	// Wait for some rows: the recorder reads the run four times a second.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		l.rec.mu.Lock()
		rows := l.rec.rows
		l.rec.mu.Unlock()
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
	<-l.recorded
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

// TestExportRecordingIsBounded feeds a recording a day of snapshots at the
// engine's 10 Hz: it keeps its first recordingRows rows whole, then thins,
// about 10,000 rows in all, the last within the spacing of the end; a
// pause is kept wherever it falls.
func TestExportRecordingIsBounded(t *testing.T) {
	const every = 100 * time.Millisecond
	var r recording
	var seq uint64
	snap := func(host time.Duration, st engine.State) *engine.Snapshot {
		seq++
		return &engine.Snapshot{Seq: seq, State: st, HostElapsed: host}
	}
	for host := time.Duration(0); host < recordingRows*every; host += every {
		r.add(snap(host, engine.Running))
	}
	if r.rows != recordingRows {
		t.Fatalf("%d rows of the first %d snapshots", r.rows, recordingRows)
	}
	day := 24 * time.Hour
	for host := recordingRows * every; host < day; host += every {
		st := engine.Running
		if host == day/2 {
			st = engine.Paused
		}
		r.add(snap(host, st))
		if st == engine.Paused && r.seq != seq {
			t.Errorf("the paused snapshot at %v was not kept", host)
		}
	}
	if r.rows > 10*recordingRows {
		t.Errorf("%d rows after a day, want at most %d", r.rows, 10*recordingRows)
	}
	if gap := day - r.host; gap > r.every+every {
		t.Errorf("the last row is %v before the end, more than the spacing %v", gap, r.every)
	}
	// Older or repeated snapshots add nothing.
	rows := r.rows
	r.add(&engine.Snapshot{Seq: r.seq, State: engine.Stopped, HostElapsed: day})
	r.add(&engine.Snapshot{Seq: 1, State: engine.Stopped, HostElapsed: day})
	r.add(nil)
	if r.rows != rows {
		t.Errorf("%d rows after adding old snapshots, want %d", r.rows, rows)
	}
	// The snapshot a report describes is its last row, however close to
	// the row before.
	dir := t.TempDir()
	last := snap(r.host+time.Millisecond, engine.Running)
	if _, err := r.write(dir, last); err != nil {
		t.Fatal(err)
	}
	if m := readMetrics(t, dir); m[len(m)-1][0] != strconv.FormatUint(last.Seq, 10) || len(m) != rows+2 {
		t.Errorf("metrics.csv: %d rows, the last of seq %s; want %d rows, the last of the reported snapshot's %d",
			len(m)-1, m[len(m)-1][0], rows+1, last.Seq)
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
	want := []string{"..-my-run---20260304-050607", "..-my-run---20260304-050607-2", "..-my-run---20260304-050607-3"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("directories %q, want %q", got, want)
	}
	if dir, err := newExportDir(parent, "..", at); err != nil || filepath.Base(dir) != "run-20260304-050607" {
		t.Errorf("name \"..\": %q, %v", dir, err)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := newExportDir(file, "x", at); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a file as the output directory: %v", err)
	}
}
