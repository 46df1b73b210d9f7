package runtime

import (
	"context"
	"sync/atomic"
	"time"
)

// Queue is a bounded FIFO queue between processing units (000 §V-B): a
// producer end and a consumer end, a fixed capacity, and counters that
// report its occupancy and throughput. It is a buffered channel underneath,
// so it is safe for any number of producers and consumers; Push blocks
// while the queue is full and Pop while it is empty, both until the
// context is done.
//
// Push and Pop allocate nothing. The time a call spends blocked is
// measured only when it blocks (the fast path reads no clock).
type Queue[T any] struct {
	name string
	ch   chan T

	pushed, popped       atomic.Int64
	pushWait, popWait    atomic.Int64 // nanoseconds blocked
	highWater            atomic.Int64
	pushBlock, popBlocks atomic.Int64 // calls that blocked
}

// NewQueue returns an empty queue holding at most capacity items (>= 1).
// It panics if capacity < 1: queue sizes come from a validated Config.
func NewQueue[T any](name string, capacity int) *Queue[T] {
	if capacity < 1 {
		panic("runtime: NewQueue: capacity must be >= 1")
	}
	return &Queue[T]{name: name, ch: make(chan T, capacity)}
}

// Push appends v, waiting while the queue is full. It returns ctx.Err()
// if ctx is done first; v is then not queued.
func (q *Queue[T]) Push(ctx context.Context, v T) error {
	select {
	case q.ch <- v:
	default:
		q.pushBlock.Add(1)
		t0 := time.Now()
		select {
		case q.ch <- v:
			q.pushWait.Add(int64(time.Since(t0)))
		case <-ctx.Done():
			q.pushWait.Add(int64(time.Since(t0)))
			return ctx.Err()
		}
	}
	q.pushed.Add(1)
	q.noteLen()
	return nil
}

// noteLen raises the high-water mark to the current length. A racy
// maximum (two pushers may both store) is good enough for display.
func (q *Queue[T]) noteLen() {
	if n := int64(len(q.ch)); n > q.highWater.Load() {
		q.highWater.Store(n)
	}
}

// TryPush appends v if there is room and reports whether it did.
func (q *Queue[T]) TryPush(v T) bool {
	select {
	case q.ch <- v:
		q.pushed.Add(1)
		q.noteLen()
		return true
	default:
		return false
	}
}

// Pop removes the oldest item, waiting while the queue is empty. It
// returns ctx.Err() if ctx is done first.
func (q *Queue[T]) Pop(ctx context.Context) (T, error) {
	select {
	case v := <-q.ch:
		q.popped.Add(1)
		return v, nil
	default:
	}
	q.popBlocks.Add(1)
	t0 := time.Now()
	select {
	case v := <-q.ch:
		q.popWait.Add(int64(time.Since(t0)))
		q.popped.Add(1)
		return v, nil
	case <-ctx.Done():
		q.popWait.Add(int64(time.Since(t0)))
		var zero T
		return zero, ctx.Err()
	}
}

// TryPop removes the oldest item if there is one.
func (q *Queue[T]) TryPop() (T, bool) {
	select {
	case v := <-q.ch:
		q.popped.Add(1)
		return v, true
	default:
		var zero T
		return zero, false
	}
}

// C returns the receive end, for a consumer that waits on several events
// at once. A value received from C must be counted with Received.
func (q *Queue[T]) C() <-chan T { return q.ch }

// Received counts one item taken directly from C.
func (q *Queue[T]) Received() { q.popped.Add(1) }

// Len returns the number of items queued now.
func (q *Queue[T]) Len() int { return len(q.ch) }

// Cap returns the capacity.
func (q *Queue[T]) Cap() int { return cap(q.ch) }

// QueueStats is a snapshot of a queue's counters. Occupancy is Len/Cap now;
// throughput is Popped over the run's elapsed time.
type QueueStats struct {
	Name       string        `json:"name"`
	Len        int           `json:"len"`
	Cap        int           `json:"cap"`
	HighWater  int           `json:"high_water"` // most items ever queued
	Pushed     int64         `json:"pushed"`
	Popped     int64         `json:"popped"`
	PushBlocks int64         `json:"push_blocks"` // pushes that found the queue full
	PopBlocks  int64         `json:"pop_blocks"`  // pops that found the queue empty
	PushWait   time.Duration `json:"push_wait_ns"`
	PopWait    time.Duration `json:"pop_wait_ns"`
}

// Occupancy returns Len/Cap.
func (s QueueStats) Occupancy() float64 {
	if s.Cap == 0 {
		return 0
	}
	return float64(s.Len) / float64(s.Cap)
}

// Stats returns the queue's counters. It is safe to call concurrently with
// Push and Pop; the fields are read one by one, not atomically together.
func (q *Queue[T]) Stats() QueueStats {
	return QueueStats{
		Name: q.name, Len: len(q.ch), Cap: cap(q.ch), HighWater: int(q.highWater.Load()),
		Pushed: q.pushed.Load(), Popped: q.popped.Load(),
		PushBlocks: q.pushBlock.Load(), PopBlocks: q.popBlocks.Load(),
		PushWait: time.Duration(q.pushWait.Load()), PopWait: time.Duration(q.popWait.Load()),
	}
}
