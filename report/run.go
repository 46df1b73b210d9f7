package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/atomicfile"
	"github.com/rlxdev/rlx/internal/machine"
)

// Schema versions run.json.
const Schema = "rlx.run/v2"

// Run is the content of run.json. docs/batch.md documents every field.
type Run struct {
	Schema  string        `json:"schema"`
	State   string        `json:"state"`   // finished, stopped or failed
	Partial bool          `json:"partial"` // the run did not reach its budget: stopped or failed
	Error   string        `json:"error,omitempty"`
	Host    machine.Host  `json:"host"`
	Config  engine.Config `json:"config"`
	Mapping Mapping       `json:"mapping"`
	Final   Final         `json:"final"`
	Summary Summary       `json:"summary"`
	Files   []string      `json:"files"`
}

// Mapping is the device mapping of the run and the DSE's prediction for it.
type Mapping struct {
	Requested string `json:"requested"`
	Chosen    string `json:"chosen"`
	// PredictedGPS is the exploration's prediction for the mapping that
	// ran, off-policy, in gradient steps per simulated second;
	// PredictedIPS the same for PPO, in environment steps per simulated
	// second (003). The other is 0.
	PredictedGPS     float64 `json:"predicted_gps"`
	PredictedIPS     float64 `json:"predicted_ips"`
	SecondBest       string  `json:"second_best"`
	SpeedupOver      float64 `json:"speedup_over_second_best"`
	Worst            string  `json:"worst"`
	SpeedupOverWorst float64 `json:"speedup_over_worst"`
	// Watts and GPSPerWatt are the running mapping's modelled power and
	// efficiency (000 §VII-E, docs/models.md); 0 when not modelled.
	Watts      float64             `json:"watts"`
	GPSPerWatt float64             `json:"gps_per_watt"`
	FPGA       engine.FPGAParams   `json:"fpga"`
	Table      []TableRow          `json:"table"`
	All        []engine.MappingGPS `json:"all"`
	Note       string              `json:"note,omitempty"`
}

// Predicted returns the prediction in the run's own unit: IPS for PPO,
// GPS otherwise.
func (m Mapping) Predicted() float64 { return max(m.PredictedGPS, m.PredictedIPS) }

// TableRow is one device of the primitive-platform table (000 §VI-A3).
type TableRow struct {
	Device     string  `json:"device"`
	LearnerTP  float64 `json:"learner_steps_per_s"`
	RMMTP      float64 `json:"rmm_rounds_per_s"`
	LearnerSec float64 `json:"learner_s"`
	RMMSec     float64 `json:"rmm_s"`
}

// Final holds the counters at the end of the run.
type Final struct {
	HostElapsedS float64 `json:"host_elapsed_s"`
	SimElapsedS  float64 `json:"sim_elapsed_s"`
	EnvSteps     int64   `json:"env_steps"`
	GradSteps    int64   `json:"grad_steps"`
	SimGradSteps int64   `json:"sim_grad_steps"` // charged to the simulated clock; trails grad_steps by up to depth
	Iterations   int64   `json:"iterations"`
	Episodes     int64   `json:"episodes"`
	Samples      int64   `json:"samples"`
	GAEElements  int64   `json:"gae_elements"`
}

// Summary holds the run's averages and results.
type Summary struct {
	// Whole-run averages: counters over elapsed time on each clock.
	Host Rates `json:"host"`
	Sim  Rates `json:"sim"`
	// SimRecent is the simulated clock's rates over the last quarter of
	// the run's simulated time, the warm rate mapping.predicted_gps or
	// predicted_ips predicts.
	SimRecent Rates `json:"sim_recent"`
	// Returns of the last 100 episodes; meaningless (and flagged so) for
	// workload environments.
	ReturnsMeaningful bool     `json:"returns_meaningful"`
	ReturnMean100     *float64 `json:"return_mean100"` // null before the first episode
	ReturnLast        *float64 `json:"return_last"`
	ReturnMin         *float64 `json:"return_min"`
	ReturnMax         *float64 `json:"return_max"`
	StalenessMean     float64  `json:"staleness_mean"`
	StalenessMax      int64    `json:"staleness_max"`
	Utilization       []Util   `json:"utilization"` // live units, over the last simulated window
	// Busiest is the live unit with the highest utilization: the one that
	// sets the pace; null before any work is charged.
	Busiest *Util `json:"busiest"`
	// Pipelines are the cycle-level views of one step of the FPGA units
	// the mapping uses, each over its own window.
	Pipelines []Pipeline `json:"pipelines"`
}

// Pipeline is the utilization of the units of one pipelined FPGA unit
// through one step (a gradient step, a batch, a minibatch's forward pass,
// an iteration's GAE).
type Pipeline struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"window_s"`
	Stages  []Util  `json:"stages"` // Device is the pipeline's name
}

// Rates are a clock's rates: whole-run averages, or over the last quarter
// of the run (sim_recent). IPS is PPO's, 0 off-policy.
type Rates struct {
	GPS float64 `json:"gps"`
	SPS float64 `json:"sps"`
	IPS float64 `json:"ips"`
	GAE float64 `json:"gae_per_s"`
}

// Util is the busy fraction of one unit of one device.
type Util struct {
	Device      string  `json:"device"`
	Stage       string  `json:"stage"`
	Utilization float64 `json:"utilization"`
}

// NewMapping is the run.json form of mapping view m: a live run's, or one
// engine.Predict returns (rlx dse on a run's own workload). The view's
// unit says which of PredictedGPS and PredictedIPS its prediction is.
func NewMapping(m engine.MappingView) Mapping {
	r := Mapping{
		Requested: m.Requested, Chosen: m.Chosen,
		SecondBest: m.SecondBest, SpeedupOver: m.SpeedupOver, Worst: m.Worst, SpeedupOverWorst: m.SpeedupOverWorst,
		FPGA: m.FPGA, All: m.All, Note: m.Note, Watts: m.Watts, GPSPerWatt: m.GPSPerWatt,
	}
	if m.Unit == "IPS" {
		r.PredictedIPS = m.PredictedGPS
	} else {
		r.PredictedGPS = m.PredictedGPS
	}
	for _, t := range m.Table {
		r.Table = append(r.Table, TableRow(t))
	}
	return r
}

// NewRun summarizes the final snapshot of a run.
func NewRun(final *engine.Snapshot) Run {
	s := final
	r := Run{
		Schema: Schema, State: s.State.String(), Partial: s.State != engine.Finished, Error: s.Err,
		Host:   machine.Current(),
		Config: s.Config,
		Final: Final{
			HostElapsedS: s.HostElapsed.Seconds(), SimElapsedS: s.SimElapsed,
			EnvSteps: s.Counters.EnvSteps, GradSteps: s.Counters.GradSteps, SimGradSteps: s.SimGradSteps, Iterations: s.Counters.Iterations,
			Episodes: s.Counters.Episodes, Samples: s.Counters.Samples, GAEElements: s.Counters.GAE,
		},
	}
	r.Mapping = NewMapping(s.Mapping)
	host, sim := s.Averages()
	r.Summary.Host, r.Summary.Sim = Rates(host), Rates(sim)
	r.Summary.SimRecent = Rates(s.SimRecent)
	l := s.Learning
	r.Summary.ReturnsMeaningful = l.Meaningful
	if s.Counters.Episodes > 0 {
		r.Summary.ReturnMean100, r.Summary.ReturnLast = &l.Mean100, &l.LastReturn
		r.Summary.ReturnMin, r.Summary.ReturnMax = &l.MinReturn, &l.MaxReturn
	}
	r.Summary.StalenessMean, r.Summary.StalenessMax = s.Replay.MeanStaleness, s.Replay.MaxStaleness
	for _, d := range s.Devices {
		var p *Pipeline
		if d.Pipeline {
			r.Summary.Pipelines = append(r.Summary.Pipelines, Pipeline{Name: d.Name, Seconds: d.To - d.From})
			p = &r.Summary.Pipelines[len(r.Summary.Pipelines)-1]
		}
		for _, st := range d.Stages {
			u := Util{d.Name, st.Name, st.Utilization}
			if p != nil {
				p.Stages = append(p.Stages, u)
			} else {
				r.Summary.Utilization = append(r.Summary.Utilization, u)
			}
		}
	}
	if b := s.Busiest; b.Device != "" {
		r.Summary.Busiest = &Util{b.Device, b.Stage, b.Utilization}
	}
	return r
}

// writeFile writes data to dir/name whole or not at all, for anyone to
// read.
func writeFile(dir, name string, data []byte) error {
	return atomicfile.Write(filepath.Join(dir, name), data, 0o644)
}

// FileNames are the files Write writes into a run's directory, in the
// order their names appear in run.json.
func FileNames() []string {
	return []string{"metrics.csv", "throughput.png", "throughput.svg", "return.png", "return.svg", "occupancy.png", "occupancy.svg", "run.json"}
}

// Write writes run.json, metrics.csv and the plots for a run into dir,
// creating dir if needed, each file atomically. final is the snapshot
// run.json describes: Write adds it to rec, whatever the rows' spacing
// (unless rec holds it already), so that it is the last row of
// metrics.csv and of the plots. rec holds the run's rows, thinned as
// Recorder says. It returns the names of the files written.
//
// run.json, the summary, is written first, so that a disk that fills up
// still keeps it; should a later file fail, run.json is rewritten to list
// only the files that exist.
func Write(dir string, final *engine.Snapshot, rec *Recorder) ([]string, error) {
	if final == nil {
		return nil, fmt.Errorf("report: no snapshot to write")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("report: cannot create output directory %s: %w", dir, err)
	}
	// The files are written from a copy of the rows, so that a live run
	// exported while it records (the explorer's e) is not held up while
	// the plots render and the disk writes.
	rec = rec.withFinal(final)
	run := NewRun(final)
	writeRun := func(files []string) error {
		run.Files = files
		data, err := json.MarshalIndent(run, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(dir, "run.json", append(data, '\n')); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		return nil
	}
	if err := writeRun(FileNames()); err != nil {
		return nil, err
	}
	var files []string
	fail := func(err error) ([]string, error) {
		files = append(files, "run.json")
		_ = writeRun(files) // best effort: the disk may be full
		return files, err
	}
	var csvBuf bytes.Buffer
	if err := rec.writeCSV(&csvBuf); err != nil {
		return fail(err)
	}
	if err := writeFile(dir, "metrics.csv", csvBuf.Bytes()); err != nil {
		return fail(fmt.Errorf("report: %w", err))
	}
	files = append(files, "metrics.csv")
	plots, err := renderPlots(final, rec)
	if err != nil {
		return fail(fmt.Errorf("report: plots: %w", err))
	}
	for _, p := range plots {
		if err := writeFile(dir, p.name, p.data); err != nil {
			return fail(fmt.Errorf("report: %w", err))
		}
		files = append(files, p.name)
	}
	// run.json listed FileNames, which TestWrite holds equal to these.
	return append(files, "run.json"), nil
}
