package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// snapshots returns a plausible sequence of snapshots of an off-policy run
// that ends in state end.
func snapshots(n int, end engine.State) []*engine.Snapshot {
	var out []*engine.Snapshot
	for i := range n {
		s := &engine.Snapshot{
			Seq: uint64(i + 1), State: engine.Running,
			Config:      engine.Config{Env: "CartPole-v1", Algo: "dqn", Batch: 128}.Defaults(),
			HostElapsed: time.Duration(i+1) * 100 * time.Millisecond, SimElapsed: float64(i+1) * 0.01,
			Counters: engine.Counters{EnvSteps: int64(1000 * (i + 1)), GradSteps: int64(100 * (i + 1)), Episodes: int64(i / 2)},
			// The simulated clock is charged up to D steps behind training.
			SimGradSteps: int64(100*(i+1) - 8),
			Host:         engine.Rates{GPS: 1000, SPS: 10000},
			Sim:          engine.Rates{GPS: 9000 + float64(i), SPS: 90000},
			Learning: engine.Learning{Meaningful: true, Mean100: float64(10 * i), LastReturn: float64(12 * i), MinReturn: 9, MaxReturn: float64(20 * i),
				Losses: []engine.Loss{{Name: "td_loss", Value: 1 / float64(i+1)}, {Name: "q_mean", Value: float64(i)}}},
			Replay:    engine.ReplayStats{Len: 100 * i, Cap: 10000, MeanStaleness: 0.5},
			SimRecent: engine.Rates{GPS: 9050, SPS: 90500},
			Mapping:   engine.MappingView{Requested: "auto", Chosen: "F-F-F", Unit: "GPS", PredictedGPS: 9100, Table: []engine.DeviceThroughput{{Device: "CPU", LearnerTP: 100}}},
			Devices: []engine.DeviceView{
				{Name: "FPGA", From: 0, To: 1, Stages: []engine.StageView{{Name: "learner", Utilization: 0.9}, {Name: "RMM", Utilization: 0.2}}},
				{Name: "FPGA RMM samplers (one batch)", To: 2e-6, Pipeline: true, Stages: []engine.StageView{{Name: "banks 0-3", Utilization: 1}}},
			},
			Busiest: engine.Busiest{Device: "FPGA", Stage: "learner", Utilization: 0.9},
		}
		out = append(out, s)
	}
	out[n-1].State = end
	return out
}

// recorded returns the last of snaps, the run's final snapshot, and a
// Recorder given all of them in order.
func recorded(snaps []*engine.Snapshot) (*engine.Snapshot, *Recorder) {
	var rec Recorder
	for _, s := range snaps {
		rec.Add(s)
	}
	return snaps[len(snaps)-1], &rec
}

func TestWrite(t *testing.T) {
	for _, end := range []engine.State{engine.Finished, engine.Stopped} {
		dir := t.TempDir()
		snaps := snapshots(20, end)
		final, rec := recorded(snaps)
		for _, s := range snaps {
			rec.Add(s) // a snapshot recorded already is not recorded again
		}
		files, err := Write(dir, final, rec)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"metrics.csv", "throughput.png", "throughput.svg", "return.png", "return.svg", "occupancy.png", "occupancy.svg", "run.json"}
		if len(files) != len(want) {
			t.Fatalf("files %v, want %v", files, want)
		}
		// run.json lists FileNames before the files are written: they
		// must be the files Write writes.
		if !slices.Equal(files, FileNames()) {
			t.Errorf("Write wrote %v, FileNames says %v", files, FileNames())
		}
		for _, f := range want {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || len(data) == 0 {
				t.Fatalf("%s: %v (%d bytes)", f, err, len(data))
			}
			switch filepath.Ext(f) {
			case ".png":
				if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
					t.Errorf("%s is not a PNG", f)
				}
			case ".svg":
				if err := xml.Unmarshal(data, new(struct{ XMLName xml.Name })); err != nil {
					t.Errorf("%s is not XML: %v", f, err)
				}
			}
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != len(want) {
			t.Errorf("the directory holds %d entries, want %d (a temporary file left behind?)", len(entries), len(want))
		}

		var run Run
		data, _ := os.ReadFile(filepath.Join(dir, "run.json"))
		if err := json.Unmarshal(data, &run); err != nil {
			t.Fatal(err)
		}
		if run.Schema != Schema || run.Partial != (end != engine.Finished) || run.State != end.String() {
			t.Errorf("run.json header: schema %q, state %q, partial %v", run.Schema, run.State, run.Partial)
		}
		if run.Final.GradSteps != 2000 || math.Abs(run.Summary.Host.GPS-1000) > 1e-9 || run.Final.SimGradSteps != 1992 || math.Abs(run.Summary.Sim.GPS-1992/0.2) > 1e-6 {
			t.Errorf("final %+v, summary %+v", run.Final, run.Summary)
		}
		if run.Mapping.Chosen != "F-F-F" || len(run.Summary.Utilization) != 2 || run.Summary.ReturnMean100 == nil || *run.Summary.ReturnMean100 != 190 {
			t.Errorf("mapping %+v, summary %+v", run.Mapping, run.Summary)
		}
		// The one-batch pipeline is reported apart from the live units.
		if p := run.Summary.Pipelines; len(p) != 1 || p[0].Seconds != 2e-6 || len(p[0].Stages) != 1 || p[0].Stages[0].Stage != "banks 0-3" {
			t.Errorf("pipelines %+v", p)
		}
		if b := run.Summary.Busiest; b == nil || b.Device != "FPGA" || b.Stage != "learner" || b.Utilization != 0.9 {
			t.Errorf("busiest %+v", b)
		}

		f, _ := os.Open(filepath.Join(dir, "metrics.csv"))
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 21 || len(rows[0]) != len(columns)+2 || rows[0][len(columns)] != "loss_td_loss" {
			t.Fatalf("metrics.csv: %d rows, header %v", len(rows), rows[0])
		}
		// No episode in the first two snapshots: the return cells are empty.
		if rows[1][15] != "" || rows[3][15] != "20" {
			t.Errorf("return column: %q, %q", rows[1][15], rows[3][15])
		}
	}
}

func TestWriteErrors(t *testing.T) {
	if _, err := Write(t.TempDir(), nil, &Recorder{}); err == nil {
		t.Error("Write without a snapshot succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Write(filepath.Join(file, "sub"), snapshots(2, engine.Finished)[1], &Recorder{}); err == nil {
		t.Error("Write into a path under a regular file succeeded")
	}
}

// TestNewRunRates checks that run.json counts every clock's rates as the
// engine does, IPS for PPO only, and puts the prediction under its own
// unit's name.
func TestNewRunRates(t *testing.T) {
	off := snapshots(2, engine.Finished)[1] // SimRecent {GPS: 9050, SPS: 90500}
	r := NewRun(off)
	if r.Summary.Host.IPS != 0 || r.Summary.Sim.IPS != 0 || r.Summary.SimRecent != (Rates{GPS: 9050, SPS: 90500}) {
		t.Errorf("off-policy rates: host %+v, sim %+v, sim_recent %+v; want no IPS and the engine's recent rates", r.Summary.Host, r.Summary.Sim, r.Summary.SimRecent)
	}
	if m := r.Mapping; m.PredictedGPS != 9100 || m.PredictedIPS != 0 || m.Predicted() != 9100 {
		t.Errorf("off-policy prediction: gps %v, ips %v", m.PredictedGPS, m.PredictedIPS)
	}

	ppo := *off
	ppo.Config = engine.Config{Env: "CartPole-v1", Algo: "ppo"}.Defaults()
	ppo.Mapping.Unit, ppo.Mapping.PredictedGPS = "IPS", 48000
	ppo.SimRecent = engine.Rates{GPS: 240, SPS: 52000, IPS: 52000}
	r = NewRun(&ppo)
	if s := r.Summary; s.Sim.IPS != s.Sim.SPS || s.Host.IPS != s.Host.SPS || s.Sim.IPS <= 0 || s.SimRecent.IPS != 52000 {
		t.Errorf("PPO rates: host %+v, sim %+v, sim_recent %+v; want IPS as SPS", s.Host, s.Sim, s.SimRecent)
	}
	if m := r.Mapping; m.PredictedGPS != 0 || m.PredictedIPS != 48000 || m.Predicted() != 48000 {
		t.Errorf("PPO prediction: gps %v, ips %v", m.PredictedGPS, m.PredictedIPS)
	}
}

// A PPO run reports its first losses after its first update: the rows
// before it still have every column, empty where there is no loss, or
// strict CSV readers reject the file.
func TestCSVRowsBeforeTheFirstLoss(t *testing.T) {
	snaps := snapshots(6, engine.Finished)
	for _, s := range snaps[:3] {
		s.Learning.Losses = nil
	}
	_, rec := recorded(snaps)
	var buf bytes.Buffer
	if err := rec.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatalf("metrics.csv does not parse: %v", err)
	}
	if len(rows) != 7 || len(rows[0]) != len(columns)+2 {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	if rows[1][len(columns)] != "" || rows[4][len(columns)] != "0.25" {
		t.Errorf("loss_td_loss cells: before the first loss %q, after %q", rows[1][len(columns)], rows[4][len(columns)])
	}
}

// run.json is written first: when a later file cannot be written (here a
// directory stands where metrics.csv goes; a full disk does the same),
// the summary is still there, listing only the files that exist.
func TestWriteKeepsTheSummaryWhenAFileFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "metrics.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	final, rec := recorded(snapshots(3, engine.Finished))
	if _, err := Write(dir, final, rec); err == nil {
		t.Fatal("Write succeeded with a directory in the place of metrics.csv")
	}
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatalf("no run.json: %v", err)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Files) != 1 || run.Files[0] != "run.json" || run.Final.GradSteps != 300 {
		t.Errorf("run.json files %v, final %+v", run.Files, run.Final)
	}
}

// TestRecorderIsBounded feeds a Recorder a day of snapshots at the
// engine's 10 Hz: it keeps its first thinAfter rows whole, then thins,
// about 10,000 rows in all, the last within the spacing of the end; a
// pause is kept wherever it falls.
func TestRecorderIsBounded(t *testing.T) {
	const every = 100 * time.Millisecond
	var r Recorder
	var seq uint64
	snap := func(host time.Duration, st engine.State) *engine.Snapshot {
		seq++
		return &engine.Snapshot{Seq: seq, State: st, HostElapsed: host}
	}
	lastHost := func() time.Duration { return r.rows[len(r.rows)-1].hostElapsed }
	for host := time.Duration(0); host < thinAfter*every; host += every {
		r.Add(snap(host, engine.Running))
	}
	if r.Len() != thinAfter {
		t.Fatalf("%d rows of the first %d snapshots", r.Len(), thinAfter)
	}
	day := 24 * time.Hour
	for host := thinAfter * every; host < day; host += every {
		st := engine.Running
		if host == day/2 {
			st = engine.Paused
		}
		r.Add(snap(host, st))
		if st == engine.Paused && r.rows[len(r.rows)-1].seq != seq {
			t.Errorf("the paused snapshot at %v was not kept", host)
		}
	}
	if r.Len() > 10*thinAfter {
		t.Errorf("%d rows after a day, want at most %d", r.Len(), 10*thinAfter)
	}
	if gap := day - lastHost(); gap > r.every+every {
		t.Errorf("the last row is %v before the end, more than the spacing %v", gap, r.every)
	}
	// Older or repeated snapshots add nothing.
	rows := r.Len()
	r.Add(&engine.Snapshot{Seq: r.rows[len(r.rows)-1].seq, State: engine.Stopped, HostElapsed: day})
	r.Add(&engine.Snapshot{Seq: 1, State: engine.Stopped, HostElapsed: day})
	r.Add(nil)
	if r.Len() != rows {
		t.Errorf("%d rows after adding old snapshots, want %d", r.Len(), rows)
	}
	// The snapshot a report describes is its last row, however close to
	// the row before.
	dir := t.TempDir()
	last := snap(lastHost()+time.Millisecond, engine.Running)
	if _, err := Write(dir, last, &r); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "metrics.csv"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatalf("metrics.csv does not parse: %v", err)
	}
	if m[len(m)-1][0] != strconv.FormatUint(last.Seq, 10) || len(m) != rows+2 {
		t.Errorf("metrics.csv: %d rows, the last of seq %s; want %d rows, the last of the reported snapshot's %d",
			len(m)-1, m[len(m)-1][0], rows+1, last.Seq)
	}
}
