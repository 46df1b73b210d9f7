package replay

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// MaxDepth is the largest number of batches a PreSampler keeps ahead.
const MaxDepth = 4096

// ErrClosed is returned by a PreSampler after Close.
var ErrClosed = errors.New("replay: the pre-sampler is closed")

// PreSampler samples batches ahead of a learner: the data-dependency relaxed
// training loop of 000 §V-A. With depth D, up to D batches may be sampled
// before the priority update of the first of them: D = 1 is the strict loop
// (sample, train, update, sample...), in which every batch is drawn from
// up-to-date priorities; larger D lets sampling overlap training, at the
// cost of drawing from priorities up to D-1 updates old (the batch's
// Staleness). 000 §VII-B finds D = 50 costs no reward.
//
// A PreSampler runs one goroutine. Next and Update are meant for one
// learner goroutine, which updates every batch Next returns exactly once.
type PreSampler struct {
	buf   *Buffer
	ready chan *Batch   // sampled batches, in order
	free  chan *Batch   // batches to sample into
	token chan struct{} // one per batch that may be outstanding
	pool  []*Batch      // every batch of free and ready, and those lent; never changes

	cancel context.CancelFunc
	done   chan struct{}
	err    error // why the sampler stopped; read after done is closed

	batches, staleSum, staleMax atomic.Int64
}

// emptyPoll is how often a pre-sampler waiting for a first transition looks
// again.
const emptyPoll = time.Millisecond

// PreSample starts a pre-sampler that keeps up to depth batches of n
// transitions sampled ahead, drawing its targets from rng, which it owns
// from then on. It waits for the buffer to hold data before sampling. It
// returns an error if depth is outside [1, MaxDepth] or n outside
// [1, MaxBatch]. Stop it with Close, or by cancelling ctx.
func (b *Buffer) PreSample(ctx context.Context, depth, n int, rng *rand.Rand) (*PreSampler, error) {
	switch {
	case depth < 1 || depth > MaxDepth:
		return nil, fmt.Errorf("replay: depth %d is out of range: depth must be 1..%d", depth, MaxDepth)
	case n < 1 || n > MaxBatch:
		return nil, fmt.Errorf("replay: batch size %d is out of range: it must be 1..%d", n, MaxBatch)
	case rng == nil:
		return nil, errors.New("replay: PreSample needs a random source")
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &PreSampler{
		buf:    b,
		ready:  make(chan *Batch, depth),
		free:   make(chan *Batch, depth),
		token:  make(chan struct{}, depth),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	for range depth {
		batch := new(Batch)
		p.pool = append(p.pool, batch)
		p.free <- batch
		p.token <- struct{}{}
	}
	go p.run(ctx, n, rng)
	return p, nil
}

func (p *PreSampler) run(ctx context.Context, n int, rng *rand.Rand) {
	defer close(p.done)
	for {
		select {
		case <-ctx.Done():
			p.err = ErrClosed
			return
		case <-p.token:
		}
		batch := <-p.free // as many batches as tokens: never blocks for long
		for {
			err := p.buf.Sample(batch, n, rng)
			if err == nil {
				break
			}
			if !errors.Is(err, ErrEmpty) {
				p.err = err
				return
			}
			select {
			case <-ctx.Done():
				p.err = ErrClosed
				return
			case <-time.After(emptyPoll):
			}
		}
		p.ready <- batch // buffered for every token: never blocks
	}
}

// Next returns the oldest batch sampled ahead, waiting for one if none is
// ready. The batch belongs to the caller until it is passed to Update.
func (p *PreSampler) Next(ctx context.Context) (*Batch, error) {
	select {
	case batch := <-p.ready:
		batch.lent = p
		return batch, nil
	case <-p.done:
		// The sampler may have finished a batch just before it stopped.
		select {
		case batch := <-p.ready:
			batch.lent = p
			return batch, nil
		default:
		}
		return nil, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Update applies the priority update for a batch returned by Next (see
// Buffer.Update), records its staleness, and lets the sampler draw one more
// batch ahead. The batch must not be used afterwards. After Close it still
// applies the update of a batch Next returned.
//
// Each batch from Next is updated once: Update returns an error, changing
// nothing and without blocking, for a batch already updated or one this
// pre-sampler's Next did not return. Taking such a batch into the pool would
// hand one batch to two users, or, once the sampler has stopped, wait
// forever for room in the pool. If the buffer rejects the update (bad TD
// errors, say), the batch stays the caller's and may be updated again.
func (p *PreSampler) Update(batch *Batch, td []float32) error {
	if batch == nil || batch.lent != p {
		// A batch of the pool that is not lent is the sampler's again, and
		// it may be sampling into it now: read nothing else of it.
		if slices.Contains(p.pool, batch) {
			return errors.New("replay: the batch was updated already and belongs to the pre-sampler again: update each batch from Next once")
		}
		if err := p.buf.checkBatch(batch); err != nil {
			return err
		}
		return errors.New("replay: the batch is not one this pre-sampler's Next returned: update batches from Next, or update this one with Buffer.Update")
	}
	if err := p.buf.Update(batch, td); err != nil {
		return err
	}
	batch.lent = nil
	s := int64(batch.Staleness)
	p.batches.Add(1)
	p.staleSum.Add(s)
	for m := p.staleMax.Load(); s > m && !p.staleMax.CompareAndSwap(m, s); m = p.staleMax.Load() {
	}
	p.free <- batch
	p.token <- struct{}{}
	return nil
}

// Close stops the sampler and waits for its goroutine to end. Batches not
// yet returned by Next are dropped.
func (p *PreSampler) Close() {
	p.cancel()
	<-p.done
}

// PreSampleStats summarizes a pre-sampler's batches.
type PreSampleStats struct {
	Batches       int64   // batches updated
	MeanStaleness float64 // mean priority updates between sampling and update
	MaxStaleness  int64
	Ready         int // batches sampled and waiting for the learner now
}

// Stats returns the pre-sampler's counters.
func (p *PreSampler) Stats() PreSampleStats {
	s := PreSampleStats{Batches: p.batches.Load(), MaxStaleness: p.staleMax.Load(), Ready: len(p.ready)}
	if s.Batches > 0 {
		s.MeanStaleness = float64(p.staleSum.Load()) / float64(s.Batches)
	}
	return s
}
