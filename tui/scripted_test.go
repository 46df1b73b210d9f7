package tui

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlxdev/rlx/engine"
)

// scriptedRun stands in for *engine.Run: it publishes hand-built snapshots
// and answers the control calls the way the engine's contract says (events
// in order, the channel closed after the last one), recording every call.
type scriptedRun struct {
	latest atomic.Pointer[engine.Snapshot]
	events chan engine.Event
	done   chan struct{}

	// advancing makes every read of a running run's Latest publish the next
	// snapshot, as a training run does between two of the explorer's ticks.
	advancing bool
	pubMu     sync.Mutex // publish's read-modify-write

	mu       sync.Mutex
	pauses   int
	resumes  int
	mappings []string
	stopOnce sync.Once
}

func newScriptedRun(s *engine.Snapshot) *scriptedRun {
	r := &scriptedRun{events: make(chan engine.Event, 256), done: make(chan struct{})}
	r.latest.Store(s)
	r.events <- engine.Event{Kind: engine.EventStarted, Snapshot: s}
	return r
}

func (r *scriptedRun) Events() <-chan engine.Event { return r.events }
func (r *scriptedRun) Done() <-chan struct{}       { return r.done }

func (r *scriptedRun) Latest() *engine.Snapshot {
	if r.advancing && r.latest.Load().State == engine.Running {
		return r.publish(func(s *engine.Snapshot) {
			s.Counters.EnvSteps += 1000
			s.Counters.GradSteps++
		})
	}
	return r.latest.Load()
}

// publish stores a copy of the latest snapshot changed by edit, with the
// next sequence number.
func (r *scriptedRun) publish(edit func(*engine.Snapshot)) *engine.Snapshot {
	r.pubMu.Lock()
	defer r.pubMu.Unlock()
	s := *r.latest.Load()
	s.Seq++
	edit(&s)
	r.latest.Store(&s)
	return &s
}

func (r *scriptedRun) Pause() {
	r.mu.Lock()
	r.pauses++
	r.mu.Unlock()
	s := r.publish(func(s *engine.Snapshot) { s.State = engine.Paused })
	r.events <- engine.Event{Kind: engine.EventPaused, Snapshot: s}
}

func (r *scriptedRun) Resume() {
	r.mu.Lock()
	r.resumes++
	r.mu.Unlock()
	s := r.publish(func(s *engine.Snapshot) { s.State = engine.Running })
	r.events <- engine.Event{Kind: engine.EventResumed, Snapshot: s}
}

func (r *scriptedRun) SetMapping(m engine.Mapping) {
	r.mu.Lock()
	r.mappings = append(r.mappings, m.String())
	r.mu.Unlock()
	s := r.publish(func(s *engine.Snapshot) {
		s.Mapping.Requested = m.String()
		from, before := s.Mapping.Chosen, s.Mapping.PredictedGPS
		if !m.Auto() {
			choose(&s.Mapping, m.String())
		}
		s.Counters.GradSteps += 10
		if s.Mapping.Chosen != from {
			s.History = switchedHistory(s.History, from, s.Mapping.Chosen, before, s.Mapping.PredictedGPS)
			s.Sim.GPS *= s.Mapping.PredictedGPS / before
			s.Sim.IPS *= s.Mapping.PredictedGPS / before
		}
	})
	r.events <- engine.Event{Kind: engine.EventMappingChanged, Snapshot: s, Text: s.Mapping.Chosen}
}

// switchedHistory is h as the engine would have recorded it had the
// mapping switched from one prediction to the other a quarter of the
// history ago: a mark there, and the prediction and the simulated rate
// moving with the mapping from then on. h's slices are not modified; the
// snapshots that share them are published.
func switchedHistory(h engine.History, from, to string, before, after float64) engine.History {
	if len(h.SimRate) == 0 || len(h.Predicted) != len(h.SimRate) {
		return h // nothing recorded to place the switch in
	}
	at := len(h.SimRate) * 3 / 4
	h.SimRate = slices.Clone(h.SimRate)
	h.Predicted = slices.Clone(h.Predicted)
	for i := at; i < len(h.SimRate); i++ {
		h.SimRate[i] *= after / before
		h.Predicted[i] = after
	}
	h.Switches = append(slices.Clip(h.Switches), engine.MappingSwitch{SimTime: h.SimTime[at], HostTime: h.HostTime[at], From: from, To: to})
	return h
}

// choose makes mapping name the running one as the engine does: its own
// prediction, and its speedups over the best and the worst of the others.
func choose(v *engine.MappingView, name string) {
	v.Chosen = name
	var others []engine.MappingGPS
	for _, a := range v.All { // best first
		if a.Mapping == name {
			v.PredictedGPS, v.Watts, v.GPSPerWatt = a.GPS, a.Watts, a.GPSPerWatt
		} else {
			others = append(others, a)
		}
	}
	if len(others) > 0 {
		second, worst := others[0], others[0]
		for _, o := range others {
			if o.GPS < worst.GPS { // the first of equals, as core/dse
				worst = o
			}
		}
		v.SecondBest, v.SpeedupOver = second.Mapping, v.PredictedGPS/second.GPS
		v.Worst, v.SpeedupOverWorst = worst.Mapping, v.PredictedGPS/worst.GPS
	}
}

func (r *scriptedRun) Stop() {
	r.stopOnce.Do(func() {
		s := r.publish(func(s *engine.Snapshot) { s.State = engine.Stopped })
		r.events <- engine.Event{Kind: engine.EventStopped, Snapshot: s}
		close(r.events)
		close(r.done)
	})
}

func (r *scriptedRun) calls() (pauses, resumes int, mappings []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pauses, r.resumes, slices.Clone(r.mappings)
}

// scriptedStarter starts scripted runs of hand-built snapshots and records
// the configurations it was asked for.
type scriptedStarter struct {
	mu        sync.Mutex
	cfgs      []engine.Config
	runs      []*scriptedRun
	err       error
	advancing bool // the runs it starts advance on every read (scriptedRun.advancing)
}

func (st *scriptedStarter) start(_ context.Context, cfg engine.Config) (LiveRun, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.cfgs = append(st.cfgs, cfg)
	if st.err != nil {
		return nil, st.err
	}
	r := newScriptedRun(snapshotFor(cfg, 1))
	r.advancing = st.advancing
	st.runs = append(st.runs, r)
	return r, nil
}

func (st *scriptedStarter) last() (*scriptedRun, []engine.Config) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.runs) == 0 {
		return nil, slices.Clone(st.cfgs)
	}
	return st.runs[len(st.runs)-1], slices.Clone(st.cfgs)
}

// hopperConfig is the run the issue asks to show: Hopper DDPG at batch
// 16384 with the mapping left to the DSE.
func hopperConfig() engine.Config {
	return engine.Config{Name: "hopper-ddpg-16384", Env: "Hopper-workload", Algo: "ddpg",
		Batch: 16384, Capacity: 1 << 20, Fanout: 16, Mapping: engine.MustMapping("auto"), Seed: 1}
}

// snapshotFor builds a realistic snapshot of a run of cfg: a sum tree of
// fanout K with a walk and an update path, device timelines, the mapping
// table of 000 Table V's Hopper DDPG row as `rlx dse` prints it, and a full
// history. Fixed seeds: the same cfg and seq give the same snapshot.
func snapshotFor(cfg engine.Config, seq uint64) *engine.Snapshot {
	cfg = cfg.Defaults()
	rng := rand.New(rand.NewPCG(7, seq))
	s := &engine.Snapshot{
		Seq:         seq,
		State:       engine.Running,
		Config:      cfg,
		HostElapsed: 62 * time.Second,
		SimElapsed:  3.25,
		Counters: engine.Counters{EnvSteps: 1_234_567, GradSteps: 562, Episodes: 1204,
			Samples: 562 * int64(cfg.Batch)},
		Host: engine.Rates{GPS: 2.14, SPS: 19_900},
		Sim:  engine.Rates{GPS: 171.3, SPS: 2.8e6},
		Learning: engine.Learning{
			Meaningful: !isWorkload(cfg.Env),
			LastReturn: 212, Mean100: 187.5, MinReturn: 21, MaxReturn: 500,
			Losses: []engine.Loss{{Name: "critic", Value: 0.0312}, {Name: "actor", Value: -4.21}},
		},
		Replay: engine.ReplayStats{Len: 1 << 20, Cap: cfg.Capacity, MeanStaleness: 0.8, MaxStaleness: 3,
			MinPriority: 0.004, MaxPriority: 7.9},
		Queues: []engine.QueueStat{
			{Name: "actors -> storage", Len: 12, Cap: 64, InPerSec: 19_900, OutPerSec: 19_870},
			{Name: "RMM -> learner", Len: 1, Cap: cfg.Depth, InPerSec: 2.1, OutPerSec: 2.1},
		},
	}
	if cfg.Algo.OnPolicy() {
		s.Host = engine.Rates{GPS: 31, SPS: 4100, IPS: 3900, GAE: 3900}
		s.Sim = engine.Rates{GPS: 240, SPS: 52_000, IPS: 48_000, GAE: 2.1e6}
		s.Counters.Iterations = 61
		s.Replay = engine.ReplayStats{}
	} else {
		s.Tree = treeFor(rng, cfg.Fanout, cfg.Capacity)
	}
	s.Devices = devicesFor(rng, cfg.Algo)
	s.Busiest = busiestOf(s.Devices)
	s.Mapping = hopperMapping(cfg.Mapping.String())
	if cfg.Algo.OnPolicy() {
		s.Mapping = cartPolePPOMapping(cfg.Mapping.String())
	}
	s.History = historyFor(rng, s.Learning.Meaningful, cfg.Algo.OnPolicy())
	// The prediction line: the model's figure for the running mapping at
	// every point, as the engine records it.
	for range s.History.SimRate {
		s.History.Predicted = append(s.History.Predicted, s.Mapping.PredictedGPS)
	}
	// The latest point of each series is the snapshot's own figure.
	last := len(s.History.SimRate) - 1
	if cfg.Algo.OnPolicy() {
		s.History.SimRate[last], s.History.HostRate[last] = s.Sim.IPS, s.Host.IPS
	} else {
		s.History.SimRate[last], s.History.HostRate[last] = s.Sim.GPS, s.Host.GPS
	}
	s.History.Return[last] = s.Learning.Mean100
	if !s.Learning.Meaningful {
		s.History.Return[last] = 3.1
	}
	return s
}

func isWorkload(env string) bool {
	return len(env) > 9 && env[len(env)-9:] == "-workload"
}

// treeFor builds the top levels of a K-ary sum tree over capacity leaves,
// a prefix-sum walk down it (as sumtree.Path records one) and the update
// path of the leaf found.
func treeFor(rng *rand.Rand, k, capacity int) engine.TreeView {
	height := 1
	for n := k; n < capacity; n *= k {
		height++
	}
	// Level 3 in full (K^3 nodes), then the sums above it.
	depth := min(engine.MaxTreeLevels, height)
	full := make([][]float64, depth)
	n := 1
	for range depth - 1 {
		n *= k
	}
	full[depth-1] = make([]float64, n)
	for i := range full[depth-1] {
		full[depth-1][i] = 0.2 + rng.ExpFloat64()
	}
	for l := depth - 2; l >= 0; l-- {
		full[l] = make([]float64, len(full[l+1])/k)
		for i := range full[l] {
			for j := range k {
				full[l][i] += full[l+1][i*k+j]
			}
		}
	}
	t := engine.TreeView{Fanout: k, Height: height}
	for l := range depth {
		t.LevelLen = append(t.LevelLen, len(full[l]))
		t.Levels = append(t.Levels, full[l][:min(len(full[l]), engine.MaxTreeNodes)])
	}

	total := full[0][0]
	u := rng.Float64() * total * 0.06 // inside the part a cut level shows
	t.Walk = engine.Walk{U: u, Total: total}
	node, target := 0, u
	for l := range height {
		var children []float64
		if l+1 < depth {
			children = full[l+1][node*k : node*k+k]
		} else {
			// Below the levels kept: split the node's value at random.
			children = make([]float64, k)
			sum := 0.0
			for j := range children {
				children[j] = 0.1 + rng.Float64()
				sum += children[j]
			}
			value := nodeValue(full, l, node)
			for j := range children {
				children[j] *= value / sum
			}
		}
		partial, child := 0.0, k-1
		for j, c := range children {
			if partial+c > target || j == k-1 {
				child = j
				break
			}
			partial += c
		}
		t.Walk.Steps = append(t.Walk.Steps, engine.WalkStep{Level: l, Node: node, Target: target,
			Children: children, Partial: partial, Child: child})
		target -= partial
		node = node*k + child
	}
	t.Walk.Leaf = node
	t.UpdateLeaf = node
	for i, l := node, height; l >= 0; i, l = i/k, l-1 {
		t.Update = append(t.Update, i)
	}
	return t
}

func nodeValue(full [][]float64, l, node int) float64 {
	if l < len(full) {
		return full[l][node]
	}
	return 1
}

func devicesFor(rng *rand.Rand, algo engine.Algorithm) []engine.DeviceView {
	const from, to = 3.20, 3.25
	stage := func(name string, duty float64) engine.StageView {
		var busy []engine.Interval
		t := from
		for t < to {
			on := (0.2 + rng.Float64()) * 0.002 * duty
			idle := (0.2 + rng.Float64()) * 0.002 * (1 - duty)
			end := min(t+on, to)
			busy = append(busy, engine.Interval{Start: t, End: end})
			t = end + idle
		}
		return engine.NewStageView(name, busy, from, to)
	}
	// A pipeline view covers one step from 0, all busy but the fill.
	pipeline := func(name string, seconds float64, rows ...string) engine.DeviceView {
		dv := engine.DeviceView{Name: name, To: seconds, Pipeline: true}
		for i, r := range rows {
			start := seconds * 0.02 * float64(i)
			dv.Stages = append(dv.Stages, engine.NewStageView(r, []engine.Interval{{Start: start, End: seconds}}, 0, seconds))
		}
		return dv
	}
	// The units the engine reports, in its order: CPU, GPU, FPGA, PCIe, then
	// the pipelines of one step.
	if algo == "ppo" {
		return []engine.DeviceView{
			{Name: "CPU", From: from, To: to, Stages: []engine.StageView{stage("GAE", 0.1), stage("actors", 0.7)}},
			{Name: "GPU", From: from, To: to},
			{Name: "FPGA", From: from, To: to, Stages: []engine.StageView{stage("learner", 0.25), stage("storage", 0.02)}},
			{Name: "PCIe", From: from, To: to, Stages: []engine.StageView{stage("CPU-FPGA", 0.05), stage("CPU-GPU", 0)}},
			pipeline("FPGA 16x16 systolic array (forward pass of one minibatch, WS)", 9.1e-6, "rows 0-3", "rows 4-7", "rows 8-11", "rows 12-15"),
		}
	}
	return []engine.DeviceView{
		{Name: "CPU", From: from, To: to, Stages: []engine.StageView{stage("actors (16)", 0.01)}},
		{Name: "GPU", From: from, To: to, Stages: []engine.StageView{stage("learner", 0.99), stage("storage", 0.01)}},
		{Name: "FPGA", From: from, To: to, Stages: []engine.StageView{stage("RMM", 0.01)}},
		{Name: "PCIe", From: from, To: to, Stages: []engine.StageView{stage("CPU-FPGA", 0.01), stage("CPU-GPU", 0.01)}},
		pipeline("FPGA RMM samplers (one batch)", 3.54e-6, "banks 0-7", "banks 8-15", "banks 16-23", "banks 24-31"),
	}
}

// busiestOf is what the engine reports as the busiest live unit.
func busiestOf(views []engine.DeviceView) engine.Busiest {
	var b engine.Busiest
	for _, d := range views {
		for _, st := range d.Stages {
			if !d.Pipeline && st.Utilization > b.Utilization {
				b = engine.Busiest{Device: d.Name, Stage: st.Name, Utilization: st.Utilization}
			}
		}
	}
	return b
}

// cartPolePPOMapping is what the engine reports for CartPole-v1 PPO with
// CleanRL's defaults: learner-GAE-storage mappings in IPS.
func cartPolePPOMapping(requested string) engine.MappingView {
	return engine.MappingView{
		Requested:    requested,
		Chosen:       "F-C-F",
		PredictedGPS: 58661,
		Columns:      [2]string{"learner", "GAE"},
		Unit:         "IPS",
		Table: []engine.DeviceThroughput{
			{Device: "CPU", LearnerTP: 725, RMMTP: 3.08e6, LearnerSec: 1.38e-3, RMMSec: 3.25e-7},
			{Device: "GPU", LearnerTP: 645, RMMTP: 9.5e4, LearnerSec: 1.55e-3, RMMSec: 1.05e-5},
			{Device: "FPGA", LearnerTP: 5.18e4, RMMTP: 2.24e6, LearnerSec: 1.93e-5, RMMSec: 4.47e-7},
		},
		All: []engine.MappingGPS{
			{Mapping: "F-C-F", GPS: 58661}, {Mapping: "F-F-F", GPS: 58650}, {Mapping: "F-G-F", GPS: 57900},
			{Mapping: "C-C-C", GPS: 22100}, {Mapping: "C-F-C", GPS: 22090}, {Mapping: "C-G-C", GPS: 21950},
			{Mapping: "G-C-G", GPS: 15600}, {Mapping: "G-F-G", GPS: 15590}, {Mapping: "G-G-G", GPS: 15500},
		},
		SecondBest: "F-F-F", SpeedupOver: 1.0,
		Worst: "G-G-G", SpeedupOverWorst: 3.8,
		Note: "PPO mapping is learner-GAE-storage; FPGA GAE with 64 HEPPO PEs",
	}
}

// hopperMapping is `rlx dse --env Hopper --algo DDPG --batch 16384`.
func hopperMapping(requested string) engine.MappingView {
	return engine.MappingView{
		Requested:    requested,
		Chosen:       "G-F-G",
		PredictedGPS: 173.0,
		Table: []engine.DeviceThroughput{
			{Device: "CPU", LearnerTP: 8323, RMMTP: 2.095e6, LearnerSec: 1.96847807, RMMSec: 7.81964e-3},
			{Device: "GPU", LearnerTP: 2.835e6, RMMTP: 1.345e7, LearnerSec: 5.77902e-3, RMMSec: 1.21825e-3},
			{Device: "FPGA", LearnerTP: 8.343e4, RMMTP: 3.085e9, LearnerSec: 0.19638988, RMMSec: 5.31e-6},
		},
		// With the power of the Table IV platform (rlx dse, watts and GPS/W).
		Watts: 513, GPSPerWatt: 0.337,
		All: []engine.MappingGPS{
			{Mapping: "G-F-G", GPS: 173.0, Bottleneck: "learner", Watts: 513, GPSPerWatt: 0.337},
			{Mapping: "G-G-G", GPS: 142.9, Bottleneck: "learner", Watts: 496, GPSPerWatt: 0.288},
			{Mapping: "G-C-G", GPS: 127.9, Bottleneck: "rmm", Watts: 433, GPSPerWatt: 0.295},
			{Mapping: "F-C-F", GPS: 5.1, Bottleneck: "learner", Watts: 471, GPSPerWatt: 0.0108},
			{Mapping: "F-G-F", GPS: 5.1, Bottleneck: "learner", Watts: 482, GPSPerWatt: 0.0106},
			{Mapping: "F-F-F", GPS: 5.1, Bottleneck: "learner", Watts: 471, GPSPerWatt: 0.0108},
			{Mapping: "C-C-C", GPS: 0.5, Bottleneck: "learner", Watts: 246, GPSPerWatt: 0.00207},
			{Mapping: "C-G-C", GPS: 0.5, Bottleneck: "learner", Watts: 256, GPSPerWatt: 0.00198},
			{Mapping: "C-F-C", GPS: 0.5, Bottleneck: "learner", Watts: 263, GPSPerWatt: 0.00193},
		},
		SecondBest: "G-G-G", SpeedupOver: 1.21,
		Worst: "C-C-C", SpeedupOverWorst: 340.6,
		FPGA: engine.FPGAParams{DP: 2, PI: 8192, S: 32},
		Note: "GPU pruned for the RMM: the FPGA RMM keeps up with the GPU learner (Algorithm 3 line 6)",
	}
}

// historyFor builds MaxHistory points: rates warming up to a plateau, and
// returns (NaN before the first episode) rising for a learning task.
func historyFor(rng *rand.Rand, meaningful, ppo bool) engine.History {
	var h engine.History
	simRate, hostRate := 173.0, 2.14
	if ppo {
		simRate, hostRate = 48_000, 3900
	}
	for i := range engine.MaxHistory {
		x := float64(i)
		warm := 1 - math.Exp(-x/40)
		h.HostTime = append(h.HostTime, 0.12*x)
		h.SimTime = append(h.SimTime, 0.0063*x)
		sim, host := simRate*warm*(0.97+0.06*rng.Float64()), hostRate*warm*(0.9+0.2*rng.Float64())
		if i == 0 {
			// A run's first point has no window to divide by: the engine
			// records NaN there, never 0.
			sim, host = math.NaN(), math.NaN()
		}
		h.SimRate = append(h.SimRate, sim)
		h.HostRate = append(h.HostRate, host)
		h.Steps = append(h.Steps, 2400*x)
		ret := math.NaN()
		if i >= 20 {
			ret = 20 + 180*(1-math.Exp(-(x-20)/150)) + 15*rng.NormFloat64()
			if !meaningful {
				ret = 3 + rng.NormFloat64()
			}
		}
		h.Return = append(h.Return, ret)
	}
	return h
}
