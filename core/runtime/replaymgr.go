package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/rlxdev/rlx/core/replay"
)

// item is a sampled batch on its way to a learner and back with its TD
// errors. There are D items per replay manager: the D tokens of the relaxed
// dependency.
type item struct {
	b    replay.Batch
	td   []float32
	step int
}

// replayUnit is a Replay Management Module (000 §II-A3, Table II): it
// samples batches by prefix sum from the sum tree (of its bank, with SPO)
// and applies the learner's priority updates. It keeps up to D batches
// sampled ahead of their updates (000 §V-A, the data-dependency relaxed
// training loop): D = 1 is the strict sample-train-update loop.
//
// Its two queues are the data queue to the learner and the priority queue
// back from it, each of capacity D, so neither ever blocks the sender.
type replayUnit struct {
	unit
	r        *Run
	bank     int
	batch    int
	data     *Queue[*item]
	prio     *Queue[*item]
	free     []*item
	rng      *rand.Rand
	anneal   replay.Anneal
	updatedA atomic.Int64 // priority updates applied, for pacing
	sampledA atomic.Int64
}

func newReplayUnit(r *Run, l int) *replayUnit {
	d := r.cfg.Depth
	m := &replayUnit{
		r: r, bank: l, batch: r.cfg.BatchSize,
		data:   NewQueue[*item](fmt.Sprintf("data %d", l), d),
		prio:   NewQueue[*item](fmt.Sprintf("priorities %d", l), d),
		rng:    rand.New(rand.NewPCG(r.cfg.Seed, streamReplay+uint64(l))),
		anneal: replay.Anneal{Start: r.cfg.Replay.Beta, End: 1, Steps: r.cfg.GradSteps},
	}
	m.init(UnitID{RoleReplay, l})
	for range d {
		m.free = append(m.free, &item{td: make([]float32, r.cfg.BatchSize)})
	}
	return m
}

func (m *replayUnit) run(ctx context.Context) error {
	r, s := m.r, m.r.sched
	grads := r.cfg.GradSteps
	sampled, updated := 0, 0
	gather := int64(m.batch) * rowBytes(r.agent.ObsDim(), r.agent.ActDim())
	var pending *item // a received priority update not yet applied
	for updated < grads {
		if err := r.gate(ctx, &m.unit); err != nil {
			return err
		}
		// Sampling first whenever a token and the data are there, even
		// with an update received: in lockstep this preference makes the
		// order of operations fixed (whether a sample is possible cannot
		// change between an update's arrival and this decision).
		if sampled < grads && sampled-updated < r.cfg.Depth && int(r.inserted.Load()) >= s.sampleNeed(sampled) {
			it := m.free[len(m.free)-1]
			if r.cfg.AnnealBeta {
				if err := r.buf.bank(m.bank).SetBeta(m.anneal.At(sampled)); err != nil {
					return err
				}
			}
			m.tr.Begin()
			err := r.buf.sample(m.bank, &it.b, m.batch, m.rng)
			switch {
			case err == nil:
				m.tr.Mark(KindSample, m.batch)
				m.tr.Instant(KindGather, m.batch, gather)
				m.free = m.free[:len(m.free)-1]
				it.step = sampled
				sampled++
				m.sampledA.Store(int64(sampled))
				if err := m.data.Push(ctx, it); err != nil {
					return err
				}
				continue
			case errors.Is(err, replay.ErrEmpty):
				// This bank has nothing yet: wait for an insertion.
			default:
				return err
			}
		}
		if pending != nil {
			if err := m.update(pending); err != nil {
				return err
			}
			pending = nil
			updated++
			m.updatedA.Store(int64(updated))
			r.pokeAll()
			continue
		}
		m.state.Store(stateWaiting)
		t0 := time.Now()
		select {
		case pending = <-m.prio.C():
			m.prio.Received()
			m.wait.Add(int64(time.Since(t0)))
			m.state.Store(stateRunning)
		case <-m.wake:
			m.wait.Add(int64(time.Since(t0)))
			m.state.Store(stateRunning)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// update applies the priority update of a batch and records its staleness.
func (m *replayUnit) update(it *item) error {
	r := m.r
	m.tr.Begin()
	if err := r.buf.update(m.bank, &it.b, it.td); err != nil {
		return fmt.Errorf("priority update of step %d: %w", it.step, err)
	}
	m.tr.Mark(KindPriorityUpdate, it.b.Len())
	st := int64(it.b.Staleness)
	r.staleSum.Add(st)
	r.staleN.Add(1)
	r.skipped.Add(int64(it.b.Skipped))
	for mx := r.staleMax.Load(); st > mx && !r.staleMax.CompareAndSwap(mx, st); mx = r.staleMax.Load() {
	}
	m.count.Add(1)
	m.free = append(m.free, it)
	return nil
}
