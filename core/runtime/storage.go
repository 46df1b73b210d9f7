package runtime

import (
	"context"
	"fmt"
)

// storageUnit is the Data Storage (000 §II-A3, Table II: input queue
// samples, kernel data insertion, 000 §V-B: the request queue shared by
// all actors). It inserts each flushed local storage into the replay
// buffer with lazy writing (002 §IV-D2), at the largest stored priority,
// and returns the emptied storage to its actor.
type storageUnit struct {
	unit
	r       *Run
	pending []*chunk // lockstep: storages received ahead of their turn
}

func (d *storageUnit) run(ctx context.Context) error {
	r, s := d.r, d.r.sched
	lockstep := r.cfg.Pacing == PaceLockstep
	row := rowBytes(r.agent.ObsDim(), r.agent.ActDim())
	for c := 0; c < s.chunks(); c++ {
		if err := r.gate(ctx, &d.unit); err != nil {
			return err
		}
		var ch *chunk
		if lockstep {
			// Storage c goes in only after every gradient step on storages
			// < c is done and every batch drawn from them is sampled, so
			// that the buffer each sample and update sees is a fixed
			// function of the configuration.
			for ch = d.take(c); ch == nil; ch = d.take(c) {
				got, err := popWait(ctx, &d.unit, r.insertQ)
				if err != nil {
					return err
				}
				d.pending = append(d.pending, got)
			}
			updates, samples := s.gradsBefore(c), s.samplesBefore(c)
			m := r.rmms[0] // lockstep has one
			ready := func() bool { return int(m.updatedA.Load()) >= updates && int(m.sampledA.Load()) >= samples }
			if err := r.waitFor(ctx, &d.unit, ready); err != nil {
				return err
			}
		} else {
			var err error
			if ch, err = popWait(ctx, &d.unit, r.insertQ); err != nil {
				return err
			}
		}
		if err := r.gate(ctx, &d.unit); err != nil {
			return err
		}
		d.tr.Begin()
		if err := r.buf.add(ch.ts[:ch.n]); err != nil {
			return fmt.Errorf("insert of storage %d from actor %d: %w", ch.index, ch.actor, err)
		}
		d.tr.MarkBytes(KindInsert, ch.n, int64(ch.n)*row)
		r.inserted.Add(int64(ch.n))
		r.added.Add(1)
		d.count.Add(int64(ch.n))
		r.actors[ch.actor].free.TryPush(ch) // it has room for every storage the actor owns
		r.pokeAll()
	}
	return nil
}

// take removes and returns the pending storage of index c, if received.
func (d *storageUnit) take(c int) *chunk {
	for k, ch := range d.pending {
		if ch.index == c {
			d.pending[k] = d.pending[len(d.pending)-1]
			d.pending = d.pending[:len(d.pending)-1]
			return ch
		}
	}
	return nil
}
