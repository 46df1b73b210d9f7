package main

import (
	"sync"
	"time"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/report"
)

// Rows of a run's metrics.csv. A run of hours would keep a row per
// snapshot read, four a second, without bound; a recording keeps every
// snapshot it is given for its first recordingRows rows, then at least
// recordingTick of host time between rows, doubling that spacing after
// each further recordingRows rows. Its rows grow with the logarithm of the
// run's length: about 9,500 rows (some 2 MB) after a day.
const (
	recordingRows = 1024
	recordingTick = time.Second / 4
)

// recording collects the metrics rows of one run for its report: a
// report.Recorder given the run's snapshots, thinned (recordingRows) so
// that its memory stays small however long the run goes on. Snapshots
// that change the run's state (starting, paused, ended) are always kept.
// It is safe for concurrent use: a run's snapshots may be added while its
// report is written.
type recording struct {
	mu    sync.Mutex
	rec   report.Recorder
	rows  int
	seq   uint64        // Seq of the last row
	host  time.Duration // HostElapsed of the last row
	every time.Duration // the least host time between rows now
}

// add records s, unless it is no newer than the last row or comes within
// the spacing of the rows (recordingRows) without changing the run's
// state. A nil s is ignored.
func (r *recording) add(s *engine.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(s, s != nil && s.State != engine.Running)
}

func (r *recording) addLocked(s *engine.Snapshot, keep bool) {
	if s == nil || (r.rows > 0 && s.Seq <= r.seq) {
		return
	}
	if !keep && r.rows > 0 && s.HostElapsed-r.host < r.every {
		return
	}
	r.rec.Add(s)
	r.rows++
	r.seq, r.host = s.Seq, s.HostElapsed
	if r.rows%recordingRows == 0 {
		r.every = max(2*r.every, recordingTick)
	}
}

// write records final, whatever the spacing, and writes the report of the
// run into dir (report.Write): run.json of final, metrics.csv of the rows
// and the plots. It returns the names of the files written.
func (r *recording) write(dir string, final *engine.Snapshot) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(final, true)
	return report.Write(dir, final, &r.rec)
}
