package sim

import (
	"fmt"
	"math"
	"slices"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/hw"
)

// PPOIteration is what the clock needs of a PPO run: the sizes and counts
// of one iteration (003 §2.1) and the networks.
type PPOIteration struct {
	Name          string // for errors, e.g. "CartPole-v1/ppo"
	Envs, Horizon int    // N environments, T steps each
	// Epochs K of Minibatches M updates each: K x M minibatch updates per
	// iteration, each on N x T / M samples.
	Epochs, Minibatches int
	Actors              int // CPU cores stepping the environments
	ObsDim, ActDim      int
	Params              int // weights the learner sends back to the actors
	Actor, Critic       []hw.Layer
	EnvStepUS           float64 // one environment step on an actor core
}

// Samples returns the environment steps of one iteration, N x T.
func (it PPOIteration) Samples() int { return it.Envs * it.Horizon }

// MinibatchSize returns the samples of one minibatch update, N x T / M.
func (it PPOIteration) MinibatchSize() int { return it.Samples() / it.Minibatches }

// Updates returns the minibatch updates of one iteration, K x M.
func (it PPOIteration) Updates() int { return it.Epochs * it.Minibatches }

// layers are the actor's layers, then the critic's.
func (it PPOIteration) layers() []hw.Layer { return slices.Concat(it.Actor, it.Critic) }

// rowBytes is the size of one stored step: observation, action,
// log-probability, reward, value, flags, then advantage and return (float32
// each).
func (it PPOIteration) rowBytes() int64 { return int64(4 * (it.ObsDim + it.ActDim + 6)) }

func (it PPOIteration) validate() error {
	switch {
	case it.Envs < 1 || it.Horizon < 1 || it.Epochs < 1 || it.Minibatches < 1 || it.Actors < 1:
		return fmt.Errorf("sim: %s: envs %d, horizon %d, epochs %d, minibatches %d, actors %d: each must be >= 1",
			it.Name, it.Envs, it.Horizon, it.Epochs, it.Minibatches, it.Actors)
	case it.Samples()%it.Minibatches != 0:
		return fmt.Errorf("sim: %s: %d minibatches do not divide the %d samples of an iteration", it.Name, it.Minibatches, it.Samples())
	}
	return nil
}

// PPO charges the primitives of PPO iterations to a mapping
// Learner-GAE-Storage and keeps the simulated platform clock: the rollout
// runs on the CPU actors (env steps and policy inference, 003 §2.1), the
// rollout is stored on the storage device, crosses to the GAE device for
// advantage estimation (004) and to the learner for K epochs of M
// minibatch updates, and the new weights go back to the actors. An
// iteration is synchronous: the next rollout waits for the weights.
//
// IterationSeconds predicts an iteration from the same costs and the same
// counts, so a prediction and the live clock agree by construction.
//
// A PPO is not safe for concurrent use.
type PPO struct {
	it       PPOIteration
	platform *hw.Platform
	est      *hw.Estimator
	work     hw.Workload
	mapping  hw.Mapping
	auto     hw.Mapping       // Auto's, fixed by the platform and the iteration
	accel    *dse.PPOResult   // PPOAccel's design on the FPGA, if it fits
	heppo    *dse.HEPPOResult // HEPPO's GAE pipeline on the FPGA, if it fits
	tEnv     float64          // one environment step on an actor core
	tInfer   float64          // the inference of one vector step (Envs observations)
	tGAE     [hw.NumKinds]float64
	tTrain   [hw.NumKinds]float64
	units    platformUnits

	ready    float64 // when the actors may step (weights arrived)
	trained  float64 // end of the latest charged minibatch
	gaeDone  float64
	lastIter float64
}

// NewPPO returns the clock of a PPO run on p, on the mapping Auto gives.
func NewPPO(p *hw.Platform, it PPOIteration) (*PPO, error) {
	if err := it.validate(); err != nil {
		return nil, err
	}
	s := &PPO{it: it, platform: p, units: newPlatformUnits(it.Actors)}
	s.work = hw.Workload{
		Name:  it.Name,
		Batch: it.MinibatchSize(), Capacity: max(2, it.Samples()), Fanout: 2, Actors: it.Actors,
		DataPointBytes: int(it.rowBytes()), LossOps: 12, EnvStepUS: it.EnvStepUS,
		InferenceNets: 2, // the rollout runs the actor and the critic
		Nets: []hw.Net{
			{Name: "actor", Layers: it.Actor, FW: 1, BW: 1, WA: 1},
			{Name: "critic", Layers: it.Critic, FW: 1, BW: 1, WA: 1},
		},
	}
	var err error
	if s.est, err = hw.NewEstimator(p, &s.work, nil); err != nil {
		return nil, err
	}
	if s.tEnv, err = s.est.Seconds(hw.CPU, hw.EnvStep, 1); err != nil {
		return nil, fmt.Errorf("sim: %s: actor step: %w", it.Name, err)
	}
	s.tInfer = s.inference(it.Envs)
	s.costs()
	s.auto = s.fastest()
	s.use(s.auto)
	return s, nil
}

// costs fills the per-device times of one minibatch update and of one
// iteration's GAE; 0 where a device has no model of it.
func (s *PPO) costs() {
	mb := s.it.MinibatchSize()
	for _, k := range []hw.Kind{hw.CPU, hw.GPU} {
		if t, err := s.est.Seconds(k, hw.TrainStep, mb); err == nil {
			s.tTrain[k] = t
		}
		if t, err := s.est.GAE(k, s.it.Horizon, s.it.Envs, 0, 0); err == nil {
			s.tGAE[k] = t
		}
	}
	f := s.platform.FPGA
	if f == nil {
		return
	}
	// The FPGA learner is PPOAccel's systolic array (003 §3-4): its
	// minibatch update is the FW, BW and WU cycles Eq. 6 gives for the
	// design the Eq. 9 DSE picks.
	r, err := dse.ExplorePPOAccel(f, s.platform.Link, dse.PPOConfig{
		Layers: s.it.layers(),
		N:      s.it.Envs, T: s.it.Horizon, M: mb, K: s.it.Epochs, CUs: 1,
		ObsWords: s.it.ObsDim, ActWords: s.it.ActDim,
	})
	if err == nil {
		s.tTrain[hw.FPGA] = float64(r.FWCycles+r.BWCycles+r.WUCycles) / f.Hz()
		s.accel = &r
	}
	// GAE on HEPPO's processing elements, as many as fit (004 §IV), with
	// float32 values.
	if h, err := dse.SizeHEPPO(f, s.it.Horizon, s.it.Envs, 32); err == nil {
		s.tGAE[hw.FPGA] = h.Seconds
		s.heppo = &h
	}
}

// Auto returns the mapping rlx chooses for PPO: of Mappings, the one whose
// iteration the model predicts shortest (IterationSeconds: the rollout,
// the transfers, the GAE and the updates), and among equal ones the one
// on fewer devices. The fastest device for each phase alone may lose to
// it on the transfers its placement adds. With no mapping feasible it is
// the fastest device for each phase, which Remap then refuses, saying
// why. It depends only on the platform and the iteration: NewPPO finds it
// once, and Auto returns it in O(1).
func (s *PPO) Auto() hw.Mapping { return s.auto }

// fastest finds Auto's mapping, O(len(Mappings)) iteration models. With
// no feasible mapping (a platform without a CPU, which the engine refuses
// before) it returns C-C-C, which Remap then refuses saying why.
func (s *PPO) fastest() hw.Mapping {
	best, bestS := hw.Mapping{}, math.Inf(1)
	for _, m := range s.Mappings() {
		t := s.IterationSeconds(m)
		if t < bestS || t == bestS && m.DeviceCount() < best.DeviceCount() {
			best, bestS = m, t
		}
	}
	return best
}

// Mappings returns the mappings PPO can run here (Feasible), the storage
// on the learner's device, learner first in the order of hw.Kinds, then
// the GAE's device: what Auto chooses from and what a prediction lists.
func (s *PPO) Mappings() []hw.Mapping {
	var out []hw.Mapping
	for _, l := range hw.Kinds {
		for _, g := range hw.Kinds {
			if m := (hw.Mapping{Learner: l, RMM: g, Storage: l}); s.Feasible(m) == nil {
				out = append(out, m)
			}
		}
	}
	return out
}

// Feasible returns nil if m can run here, or an error wrapping
// ErrInfeasible that says why not.
func (s *PPO) Feasible(m hw.Mapping) error {
	if s.tTrain[m.Learner] == 0 {
		return fmt.Errorf("%w here: no %s learner model for this network", ErrInfeasible, m.Learner)
	}
	if s.tGAE[m.GAE()] == 0 {
		return fmt.Errorf("%w here: no %s GAE model", ErrInfeasible, m.GAE())
	}
	return nil
}

// Remap moves the learner, the GAE and the storage to m from the next
// primitive on; work already charged stays where it ran.
func (s *PPO) Remap(m hw.Mapping) error {
	if err := s.Feasible(m); err != nil {
		return err
	}
	s.use(m)
	return nil
}

// use charges the next primitives to m's units: the storage, the GAE and
// the learner, and the links the rollout and the weights cross.
func (s *PPO) use(m hw.Mapping) {
	s.mapping = m
	s.units.assign([]*unit{s.units.get(m.Storage, "storage"), s.units.get(m.GAE(), "GAE"), s.units.get(m.Learner, "learner")},
		[][2]hw.Kind{{hw.CPU, m.Storage}, {m.Storage, m.GAE()}, {m.GAE(), m.Learner}, {m.Learner, hw.CPU}})
}

// Mapping returns the mapping in use.
func (s *PPO) Mapping() hw.Mapping { return s.mapping }

// Iteration returns the iteration the clock charges.
func (s *PPO) Iteration() PPOIteration { return s.it }

// UpdateSeconds returns one minibatch update on device k, 0 if k has no
// model of it.
func (s *PPO) UpdateSeconds(k hw.Kind) float64 { return s.tTrain[k] }

// GAESeconds returns one iteration's advantage estimation on device k, 0 if
// k has no model of it.
func (s *PPO) GAESeconds(k hw.Kind) float64 { return s.tGAE[k] }

// PEs returns the HEPPO processing elements of the FPGA GAE, 0 if none fit.
func (s *PPO) PEs() int {
	if s.heppo == nil {
		return 0
	}
	return s.heppo.PEs
}

// ppoPhases are the phases of one iteration under a mapping, in seconds,
// as the clock charges them. An iteration is synchronous, so they run one
// after another: the iteration is their sum, and the longest bounds it.
type ppoPhases struct {
	actors  float64 // the rollout: T vector steps over the actor cores, each with an inference
	pcie    float64 // the rollout to the storage, the GAE device and the learner; the weights back
	gae     float64
	learner float64 // the K x M minibatch updates
}

func (s *PPO) phases(m hw.Mapping) ppoPhases {
	it := s.it
	actors := len(s.units.actors)
	perCore := (it.Envs + actors - 1) / actors
	bytes := int64(it.Samples()) * it.rowBytes()
	move := s.est.CrossingSeconds
	return ppoPhases{
		actors: float64(it.Horizon) * (float64(perCore)*s.tEnv + s.tInfer),
		pcie: move(hw.CPU, m.Storage, bytes) + move(m.Storage, m.GAE(), bytes) + move(m.GAE(), m.Learner, bytes) +
			move(m.Learner, hw.CPU, int64(4*it.Params)),
		gae:     s.tGAE[m.GAE()],
		learner: float64(it.Updates()) * s.tTrain[m.Learner],
	}
}

// IterationSeconds predicts one iteration under m: the rollout, the
// transfers, the GAE, the K x M updates and the weights' return, in
// sequence, as the clock charges them.
func (s *PPO) IterationSeconds(m hw.Mapping) float64 {
	p := s.phases(m)
	return p.actors + p.pcie + p.gae + p.learner
}

// Bound names the phase that takes the largest share of an iteration
// under m: "actors" (the rollout), "pcie" (the transfers), "gae" or
// "learner" (the K x M updates).
func (s *PPO) Bound(m hw.Mapping) string {
	p := s.phases(m)
	bound, longest := "actors", p.actors
	for _, ph := range []struct {
		name string
		s    float64
	}{{"pcie", p.pcie}, {"gae", p.gae}, {"learner", p.learner}} {
		if ph.s > longest {
			bound, longest = ph.name, ph.s
		}
	}
	return bound
}

// inference returns the actors' inference for n observations: the
// rollout's nets, the actor and the critic (Workload.InferenceNets).
func (s *PPO) inference(n int) float64 {
	t, err := s.est.Seconds(hw.CPU, hw.Inference, max(n, 1))
	if err != nil {
		return 0
	}
	return t
}

// transfer moves bytes from device a to b, ready at ready.
func (s *PPO) transfer(a, b hw.Kind, bytes int64, ready float64) float64 {
	if bytes <= 0 {
		return ready
	}
	return s.units.transfer(a, b, s.est.Transfer(bytes), s.est.TransferLatency(), ready)
}

// EnvSteps charges one vector step of n environments: they are spread over
// the actor cores and step together; the step ends when the slowest core
// is done.
func (s *PPO) EnvSteps(n int) {
	actors := s.units.actors
	end := s.ready
	for i, a := range actors {
		k := n / len(actors)
		if i < n%len(actors) {
			k++
		}
		_, t := a.run(s.ready, float64(k)*s.tEnv)
		end = math.Max(end, t)
	}
	s.ready = end
}

// Inference charges the rollout's inference (the actor and the critic)
// for n observations on the first actor core.
func (s *PPO) Inference(n int) {
	t := s.tInfer // the trainer's rollout: one row per environment
	if n != s.it.Envs {
		t = s.inference(n)
	}
	_, s.ready = s.units.actors[0].run(s.ready, t)
}

// Store charges storing n steps of the rollout on the storage device.
func (s *PPO) Store(n int) {
	bytes := int64(n) * s.it.rowBytes()
	storage := s.mapping.Storage
	t := s.transfer(hw.CPU, storage, bytes, s.ready)
	_, t = s.units.get(storage, "storage").run(t, float64(bytes)/(s.platform.MemBWGBs(storage)*1e9))
	s.gaeDone = math.Max(s.gaeDone, t)
}

// GAE charges the advantage estimation of the iteration's n steps, with
// the rollout's trip from the storage to the GAE device and on to the
// learner.
func (s *PPO) GAE(n int) {
	m := s.mapping
	bytes := int64(n) * s.it.rowBytes()
	t := s.transfer(m.Storage, m.GAE(), bytes, math.Max(s.ready, s.gaeDone))
	_, t = s.units.get(m.GAE(), "GAE").run(t, s.tGAE[m.GAE()])
	s.gaeDone = s.transfer(m.GAE(), m.Learner, bytes, t)
}

// Minibatch charges one minibatch update: forward, backward and the
// optimizer step.
func (s *PPO) Minibatch() {
	_, s.trained = s.units.get(s.mapping.Learner, "learner").run(s.gaeDone, s.tTrain[s.mapping.Learner])
}

// EndIteration charges the weights' return to the actors; the next rollout
// waits for them.
func (s *PPO) EndIteration() {
	t := s.transfer(s.mapping.Learner, hw.CPU, int64(4*s.it.Params), math.Max(s.trained, s.gaeDone))
	s.ready = math.Max(s.ready, t)
	s.gaeDone = s.ready
	s.lastIter = s.ready
}

// Now returns the simulated time of the platform.
func (s *PPO) Now() float64 {
	t := math.Max(s.ready, s.trained)
	for _, r := range s.units.order {
		t = math.Max(t, r.free)
	}
	return t
}

// Traces returns the units' traces (platformUnits.traces: those the
// mapping uses, and those busy in the window) over the last four
// iterations, and the window.
func (s *PPO) Traces() (traces []Trace, from, to float64) {
	to = s.Now()
	from = math.Max(0, to-4*math.Max(to-s.lastIter, s.IterationSeconds(s.mapping)))
	return s.units.traces(from, to), from, to
}

// Pipelines returns the cycle-level runs of the FPGA units the mapping
// uses: PPOAccel's systolic array through the forward pass of one
// minibatch, layer after layer (003 §3, Eq. 5), and HEPPO's GAE PEs
// through one iteration's T x N advantages (004 §III-C).
func (s *PPO) Pipelines() []Pipeline {
	f := s.platform.FPGA
	var out []Pipeline
	if s.mapping.Learner == hw.FPGA && s.accel != nil {
		p := s.accel.P
		tl := hw.NewTimeline(p)
		var at int64
		for _, l := range s.it.layers() {
			r, err := hw.SimulateGEMM(l.GEMM(s.it.MinibatchSize()), p, s.accel.FW, hw.Streamed)
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
		out = append(out, Pipeline{
			Name:     fmt.Sprintf("FPGA %dx%d systolic array (forward pass of one minibatch, %s)", p, p, s.accel.FW),
			Timeline: tl, Hz: f.Hz(), Row: rowGroups(p, "row", "rows"),
		})
	}
	if s.mapping.GAE() == hw.FPGA && s.heppo != nil {
		h := s.heppo
		if r, err := hw.SimulateGAE(s.it.Horizon, s.it.Envs, h.PEs, h.Lookahead, f.GAELoopLatencyCycles); err == nil {
			out = append(out, Pipeline{Name: "FPGA GAE PEs (one iteration)", Timeline: r.Timeline, Hz: f.Hz(),
				Row: rowGroups(h.PEs, "PE", "PEs")})
		}
	}
	return out
}
