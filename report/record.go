package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// Rows of a run's metrics.csv. A run of hours would keep a row per
// snapshot, four a second, without bound: a Recorder keeps every snapshot
// it is given for its first thinAfter rows, then at least RecordTick of
// host time between rows, doubling that spacing after each further
// thinAfter rows. Its rows grow with the logarithm of the run's length:
// about 9,500 rows (some 2 MB) after a day. Snapshots that change the
// run's state (starting, paused, ended) are always kept.
const (
	thinAfter = 1024
	// RecordTick is how often a run's recorder is given its latest
	// snapshot (rlx --batch, the explorer's export), and the least
	// spacing of its rows once it thins them.
	RecordTick = time.Second / 4
)

// Recorder keeps the rows of metrics of a run, one per snapshot it is
// given until it thins them (thinAfter), so that its memory stays small
// however long the run goes on. The zero value is ready to use; it is
// safe for concurrent use: a run's snapshots may be added while its
// report is written. A Recorder must not be copied after first use.
type Recorder struct {
	mu     sync.Mutex
	rows   []row
	losses []string      // loss names, from the first snapshot that has any
	every  time.Duration // the least host time between rows now
}

type row struct {
	seq                   uint64
	hostElapsed           time.Duration
	simS                  float64
	env, grad, iters, eps int64
	host, sim             engine.Rates
	ret100, retLast       float64
	staleness             float64
	replayLen             int
	losses                []float64
}

// Add records s, unless it is no newer (by Seq) than the last row, or it
// comes within the rows' spacing (every, which doubles each thinAfter
// rows) without changing the run's state. A nil s is ignored.
func (r *Recorder) Add(s *engine.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(s, s != nil && s.State != engine.Running)
}

// Len returns the number of rows recorded so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.rows)
}

// withFinal adds final to r, whatever the rows' spacing, and returns a
// Recorder of r's rows as they are now, for writing while r goes on:
// rows are only ever appended, and the view's capacity ends at its length,
// so later Adds cannot reach what it holds.
func (r *Recorder) withFinal(final *engine.Snapshot) *Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(final, true)
	n := len(r.rows)
	return &Recorder{rows: r.rows[:n:n], losses: r.losses, every: r.every}
}

// add is Add with r.mu held; keep records s whatever the spacing.
func (r *Recorder) add(s *engine.Snapshot, keep bool) {
	if s == nil {
		return
	}
	if n := len(r.rows); n > 0 && (s.Seq <= r.rows[n-1].seq || !keep && s.HostElapsed-r.rows[n-1].hostElapsed < r.every) {
		return
	}
	if r.losses == nil && len(s.Learning.Losses) > 0 {
		for _, l := range s.Learning.Losses {
			r.losses = append(r.losses, l.Name)
		}
	}
	w := row{
		seq: s.Seq, hostElapsed: s.HostElapsed, simS: s.SimElapsed,
		env: s.Counters.EnvSteps, grad: s.Counters.GradSteps, iters: s.Counters.Iterations, eps: s.Counters.Episodes,
		host: s.Host, sim: s.Sim,
		ret100: math.NaN(), retLast: math.NaN(),
		staleness: s.Replay.MeanStaleness, replayLen: s.Replay.Len,
	}
	if s.Counters.Episodes > 0 {
		w.ret100, w.retLast = s.Learning.Mean100, s.Learning.LastReturn
	}
	for _, name := range r.losses {
		v := math.NaN()
		for _, l := range s.Learning.Losses {
			if l.Name == name {
				v = l.Value
			}
		}
		w.losses = append(w.losses, v)
	}
	r.rows = append(r.rows, w)
	if len(r.rows)%thinAfter == 0 {
		r.every = max(2*r.every, RecordTick)
	}
}

// columns are the fixed columns of metrics.csv; docs/batch.md documents them.
var columns = []string{
	"seq", "host_s", "sim_s", "env_steps", "grad_steps", "iterations", "episodes",
	"host_gps", "sim_gps", "host_sps", "sim_sps", "host_ips", "sim_ips", "host_gae_per_s", "sim_gae_per_s",
	"return_mean100", "return_last", "staleness_mean", "replay_len",
}

// WriteCSV writes the rows as CSV with a header: the fixed columns, then one
// column per loss ("loss_" and its name). Missing values are empty.
func (r *Recorder) WriteCSV(w io.Writer) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writeCSV(w)
}

// writeCSV is WriteCSV with r.mu held.
func (r *Recorder) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := append([]string(nil), columns...)
	for _, l := range r.losses {
		header = append(header, "loss_"+l)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, x := range r.rows {
		rec := []string{
			strconv.FormatUint(x.seq, 10), num(x.hostElapsed.Seconds()), num(x.simS),
			fmt.Sprint(x.env), fmt.Sprint(x.grad), fmt.Sprint(x.iters), fmt.Sprint(x.eps),
			num(x.host.GPS), num(x.sim.GPS), num(x.host.SPS), num(x.sim.SPS), num(x.host.IPS), num(x.sim.IPS),
			num(x.host.GAE), num(x.sim.GAE), num(x.ret100), num(x.retLast), num(x.staleness), fmt.Sprint(x.replayLen),
		}
		// Rows recorded before the first loss report have no losses:
		// they still get every column, empty, so that strict CSV readers
		// accept the file.
		for i := range r.losses {
			v := math.NaN()
			if i < len(x.losses) {
				v = x.losses[i]
			}
			rec = append(rec, num(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// num formats a float compactly; NaN and infinities as empty cells.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 8, 64)
}
