package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/ppo"
	"github.com/rlxdev/rlx/hw"
)

// ppoDriver runs PPO (core/ppo) and charges its primitives to the simulated
// platform through ppoSim.
type ppoDriver struct {
	cfg  Config
	tr   *ppo.Trainer
	sim  *ppoSim
	g    *gate
	ctx  context.Context
	seen int // observer calls, for throttling the gate

	counters  Counters
	returns   returnWindow
	meaning   bool
	stats     ppo.IterStats
	haveStats bool
	stopErr   error
}

func newPPODriver(cfg Config) (*ppoDriver, error) {
	pc, err := ppoConfig(cfg)
	if err != nil {
		return nil, err
	}
	tr, err := ppo.New(pc)
	if err != nil {
		return nil, err
	}
	d := &ppoDriver{cfg: cfg, tr: tr, meaning: !tr.Spec().Workload}
	if d.sim, err = newPPOSim(cfg, tr); err != nil {
		return nil, err
	}
	tr.SetObserver(d)
	return d, nil
}

// ppoConfig translates a run configuration into core/ppo's, starting from
// CleanRL's defaults for the environment's action space.
func ppoConfig(cfg Config) (ppo.Config, error) {
	pc, err := ppo.Defaults(cfg.Env)
	if err != nil {
		return pc, err
	}
	pc.Seed = cfg.Seed
	pc.NumEnvs, pc.NumSteps, pc.Epochs, pc.Minibatches = cfg.Envs, cfg.Horizon, cfg.Epochs, cfg.Minibatches
	if pc.GAE, err = ppo.Experiment(cfg.GAE, 8); err != nil {
		return pc, err
	}
	// The budget in steps, rounded up to whole iterations; without one the
	// run goes on until stopped (and the learning rate does not anneal).
	n := int(pc.BatchSize())
	if cfg.Steps > 0 {
		pc.TotalSteps = int(max(int64(n), (cfg.Steps+int64(n)-1)/int64(n)*int64(n)))
	} else {
		pc.TotalSteps = ppo.MaxTotalSteps / n * n
		pc.AnnealLR = false
	}
	if err := pc.Validate(); err != nil {
		return pc, err
	}
	return pc, nil
}

func (d *ppoDriver) run(ctx context.Context, g *gate) error {
	d.g, d.ctx = g, ctx
	for !d.tr.Done() {
		st, err := d.tr.Iterate(ctx)
		if d.stopErr != nil {
			return d.stopErr
		}
		if err != nil {
			return err
		}
		d.stats, d.haveStats = st, true
		d.counters.Iterations++
		d.sim.endIteration()
		if err := g.check(ctx); err != nil {
			return err
		}
		if d.cfg.Duration > 0 && g.hostElapsed(time.Now()) >= d.cfg.Duration {
			return nil
		}
	}
	return nil
}

// gateEvery is how many PPO primitives run between gate checks: PPO emits
// one every microsecond or two on small networks.
const gateEvery = 64

// Observe charges one primitive to the simulated platform and counts it.
func (d *ppoDriver) Observe(e ppo.Event) {
	switch e.Phase {
	case ppo.PhaseEnv:
		d.counters.EnvSteps += int64(e.Items)
	case ppo.PhaseGAE:
		d.counters.GAE += int64(e.Items)
	case ppo.PhaseOptimizer:
		d.counters.GradSteps++
	}
	d.sim.charge(e)
	d.seen++
	if d.seen%gateEvery == 0 && d.g != nil && d.stopErr == nil {
		if err := d.g.check(d.ctx); err == errStopped {
			d.stopErr = err
		}
	}
}

// ObserveEpisode records a finished episode's raw return.
func (d *ppoDriver) ObserveEpisode(ep ppo.Episode) {
	d.counters.Episodes++
	d.returns.add(ep.Return)
}

func (d *ppoDriver) remap(m string) error { return d.sim.remap(m) }

func (d *ppoDriver) snapshot(s *Snapshot) {
	s.Counters = d.counters
	s.SimElapsed = d.sim.now()
	s.Learning.Meaningful = d.meaning
	d.returns.fill(&s.Learning)
	if d.haveStats {
		st := d.stats
		s.Learning.Losses = []Loss{
			{"policy", st.PolicyLoss}, {"value", st.ValueLoss}, {"entropy", st.Entropy},
			{"approx_kl", st.ApproxKL}, {"clip_frac", st.ClipFrac}, {"explained_var", st.ExplainedVariance},
		}
	}
	s.Mapping = d.sim.view
	s.Devices = d.sim.views()
}

// ppoSim charges the primitives of PPO iterations to a mapping
// Learner-GAE-Storage: the rollout runs on the CPU actors (env steps and
// policy inference, 003 §2.1), the rollout is stored on the storage device,
// crosses to the GAE device for advantage estimation (004) and to the
// learner for K epochs of M minibatch updates, and the new weights go back
// to the actors. An iteration is synchronous: the next rollout waits for
// the weights.
type ppoSim struct {
	est      *hw.Estimator
	platform *hw.Platform
	work     hw.Workload
	n, t, mb int // environments, steps, minibatch size
	params   int
	rowBytes int64

	mapping [3]hw.Kind // learner, GAE, storage
	view    MappingView
	pes     int                  // FPGA GAE processing elements (HEPPO sizing)
	accel   *dse.PPOResult       // PPOAccel's design on the FPGA, if it fits
	heppo   *dse.HEPPOResult     // HEPPO's GAE pipeline on the FPGA, if it fits
	layers  []hw.Layer           // the actor's and the critic's, in order
	detail  []DeviceView         // cycle-level views of the FPGA units the mapping uses
	tGAE    [hw.NumKinds]float64 // seconds of one iteration's GAE per device
	tTrain  [hw.NumKinds]float64 // seconds of one minibatch update per device

	actors   []*resource
	units    unitSet
	links    [hw.NumKinds]*resource
	ready    float64 // when the actors may step (weights arrived)
	trained  float64 // end of the latest charged minibatch
	gaeDone  float64
	lastIter float64
}

func newPPOSim(cfg Config, tr *ppo.Trainer) (*ppoSim, error) {
	p, err := LoadPlatform(cfg.Devices)
	if err != nil {
		return nil, err
	}
	pc := tr.Config()
	spec := tr.Spec()
	s := &ppoSim{platform: p, n: pc.NumEnvs, t: pc.NumSteps, mb: pc.MinibatchSize(), params: tr.Params(), units: unitSet{}}
	obs, act := spec.Obs.Dim(), spec.Act.Dim()
	// A stored step: observation, action, log-probability, reward, value,
	// flags, then advantage and return (float32 each).
	s.rowBytes = int64(4 * (obs + act + 6))
	s.work = hw.Workload{
		Name:  cfg.Env + "/ppo",
		Batch: s.mb, Capacity: max(2, s.n*s.t), Fanout: 2, Actors: cfg.Actors,
		DataPointBytes: int(s.rowBytes), LossOps: 12,
		EnvStepUS: envStepUS(spec.StepCost, cfg.Env),
		Nets: []hw.Net{
			hwNet(pass{"actor", tr.Actor().Shape(), 1, 1, 1}),
			hwNet(pass{"critic", tr.Critic().Shape(), 1, 1, 1}),
		},
	}
	if err := s.work.Validate(); err != nil {
		return nil, err
	}
	for _, n := range s.work.Nets {
		s.layers = append(s.layers, n.Layers...)
	}
	if s.est, err = hw.NewEstimator(p, &s.work, nil); err != nil {
		return nil, err
	}
	for i := range cfg.Actors {
		s.actors = append(s.actors, &resource{device: "CPU", stage: fmt.Sprintf("actor %d", i)})
	}
	for _, k := range []hw.Kind{hw.GPU, hw.FPGA} {
		s.links[k] = &resource{device: "PCIe", stage: "CPU-" + k.String()}
	}
	s.costs(tr)
	if err := s.remap(cfg.Mapping); err != nil {
		return nil, err
	}
	return s, nil
}

// envStepUS is the simulated time of one environment step: a workload
// environment's configured cost, or the host time of a classic-control step
// (they are cheap, and the papers give no figure).
func envStepUS(cost time.Duration, id string) float64 {
	if cost > 0 {
		return float64(cost) / float64(time.Microsecond)
	}
	return measureEnvStepUS(id)
}

// costs fills the per-device times of one minibatch update and of one
// iteration's GAE.
func (s *ppoSim) costs(tr *ppo.Trainer) {
	for _, k := range []hw.Kind{hw.CPU, hw.GPU} {
		if t, err := s.est.Seconds(k, hw.TrainStep, s.mb); err == nil {
			s.tTrain[k] = t
		}
		if t, err := s.est.GAE(k, s.t, s.n, 0, 0); err == nil {
			s.tGAE[k] = t
		}
	}
	if f := s.platform.FPGA; f != nil {
		// The FPGA learner is PPOAccel's systolic array (003 §3-4): its
		// minibatch update is the FW, BW and WU cycles Eq. 6 gives for the
		// design the Eq. 9 DSE picks.
		if r, err := ppoAccel(s.platform, tr, s.n, s.t, s.mb); err == nil {
			s.tTrain[hw.FPGA] = float64(r.FWCycles+r.BWCycles+r.WUCycles) / f.Hz()
			s.accel = &r
		}
		// GAE on HEPPO's processing elements, as many as fit (004 §IV).
		if h, err := sizeHEPPO(f, s.t, s.n); err == nil {
			s.pes = h.PEs
			s.tGAE[hw.FPGA] = h.Seconds
			s.heppo = &h
		}
	}
}

// remap selects the devices of "auto" (the fastest device for each of the
// learner and GAE, the storage with the learner) or of a mapping such as
// "C-F-C".
func (s *ppoSim) remap(m string) error {
	fastest := func(t [hw.NumKinds]float64) hw.Kind {
		best := hw.CPU
		for _, k := range hw.Kinds {
			if t[k] > 0 && (t[best] == 0 || t[k] < t[best]) {
				best = k
			}
		}
		return best
	}
	var mp [3]hw.Kind
	if m == "" || m == "auto" {
		mp = [3]hw.Kind{fastest(s.tTrain), fastest(s.tGAE), 0}
		mp[2] = mp[0]
	} else {
		if err := ValidateMapping(m); err != nil {
			return err
		}
		for i := range mp {
			k, err := hw.KindFromLetter(m[2*i])
			if err != nil {
				return err
			}
			mp[i] = k
		}
		if s.tTrain[mp[0]] == 0 {
			return &FieldError{"mapping", fmt.Sprintf("%q", m), "is infeasible here: no " + mp[0].String() + " learner model for this network"}
		}
		if s.tGAE[mp[1]] == 0 {
			return &FieldError{"mapping", fmt.Sprintf("%q", m), "is infeasible here: no " + mp[1].String() + " GAE model"}
		}
	}
	s.mapping = mp
	s.view = s.mappingView(m)
	s.detail = s.pipelines()
	return nil
}

// pipelines returns the cycle-level views of the FPGA units the mapping
// uses: PPOAccel's systolic array through the forward pass of one
// minibatch, layer after layer (003 §3, Eq. 5), and HEPPO's GAE PEs
// through one iteration's T x N advantages (004 §III-C).
func (s *ppoSim) pipelines() []DeviceView {
	f := s.platform.FPGA
	var out []DeviceView
	if s.mapping[0] == hw.FPGA && s.accel != nil {
		p := s.accel.P
		tl := hw.NewTimeline(p)
		var at int64
		for _, l := range s.layers {
			r, err := hw.SimulateGEMM(l.GEMM(s.mb), p, s.accel.FW, hw.Streamed)
			if err != nil {
				return nil
			}
			for row, st := range r.Timeline.Stages {
				for _, iv := range st.Busy {
					tl.Stages[row].Mark(at+iv.Start, at+iv.End)
				}
			}
			at += r.Cycles
		}
		tl.Close(at)
		rows := rowGroups(p, "row", "rows")
		out = append(out, timelineView(fmt.Sprintf("FPGA %dx%d systolic array (forward pass of one minibatch, %s)", p, p, s.accel.FW),
			&tl, f.Hz(), rows))
	}
	if s.mapping[1] == hw.FPGA && s.heppo != nil {
		h := s.heppo
		if r, err := hw.SimulateGAE(s.t, s.n, h.PEs, h.Lookahead, f.GAELoopLatencyCycles); err == nil {
			out = append(out, timelineView("FPGA GAE PEs (one iteration)", &r.Timeline, f.Hz(), rowGroups(h.PEs, "PE", "PEs")))
		}
	}
	return out
}

// iterSeconds returns the modelled time of one iteration under mp, for the
// mapping table: rollout, transfers, GAE and the updates, in sequence.
func (s *ppoSim) iterSeconds(mp [3]hw.Kind, epochs int) float64 {
	rollout := float64(s.t) * (float64((s.n+len(s.actors)-1)/len(s.actors))*s.work.EnvStepUS*1e-6 + s.inference())
	bytes := int64(s.n*s.t) * s.rowBytes
	move := func(a, b hw.Kind, n int64) float64 {
		return s.est.Transfer(n) * float64(len(hw.Links(a, b)))
	}
	t := rollout + move(hw.CPU, mp[2], bytes) + move(mp[2], mp[1], bytes) + s.tGAE[mp[1]] + move(mp[1], mp[0], bytes)
	t += float64(epochs*s.n*s.t/s.mb) * s.tTrain[mp[0]]
	return t + move(mp[0], hw.CPU, int64(4*s.params))
}

func (s *ppoSim) inference() float64 {
	t, err := s.est.Seconds(hw.CPU, hw.Inference, s.n)
	if err != nil {
		return 0
	}
	return t
}

// mappingView fills the snapshot's mapping pane for PPO: the table holds
// the learner's minibatch updates per second and GAE iterations per second
// (in the RMM column), and every mapping's predicted IPS.
func (s *ppoSim) mappingView(requested string) MappingView {
	if requested == "" {
		requested = "auto"
	}
	epochs := 4
	v := MappingView{Requested: requested, Chosen: mapString(s.mapping), Columns: [2]string{"learner", "GAE"}, Unit: "IPS"}
	samples := float64(s.n * s.t)
	for _, k := range hw.Kinds {
		row := DeviceThroughput{Device: k.String(), LearnerSec: s.tTrain[k], RMMSec: s.tGAE[k]}
		if s.tTrain[k] > 0 {
			row.LearnerTP = 1 / s.tTrain[k]
		}
		if s.tGAE[k] > 0 {
			row.RMMTP = 1 / s.tGAE[k]
		}
		v.Table = append(v.Table, row)
	}
	for _, l := range hw.Kinds {
		for _, g := range hw.Kinds {
			if s.tTrain[l] == 0 || s.tGAE[g] == 0 {
				continue
			}
			mp := [3]hw.Kind{l, g, l}
			v.All = append(v.All, MappingGPS{Mapping: mapString(mp), GPS: samples / s.iterSeconds(mp, epochs)})
		}
	}
	sortMappings(v.All)
	v.PredictedGPS = samples / s.iterSeconds(s.mapping, epochs)
	if len(v.All) > 1 {
		for _, m := range v.All {
			if m.Mapping != v.Chosen {
				v.SecondBest, v.SpeedupOver = m.Mapping, dse.Speedup(v.PredictedGPS, m.GPS)
				break
			}
		}
		worst := v.All[len(v.All)-1]
		v.Worst, v.SpeedupOverWorst = worst.Mapping, dse.Speedup(v.PredictedGPS, worst.GPS)
	}
	v.Note = fmt.Sprintf("PPO mapping is learner-GAE-storage; FPGA GAE with %d HEPPO PEs", s.pes)
	return v
}

func mapString(mp [3]hw.Kind) string {
	return fmt.Sprintf("%c-%c-%c", mp[0].Letter(), mp[1].Letter(), mp[2].Letter())
}

// transfer moves bytes from device a to b, ready at ready, over each link
// the data crosses (hw.Links).
func (s *ppoSim) transfer(a, b hw.Kind, bytes int64, ready float64) float64 {
	if bytes <= 0 {
		return ready
	}
	dur := s.est.Transfer(bytes)
	for _, k := range hw.Links(a, b) {
		_, ready = s.links[k].run(ready, dur)
	}
	return ready
}

// charge charges one primitive the trainer executed.
func (s *ppoSim) charge(e ppo.Event) {
	learner, gaeDev, storage := s.mapping[0], s.mapping[1], s.mapping[2]
	switch e.Phase {
	case ppo.PhaseEnv:
		// The N environments are spread over the actor cores and step
		// together; the vector step ends when the slowest core is done.
		per := s.work.EnvStepUS * 1e-6
		end := s.ready
		for i, a := range s.actors {
			n := e.Items / len(s.actors)
			if i < e.Items%len(s.actors) {
				n++
			}
			_, t := a.run(s.ready, float64(n)*per)
			end = math.Max(end, t)
		}
		s.ready = end
	case ppo.PhaseInference:
		t, err := s.est.Seconds(hw.CPU, hw.Inference, max(e.Items, 1))
		if err == nil {
			_, s.ready = s.actors[0].run(s.ready, t)
		}
	case ppo.PhaseStore:
		t := s.transfer(hw.CPU, storage, int64(e.Items)*s.rowBytes, s.ready)
		_, t = s.units.get(storage, "storage").run(t, float64(int64(e.Items)*s.rowBytes)/(s.platform.MemBWGBs(storage)*1e9))
		s.gaeDone = math.Max(s.gaeDone, t)
	case ppo.PhaseGAE:
		bytes := int64(e.Items) * s.rowBytes
		t := s.transfer(storage, gaeDev, bytes, math.Max(s.ready, s.gaeDone))
		_, t = s.units.get(gaeDev, "GAE").run(t, s.tGAE[gaeDev])
		s.gaeDone = s.transfer(gaeDev, learner, bytes, t)
	case ppo.PhaseOptimizer:
		// One minibatch update: forward, backward and the optimizer step.
		_, s.trained = s.units.get(learner, "learner").run(s.gaeDone, s.tTrain[learner])
	}
}

// endIteration charges the weights' return to the actors; the next rollout
// waits for them.
func (s *ppoSim) endIteration() {
	t := s.transfer(s.mapping[0], hw.CPU, int64(4*s.params), math.Max(s.trained, s.gaeDone))
	s.ready = math.Max(s.ready, t)
	s.gaeDone = s.ready
	s.lastIter = s.ready
}

func (s *ppoSim) now() float64 {
	t := math.Max(s.ready, s.trained)
	for _, r := range s.units {
		t = math.Max(t, r.free)
	}
	return t
}

// views renders the device timelines over the last few iterations.
func (s *ppoSim) views() []DeviceView {
	now := s.now()
	from := math.Max(0, now-4*math.Max(now-s.lastIter, s.iterSeconds(s.mapping, 1)))
	var rs []*resource
	for _, r := range s.units {
		rs = append(rs, r)
	}
	rs = append(rs, s.links[hw.GPU], s.links[hw.FPGA])
	return append(unitViews(append(rs, s.actors...), from, now), s.detail...)
}
