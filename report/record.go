package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/rlxdev/rlx/engine"
)

// Recorder keeps one row of metrics per snapshot of a run.
type Recorder struct {
	rows   []row
	losses []string // loss names, from the first snapshot that has any
	last   uint64   // Seq of the last snapshot recorded
}

type row struct {
	seq                   uint64
	hostS, simS           float64
	env, grad, iters, eps int64
	host, sim             engine.Rates
	ret100, retLast       float64
	staleness             float64
	replayLen             int
	losses                []float64
}

// Add records s, unless it is the snapshot recorded last.
func (r *Recorder) Add(s *engine.Snapshot) {
	if s == nil || (len(r.rows) > 0 && s.Seq == r.last) {
		return
	}
	r.last = s.Seq
	if r.losses == nil && len(s.Learning.Losses) > 0 {
		for _, l := range s.Learning.Losses {
			r.losses = append(r.losses, l.Name)
		}
	}
	w := row{
		seq: s.Seq, hostS: s.HostElapsed.Seconds(), simS: s.SimElapsed,
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
			strconv.FormatUint(x.seq, 10), num(x.hostS), num(x.simS),
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
