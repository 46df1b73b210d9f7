package engine

import (
	"fmt"

	"github.com/rlxdev/rlx/hw"
)

// offPolicySim charges the primitives of an off-policy run (actors, replay
// manager, data storage, learner) to the devices of a mapping and keeps the
// simulated platform clock (000 §V, Fig. 7).
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
type offPolicySim struct {
	pl    *placement
	batch int
	depth int

	actors  []*resource // one CPU core each
	learner *resource
	rmm     *resource // the learner's resource when both are on the GPU
	storage *resource
	links   [hw.NumKinds]*resource // PCIe of the GPU and of the FPGA; none for the CPU
	// units holds every learner, RMM and storage unit ever used, by device
	// and stage, so that a unit keeps its timeline across mapping changes.
	units unitSet

	// Rings of D entries, indexed by step modulo D: when step j's priority
	// update ended, and when the rows of the batch sampled for step j are
	// at the learner.
	updated, arrived []float64
	step             int64 // the next gradient step
	sampled          int64 // the next batch to sample
	lastEnd          float64
	ends             [viewSteps]float64 // ends of the latest steps, a ring
	// inserted is when the latest data charged so far reached the storage:
	// a batch is sampled no earlier, since the run sampled it only after
	// that data existed.
	inserted float64

	// Per-primitive costs for the current mapping, precomputed because they
	// depend only on the batch (seconds).
	tSample, tUpdate, tTrain, tGather float64
	tEnv, tInfer                      float64
}

func newOffPolicySim(pl *placement, batch, depth, actors int) (*offPolicySim, error) {
	s := &offPolicySim{pl: pl, batch: batch, depth: depth, units: unitSet{},
		updated: make([]float64, depth), arrived: make([]float64, depth)}
	for i := range actors {
		s.actors = append(s.actors, &resource{device: "CPU", stage: fmt.Sprintf("actor %d", i)})
	}
	for _, k := range []hw.Kind{hw.GPU, hw.FPGA} {
		s.links[k] = &resource{device: "PCIe", stage: "CPU-" + k.String()}
	}
	if err := s.remap(pl.mapping); err != nil {
		return nil, err
	}
	return s, nil
}

// remap moves the learner, the RMM and the storage to the devices of m, from
// the next gradient step on. Work already charged stays where it ran.
func (s *offPolicySim) remap(m hw.Mapping) error {
	e := s.pl.est
	var err error
	cost := func(k hw.Kind, p hw.Primitive, n int) float64 {
		if err != nil {
			return 0
		}
		var t float64
		t, err = e.Seconds(k, p, n)
		return t
	}
	s.tTrain = cost(m.Learner, hw.TrainStep, s.batch)
	s.tSample = cost(m.RMM, hw.PrefixSum, s.batch)
	s.tUpdate = cost(m.RMM, hw.PriorityUpdate, s.batch)
	s.tEnv = cost(hw.CPU, hw.EnvStep, 1)
	s.tInfer = cost(hw.CPU, hw.Inference, 1)
	if err != nil {
		return fmt.Errorf("engine: mapping %s: %w", m, err)
	}
	s.tGather = float64(s.pl.workload.BatchBytes(s.batch)) / (s.pl.platform.MemBWGBs(m.Storage) * 1e9)
	s.learner = s.units.get(m.Learner, "learner")
	if m.RMM == m.Learner && m.RMM == hw.GPU {
		// 000 §VI-B: the RMM and the learner share the GPU.
		s.rmm = s.learner
	} else {
		s.rmm = s.units.get(m.RMM, "RMM")
	}
	s.storage = s.units.get(m.Storage, "storage")
	s.pl.mapping = m
	return nil
}

// transfer charges moving bytes from device a to device b, which ready at
// ready, over each link the data crosses (hw.Links), and returns when they
// arrive.
func (s *offPolicySim) transfer(a, b hw.Kind, bytes int64, ready float64) float64 {
	if bytes <= 0 {
		return ready
	}
	dur := s.pl.est.Transfer(bytes)
	for _, k := range hw.Links(a, b) {
		_, ready = s.links[k].run(ready, dur)
	}
	return ready
}

// gradientStep charges one learner step of batch B and returns its
// simulated end.
//
// The RMM samples ahead: before step k trains, every batch up to k+D-1 is
// sampled, batch j as soon as the priorities of step j-D are updated, the
// pre-sampler of 000 §V-A. With D = 1 batch k is sampled after step k-1's
// update: the strict loop, in which nothing overlaps. No batch is sampled
// before the data charged so far is stored, so a learner never runs ahead
// of the actors that feed it: if they are slower on the platform, they set
// the pace.
func (s *offPolicySim) gradientStep() float64 {
	m := s.pl.mapping
	b := int64(s.batch)
	d := int64(s.depth)
	for ; s.sampled < s.step+d; s.sampled++ {
		ready := s.inserted
		if s.sampled >= d {
			ready = max(ready, s.updated[s.sampled%d]) // the update of step sampled-D
		}
		_, t := s.rmm.run(ready, s.tSample)
		t = s.transfer(m.RMM, m.Storage, 4*b, t)
		_, t = s.storage.run(t, s.tGather)
		s.arrived[s.sampled%d] = s.transfer(m.Storage, m.Learner, s.pl.workload.BatchBytes(s.batch), t)
	}
	slot := s.step % d
	_, t := s.learner.run(s.arrived[slot], s.tTrain)
	t = s.transfer(m.Learner, m.RMM, 8*b, t)
	_, t = s.rmm.run(t, s.tUpdate)
	s.updated[slot] = t
	s.lastEnd = t
	s.ends[s.step%viewSteps] = t
	s.step++
	return t
}

// viewSteps is how many gradient steps the timelines show.
const viewSteps = 64

// views renders the units' timelines over the last viewSteps gradient
// steps (all of the run before that many).
func (s *offPolicySim) views() []DeviceView {
	now := s.now()
	from := 0.0
	if s.step >= viewSteps {
		from = s.ends[s.step%viewSteps] // the end of the step viewSteps ago
	}
	return unitViews(s.resources(), from, now)
}

// actorSteps charges n environment steps, each with one policy inference,
// to the actor cores, and the insertion of their data into the storage.
//
// The steps go to the least busy core, whichever host goroutine ran them:
// the actors are identical, and the host's scheduling, which lets one
// goroutine run ahead of another, is not the platform's. On the platform
// N cores share the collection evenly.
func (s *offPolicySim) actorSteps(n int) float64 {
	r := s.actors[0]
	for _, c := range s.actors[1:] {
		if c.free < r.free {
			r = c
		}
	}
	_, t := r.run(r.free, float64(n)*(s.tEnv+s.tInfer))
	m := s.pl.mapping
	bytes := int64(n) * int64(s.pl.workload.DataPointBytes)
	t = s.transfer(hw.CPU, m.Storage, bytes, t)
	s.inserted = max(s.inserted, t)
	return t
}

// now returns the simulated time of the platform: the end of the latest
// gradient step, or of the latest insert when the actors lead (as they do
// before learning starts). Work already charged for future steps, such as
// batches the RMM sampled ahead, does not count: the platform has not
// finished a step by doing part of the next ones.
func (s *offPolicySim) now() float64 {
	return max(s.lastEnd, s.inserted)
}

// resources lists every unit ever used, the actors last.
func (s *offPolicySim) resources() []*resource {
	var rs []*resource
	for _, r := range s.units {
		rs = append(rs, r)
	}
	rs = append(rs, s.links[hw.GPU], s.links[hw.FPGA])
	return append(rs, s.actors...)
}
