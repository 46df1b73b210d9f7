package dse

import (
	"fmt"
	"math"

	"github.com/rlxdev/rlx/hw"
)

// Traffic is the per-gradient-step data movement of 000 Algorithm 3 line 11
// in words: B indices from the RMM, B x E sample words to the learner and
// inserts x E inserted words from the actors (000: N_actor, one per actor;
// hw.Workload.InsertsPerStep), counted for every component not on the
// storage's device.
func Traffic(m hw.Mapping, batch, inserts int, words int64) int64 {
	var t int64
	if m.RMM != m.Storage {
		t += int64(batch)
	}
	if m.Learner != m.Storage {
		t += int64(batch) * words
	}
	if m.Storage != hw.CPU {
		t += int64(inserts) * words
	}
	return t
}

// Eval is the modelled throughput of one mapping.
type Eval struct {
	Mapping hw.Mapping
	// GPS is gradient steps per second on the simulated platform; 0 when
	// the mapping is infeasible.
	GPS float64
	// Seconds of one step of the learner (including an RMM that shares the
	// GPU), the RMM, the storage gather and each PCIe link; the largest
	// bounds the pipelined loop (000 §V-A: with the relaxed dependency the
	// stages overlap).
	LearnerS, RMMS, StorageS, LinkGPUS, LinkFPGAS float64
	// ActorsS is the actors' share of one step: EnvStepsPerStep
	// environment steps, each with one policy inference on a CPU core,
	// spread over the actors' cores; 0 when the workload leaves them out.
	ActorsS float64
	// LoopS is one step's dependency chain on idle units: sampling a batch,
	// the indices to the storage, the gather, the rows to the learner,
	// training, the TD errors back and the priority update. Batch k waits
	// for the update of step k-D, so D steps take at least LoopS and the
	// loop bounds the rate at D / LoopS. LatencyS is the part of LoopS
	// that is PCIe transfer latency, the part 000 §V-A hides by sampling
	// ahead (the CPU's thread hand-offs, also in LoopS, are not in it).
	LoopS, LatencyS float64
	// Depth is the D the loop ran with.
	Depth int
	// Watts is the platform's power running the mapping at GPS and
	// GPSPerWatt its efficiency (000 §VII-E, MappingPower), each device
	// busy as its busiest unit; both 0 when the platform gives no power
	// figures.
	Watts, GPSPerWatt float64
	// Bottleneck names the stage with the largest time.
	Bottleneck string
	// Infeasible says why GPS is 0, empty otherwise.
	Infeasible string
}

// Evaluate returns the throughput of mapping m for the table t. The loop
// runs as a pipeline of stages (learner, RMM, storage, links); its rate is
// that of the slowest, or D / LoopS when the dependency of each batch on
// the update D steps back is slower still (the strict loop, D = 1, runs the
// chain end to end: nothing overlaps). A learner and an RMM on the GPU
// share it and add up (000 §VI-B); on the CPU and the FPGA the RMM has its
// own thread or SLR. The storage must fit the device's memory.
func Evaluate(e *hw.Estimator, t *Table, m hw.Mapping) Eval {
	w := e.Workload()
	p := e.Platform()
	ev := Eval{Mapping: m}
	// On the FPGA a missing design is one that does not fit its SLRs
	// (ExploreFPGA; FPGAArch.NoLearner and NoRMM say by how much).
	if t.TP[Learner][m.Learner] == 0 {
		ev.Infeasible = fmt.Sprintf("no %s learner design for this workload", m.Learner)
		if m.Learner == hw.FPGA && e.FPGA().Learner == nil {
			ev.Infeasible = "no FPGA learner design fits the learner SLRs"
		}
		return ev
	}
	if t.TP[RMM][m.RMM] == 0 {
		ev.Infeasible = fmt.Sprintf("no %s RMM", m.RMM)
		if m.RMM == hw.FPGA && e.FPGA().RMM.S == 0 {
			ev.Infeasible = "no FPGA RMM design fits the RMM SLRs"
		}
		return ev
	}
	if need := w.StorageBytes(m.Learner, m.Storage) / 1e9; need > p.MemoryGB(m.Storage) {
		ev.Infeasible = fmt.Sprintf("storage of %.1f GB exceeds %s memory of %.1f GB", need, m.Storage, p.MemoryGB(m.Storage))
		return ev
	}
	b := t.Batch
	ev.LearnerS = t.Seconds[Learner][m.Learner]
	ev.RMMS = t.Seconds[RMM][m.RMM]
	if m.Learner == hw.GPU && m.RMM == hw.GPU {
		ev.LearnerS += ev.RMMS
	}
	ev.StorageS = float64(w.BatchBytes(b)) / (p.MemBWGBs(m.Storage) * 1e9)
	// Bytes per step over each PCIe link.
	var link [hw.NumKinds]int64
	move := func(from, to hw.Kind, bytes int64) {
		for _, k := range hw.Links(from, to) {
			link[k] += bytes
		}
	}
	// One step's chain, as the simulated clock runs it (sim.OffPolicy):
	// sampling and update (the RMM column), the gather, training and the
	// three crossings between them.
	ev.LoopS = ev.RMMS + ev.StorageS + t.Seconds[Learner][m.Learner]
	for _, c := range LoopCrossings(w, m, b) {
		move(c.From, c.To, c.Bytes)
		ev.LoopS += e.CrossingSeconds(c.From, c.To, c.Bytes) + c.Handoff(e)
		ev.LatencyS += e.CrossingLatency(c.From, c.To)
	}
	inserts := int64(w.InsertsPerStep())
	move(hw.CPU, m.Storage, inserts*int64(w.DataPointBytes)) // inserted data
	move(hw.CPU, m.RMM, 4*inserts)                           // initial priorities
	ev.LinkGPUS = e.Transfer(link[hw.GPU])
	ev.LinkFPGAS = e.Transfer(link[hw.FPGA])
	ev.ActorsS = actorSeconds(e, w)
	ev.Depth = w.LoopDepth()
	stages := []struct {
		name string
		s    float64
	}{{"learner", ev.LearnerS}, {"rmm", ev.RMMS}, {"storage", ev.StorageS}, {"pcie-gpu", ev.LinkGPUS}, {"pcie-fpga", ev.LinkFPGAS},
		{"dependency", ev.LoopS / float64(ev.Depth)}, {"actors", ev.ActorsS}}
	worst := 0.0
	for _, st := range stages {
		if st.s > worst {
			worst, ev.Bottleneck = st.s, st.name
		}
	}
	ev.GPS = 1 / worst
	ev.Watts, ev.GPSPerWatt = evalPower(p, ev)
	return ev
}

// actorSeconds returns the actors' time per gradient step: w's
// environment steps per gradient step, each one actor step on one CPU
// core (hw.Estimator.ActorStepSeconds), over w.Actors cores; 0 when the
// workload leaves the actors out. A platform that cannot run them charges
// nothing.
func actorSeconds(e *hw.Estimator, w *hw.Workload) float64 {
	if w.EnvStepsPerStep == 0 {
		return 0
	}
	step, err := e.ActorStepSeconds()
	if err != nil {
		return 0
	}
	return float64(w.EnvStepsPerStep) * step / float64(w.Actors)
}

// evalPower returns the power of ev's mapping at its rate: each device is
// as busy as the busiest of its units (the learner with an RMM that shares
// the GPU, the RMM, the storage's gather), a unit busy its step time per
// step. A platform without power figures gives 0, 0.
func evalPower(p *hw.Platform, ev Eval) (watts, gpsPerWatt float64) {
	var busy [hw.NumKinds]float64
	for _, u := range []struct {
		k hw.Kind
		s float64
	}{{ev.Mapping.Learner, ev.LearnerS}, {ev.Mapping.RMM, ev.RMMS}, {ev.Mapping.Storage, ev.StorageS}} {
		busy[u.k] = max(busy[u.k], min(1, u.s*ev.GPS))
	}
	sp, err := MappingPower(p, ev.Mapping, ev.GPS, busy)
	if err != nil {
		return 0, 0
	}
	return sp.Watts, sp.GPSPerWatt
}

// Decision is the output of the mapping algorithm with its evidence.
type Decision struct {
	Mapping hw.Mapping
	// PrunedGPU reports whether Algorithm 3 line 6-7 removed the GPU from
	// the RMM's choices.
	PrunedGPU bool
	// Tie explains a choice among RMM devices of equal system throughput.
	Tie string
}

// Decide runs 000 Algorithm 3 on the table.
//
// Step 1 maps the learner to the device of highest TP_learner. Step 2 maps
// the RMM: if the learner is on the GPU and the FPGA RMM alone keeps up with
// it, the GPU is removed from the RMM's choices (lines 6-7, sharing the GPU
// would slow the learner). Among the rest it takes the device that maximizes
// min(TP_learner, TP_RMM) (Eq. 3); when several reach the same value (the
// learner is the bottleneck), it prefers the mapping with fewer devices and
// then the less traffic, as 000 §VII-D describes ("minimizes the total
// number of devices and the amount of data communication"). Step 3 places
// the storage, among the learner's, the actors' and the RMM's devices in
// that order, where the traffic of line 11-15 is least and the storage fits
// (with the Data Queue when it shares the learner's accelerator).
func Decide(p *hw.Platform, w *hw.Workload, t *Table) (Decision, error) {
	var d Decision
	best := -1.0
	for _, k := range hw.Kinds {
		if t.TP[Learner][k] > best {
			best, d.Mapping.Learner = t.TP[Learner][k], k
		}
	}
	if best <= 0 {
		return d, fmt.Errorf("no device can run the learner of %s", w.Name)
	}
	tpL := t.TP[Learner][d.Mapping.Learner]
	d.PrunedGPU = d.Mapping.Learner == hw.GPU && t.TP[RMM][hw.FPGA] >= tpL
	words := int64((w.DataPointBytes + 3) / 4)
	bestSys := -1.0
	bestDev, bestTraffic := math.MaxInt, int64(math.MaxInt64)
	for _, k := range hw.Kinds {
		if d.PrunedGPU && k == hw.GPU || t.TP[RMM][k] == 0 {
			continue
		}
		sys := min(tpL, t.TP[RMM][k])
		cand := hw.Mapping{Learner: d.Mapping.Learner, RMM: k, Storage: d.Mapping.Learner}
		devs := hw.Mapping{Learner: cand.Learner, RMM: k, Storage: k}.DeviceCount()
		traffic := Traffic(cand, t.Batch, w.InsertsPerStep(), words)
		switch {
		case sys > bestSys:
		case sys == bestSys && devs < bestDev:
			d.Tie = fmt.Sprintf("RMM on %s or %s gives the same throughput; %s uses fewer devices", d.Mapping.RMM, k, k)
		case sys == bestSys && devs == bestDev && traffic < bestTraffic:
			d.Tie = fmt.Sprintf("RMM on %s or %s gives the same throughput; %s moves less data", d.Mapping.RMM, k, k)
		default:
			if sys == bestSys && d.Tie == "" {
				d.Tie = fmt.Sprintf("RMM on %s or %s gives the same throughput; kept %s", d.Mapping.RMM, k, d.Mapping.RMM)
			}
			continue
		}
		bestSys, bestDev, bestTraffic = sys, devs, traffic
		d.Mapping.RMM = k
	}
	if bestSys <= 0 {
		return d, fmt.Errorf("no device can run the RMM of %s", w.Name)
	}
	s, err := PlaceStorage(p, w, d.Mapping.Learner, d.Mapping.RMM, t.Batch)
	d.Mapping.Storage = s
	return d, err
}

// PlaceStorage is Algorithm 3 step 3: among the learner's, the actors' (CPU)
// and the RMM's devices, in that order, the one with the least traffic
// whose memory holds the storage.
func PlaceStorage(p *hw.Platform, w *hw.Workload, learner, rmm hw.Kind, batch int) (hw.Kind, error) {
	words := int64((w.DataPointBytes + 3) / 4)
	best, found := hw.CPU, false
	var least int64
	for _, k := range []hw.Kind{learner, hw.CPU, rmm} {
		if w.StorageBytes(learner, k)/1e9 > p.MemoryGB(k) {
			continue
		}
		tr := Traffic(hw.Mapping{Learner: learner, RMM: rmm, Storage: k}, batch, w.InsertsPerStep(), words)
		if !found || tr < least {
			best, least, found = k, tr, true
		}
	}
	if !found {
		need := w.StorageBytes(learner, hw.CPU) / 1e9
		return best, fmt.Errorf("the storage of %.1f GB fits no device of %s", need, p.Name)
	}
	return best, nil
}

// Crossing is one message of a gradient step's chain, Bytes from a unit
// on device From to one on To. Learner marks the two that reach or leave
// the learner, which runs on a thread of its own: on the CPU each pays a
// thread hand-off.
type Crossing struct {
	From, To hw.Kind
	Bytes    int64
	Learner  bool
}

// Handoff returns the crossing's thread hand-off on e's platform
// (hw.Estimator.Handoff), 0 for one that does not reach the learner.
func (c Crossing) Handoff(e *hw.Estimator) float64 {
	if !c.Learner {
		return 0
	}
	return e.Handoff(c.From, c.To)
}

// LoopCrossings returns the three crossings of one gradient step of batch
// b under m, in the order the step runs them: the sampled indices from the
// RMM to the storage (the RMM gathers on its own thread), the sampled rows
// to the learner, and the indices and new priorities back to the RMM.
// Evaluate and sim.OffPolicy both charge this chain.
func LoopCrossings(w *hw.Workload, m hw.Mapping, b int) [3]Crossing {
	return [3]Crossing{
		{m.RMM, m.Storage, 4 * int64(b), false},
		{m.Storage, m.Learner, w.BatchBytes(b), true},
		{m.Learner, m.RMM, 8 * int64(b), true},
	}
}
