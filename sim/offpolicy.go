package sim

import (
	"fmt"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/hw"
)

// OffPolicy charges the primitives of an off-policy run (actors, replay
// manager, data storage, learner) to the devices of a placement and keeps
// the simulated platform clock (000 §V, Fig. 7).
//
// Per gradient step k: the RMM samples B indices once the priorities of step
// k-D are updated (D = 1 is the strict loop of 000 §II-A2; larger D is the
// relaxed dependency of §V-A); the indices cross to the data storage, which
// gathers the rows; the rows cross to the learner, which trains; the TD
// errors cross back to the RMM, which updates the priorities. Each stage
// waits for its input and for its unit, so stages of different steps
// overlap on different units, and the steady rate is that of the slowest
// unit, which is what the design-space exploration predicts (dse.Evaluate).
// Actors run on their own CPU cores and send their data to the storage.
//
// An OffPolicy is not safe for concurrent use.
type OffPolicy struct {
	pl    *Placement
	batch int
	depth int
	units platformUnits

	learner, rmm, storage *unit // an RMM on the learner's GPU shares its time (unit.shares)

	// Rings of D entries, indexed by step modulo D: when step j's priority
	// update ended, and when the rows of the batch sampled for step j are
	// at the learner.
	updated, arrived []float64
	step             int64 // the next gradient step
	sampled          int64 // the next batch to sample
	lastEnd          float64
	ends             [traceSteps]float64 // ends of the latest steps, a ring
	// inserted is when the latest data charged so far reached the storage.
	inserted float64
	// The run's schedule (core/runtime): batch j is sampled once
	// starts + (max(j-D+1, 0) + 1) x interval data points are stored, so
	// it waits for the data it needs, not for data the actors charged
	// ahead of it. stored counts the data points charged; arrivals holds,
	// from the oldest a later batch may need, when the stored count
	// reached each value (both monotone).
	starts, interval int64
	stored           int64
	arrivals         []arrival
	passed           int // arrivals before it are needed no more

	costs  stepCosts // under the current mapping
	tActor float64   // one actor step with its inference (hw.Estimator.ActorStepSeconds)
}

// arrival is when the storage held count data points.
type arrival struct {
	count int64
	at    float64
}

// NewOffPolicy returns the clock of a run on pl's mapping with the
// workload's learner batch, D batches sampled ahead (Workload.LoopDepth)
// and actors CPU cores: the D the exploration bounds the loop with is the
// D the clock runs.
func NewOffPolicy(pl *Placement) (*OffPolicy, error) {
	w := &pl.Workload
	batch, depth, actors := w.Batch, w.LoopDepth(), w.Actors
	if batch < 1 || actors < 1 {
		return nil, fmt.Errorf("sim: batch %d, actors %d: each must be >= 1", batch, actors)
	}
	s := &OffPolicy{pl: pl, batch: batch, depth: depth, units: newPlatformUnits(actors),
		updated: make([]float64, depth), arrived: make([]float64, depth),
		interval: int64(w.InsertsPerStep())}
	var err error
	if s.tActor, err = pl.Est.ActorStepSeconds(); err != nil {
		return nil, fmt.Errorf("sim: actor step: %w", err)
	}
	c, err := s.costsOf(pl.Mapping)
	if err != nil {
		return nil, err
	}
	s.use(pl.Mapping, c)
	return s, nil
}

// Schedule sets the run's learning start and update interval (the runtime's
// LearningStarts and UpdateInterval): gradient step g needs starts +
// (g+1) x interval data points stored, and a batch sampled D-1 steps ahead
// needs those of its step's D-1 steps earlier. Without it the clock
// assumes no start and the workload's inserts per step.
func (s *OffPolicy) Schedule(starts, interval int) {
	s.starts, s.interval = int64(starts), int64(interval)
}

// storedBy returns when the storage held need data points: the first
// arrival of that count, or the latest insert when the data is not
// charged yet. Needs only grow, so the arrivals before need are passed
// for good.
func (s *OffPolicy) storedBy(need int64) float64 {
	for s.passed < len(s.arrivals) && s.arrivals[s.passed].count < need {
		s.passed++
	}
	if s.passed > len(s.arrivals)/2 {
		// Move the live arrivals down, in place: charging allocates
		// nothing once the slice has grown to the actors' lead.
		n := copy(s.arrivals, s.arrivals[s.passed:])
		s.arrivals, s.passed = s.arrivals[:n], 0
	}
	if s.passed == len(s.arrivals) {
		return s.inserted
	}
	return s.arrivals[s.passed].at
}

// Placement returns the placement the clock charges to, for the views;
// Remap and RemapAuto change its mapping.
func (s *OffPolicy) Placement() *Placement { return s.pl }

// Remap moves the learner, the RMM and the storage to the devices of m,
// set by hand, from the next gradient step on; work already charged stays
// where it ran. A mapping the platform cannot run is an error (wrapping
// ErrInfeasible when the exploration says why) and changes nothing.
func (s *OffPolicy) Remap(m hw.Mapping) error {
	ev, err := s.pl.Evaluate(m)
	if err != nil {
		return err
	}
	c, err := s.costsOf(m)
	if err != nil {
		return err
	}
	s.pl.Mapping, s.pl.Eval = m, ev
	s.use(m, c)
	return nil
}

// RemapAuto moves them to the mapping the exploration chose (000
// Algorithm 3), as Remap does.
func (s *OffPolicy) RemapAuto() error {
	m := s.pl.Explored.Chosen.Mapping
	c, err := s.costsOf(m)
	if err != nil {
		return err
	}
	s.pl.SelectAuto()
	s.use(m, c)
	return nil
}

// stepCosts are the seconds of one gradient step's primitives under a
// mapping, and its crossings (dse.LoopCrossings) with their thread
// hand-offs; they depend only on the batch, so they are computed once per
// mapping.
type stepCosts struct {
	sample, update, train, gather float64
	crossings                     [3]dse.Crossing
	handoffs                      [3]float64
}

// costsOf computes the step's costs under m, changing nothing.
func (s *OffPolicy) costsOf(m hw.Mapping) (stepCosts, error) {
	e := s.pl.Est
	var c stepCosts
	var err error
	for _, q := range []struct {
		dst *float64
		k   hw.Kind
		p   hw.Primitive
	}{{&c.train, m.Learner, hw.TrainStep}, {&c.sample, m.RMM, hw.PrefixSum}, {&c.update, m.RMM, hw.PriorityUpdate}} {
		if *q.dst, err = e.Seconds(q.k, q.p, s.batch); err != nil {
			return c, fmt.Errorf("sim: mapping %s: %w", m, err)
		}
	}
	c.gather = float64(s.pl.Workload.BatchBytes(s.batch)) / (s.pl.Platform.MemBWGBs(m.Storage) * 1e9)
	c.crossings = dse.LoopCrossings(&s.pl.Workload, m, s.batch)
	for i, x := range c.crossings {
		c.handoffs[i] = x.Handoff(e)
	}
	return c, nil
}

// use charges the next steps to m's units at costs c.
func (s *OffPolicy) use(m hw.Mapping, c stepCosts) {
	s.costs = c
	s.learner = s.units.get(m.Learner, "learner")
	s.rmm = s.units.get(m.RMM, "RMM")
	s.rmm.shares = nil
	if m.RMM == m.Learner && m.RMM == hw.GPU {
		// 000 §VI-B: the RMM and the learner share the GPU, one
		// kernel at a time; the RMM's work is still its own.
		s.rmm.shares = s.learner
	}
	s.storage = s.units.get(m.Storage, "storage")
	transfers := [][2]hw.Kind{{hw.CPU, m.Storage}} // the actors' data
	for _, x := range c.crossings {
		transfers = append(transfers, [2]hw.Kind{x.From, x.To})
	}
	s.units.assign([]*unit{s.learner, s.rmm, s.storage}, transfers)
}

// cross charges crossing i of the step's chain (stepCosts.crossings),
// ready at ready, and returns when its message is taken up.
func (s *OffPolicy) cross(i int, ready float64) float64 {
	c := s.costs.crossings[i]
	return s.transfer(c.From, c.To, c.Bytes, ready) + s.costs.handoffs[i]
}

// transfer charges moving bytes from device a to device b, ready at ready.
func (s *OffPolicy) transfer(a, b hw.Kind, bytes int64, ready float64) float64 {
	if bytes <= 0 {
		return ready
	}
	return s.units.transfer(a, b, s.pl.Est.Transfer(bytes), s.pl.Est.TransferLatency(), ready)
}

// GradientStep charges one learner step of batch B and returns its
// simulated end.
//
// The RMM samples ahead: before step k trains, every batch up to k+D-1 is
// sampled, batch j as soon as the priorities of step j-D are updated, the
// pre-sampler of 000 §V-A. With D = 1 batch k is sampled after step k-1's
// update: the strict loop, in which nothing overlaps. No batch is sampled
// before the data its step needs is stored (Schedule), so a learner never
// runs ahead of the actors that feed it: if they are slower on the
// platform, they set the pace. Data the actors charged beyond that need,
// as they do when the host's learner is slow, does not hold it back.
func (s *OffPolicy) GradientStep() float64 {
	d := int64(s.depth)
	for ; s.sampled < s.step+d; s.sampled++ {
		ready := s.storedBy(s.starts + (max(s.sampled-d+1, 0)+1)*s.interval)
		if s.sampled >= d {
			ready = max(ready, s.updated[s.sampled%d]) // the update of step sampled-D
		}
		_, t := s.rmm.run(ready, s.costs.sample)
		t = s.cross(0, t) // the indices to the storage
		_, t = s.storage.run(t, s.costs.gather)
		s.arrived[s.sampled%d] = s.cross(1, t) // the rows to the learner
	}
	slot := s.step % d
	_, t := s.learner.run(s.arrived[slot], s.costs.train)
	t = s.cross(2, t) // the indices and new priorities back
	_, t = s.rmm.run(t, s.costs.update)
	s.updated[slot] = t
	s.lastEnd = t
	s.ends[s.step%traceSteps] = t
	s.step++
	return t
}

// ActorSteps charges n environment steps, each with one policy inference,
// to the actor cores, and the insertion of their data into the storage,
// and returns when the data is stored.
//
// The steps go to the least busy core, whichever host goroutine ran them:
// the actors are identical, and the host's scheduling, which lets one
// goroutine run ahead of another, is not the platform's. On the platform
// N cores share the collection evenly.
func (s *OffPolicy) ActorSteps(n int) float64 {
	r := s.units.actors[0]
	for _, c := range s.units.actors[1:] {
		if c.free < r.free {
			r = c
		}
	}
	_, t := r.run(r.free, float64(n)*s.tActor)
	bytes := int64(n) * int64(s.pl.Workload.DataPointBytes)
	t = s.transfer(hw.CPU, s.pl.Mapping.Storage, bytes, t)
	s.inserted = max(s.inserted, t)
	s.stored += int64(n)
	s.arrivals = append(s.arrivals, arrival{s.stored, s.inserted})
	return t
}

// Steps returns the gradient steps charged.
func (s *OffPolicy) Steps() int64 { return s.step }

// LastStepEnd returns when the latest gradient step charged ended (its
// priority update), 0 before the first.
func (s *OffPolicy) LastStepEnd() float64 { return s.lastEnd }

// Now returns the simulated time of the platform: the end of the latest
// gradient step, or of the latest insert when the actors lead (as they do
// before learning starts). Work already charged for future steps, such as
// batches the RMM sampled ahead, does not count: the platform has not
// finished a step by doing part of the next ones.
func (s *OffPolicy) Now() float64 { return max(s.lastEnd, s.inserted) }

// traceSteps is how many gradient steps the traces cover.
const traceSteps = 64

// Traces returns the units' traces (platformUnits.traces: those the
// mapping uses, and those busy in the window) over the window of the last
// traceSteps gradient steps (all of the run before that many), and the
// window.
func (s *OffPolicy) Traces() (traces []Trace, from, to float64) {
	to = s.Now()
	if s.step >= traceSteps {
		from = s.ends[s.step%traceSteps] // the end of the step traceSteps ago
	}
	return s.units.traces(from, to), from, to
}

// Pipelines returns the cycle-level runs of the FPGA units the mapping
// uses, for one gradient step's batch: the learner pipeline (000 Fig. 3,
// §VI-A2) and the RMM's sampling pipelines per bank (000 Fig. 5).
func (s *OffPolicy) Pipelines() []Pipeline {
	pl := s.pl
	f := pl.Platform.FPGA
	design := pl.Explored.Arch.Design()
	if f == nil || design == nil {
		return nil
	}
	var out []Pipeline
	if pl.Mapping.Learner == hw.FPGA && design.Learner != nil {
		stages := hw.LearnerStages(&pl.Workload)
		names := make([]string, len(stages))
		for i, st := range stages {
			names[i] = st.Name
		}
		out = append(out, Pipeline{
			Name:     "FPGA learner pipeline (one step)",
			Timeline: hw.SimulateLearner(design.Learner, s.batch, names),
			Hz:       f.Hz(),
			Row: func(i int) string {
				if i < len(names) {
					return names[i]
				}
				return "weight update"
			},
		})
	}
	if pl.Mapping.RMM == hw.FPGA && design.RMM.S > 0 {
		rmm := design.RMM
		res, err := hw.SimulateRMM(rmm, hw.RoundRobinBanks(s.batch, rmm.S), f.RMMFIFODepth, true)
		if err == nil {
			bank := rowGroups(rmm.S, "bank", "banks")
			out = append(out, Pipeline{Name: "FPGA RMM samplers (one batch)", Timeline: res.Timeline, Hz: f.Hz(),
				Row: func(i int) string { return bank(i / rmm.H) }})
		}
	}
	return out
}
