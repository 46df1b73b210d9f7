package runtime

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// weightSlots is the number of published versions kept. Lockstep needs two
// (an actor may still be reading version n(c-1) when the learner publishes
// n(c)); the rest is margin.
const weightSlots = 4

// weightStore is where weights flow from the learner (or the SPO weight
// server) to the actors (000 Table II: the actors' input queue holds DNN
// weights). It keeps the last few published versions, each a copy, so an
// actor can load either the latest or an exact version. A version is the
// number of gradient steps (policy updates) the weights have seen.
type weightStore struct {
	slots  [weightSlots]weightSlot
	next   int          // slot the next publication writes; publisher only
	latest atomic.Int64 // newest version published, -1 before the first
	loads  atomic.Int64
	pubs   atomic.Int64
	notify func() // wakes units waiting for a version
}

type weightSlot struct {
	mu      sync.RWMutex
	version int64
	params  []float32
}

func newWeightStore(size int, notify func()) *weightStore {
	w := &weightStore{notify: notify}
	for i := range w.slots {
		w.slots[i].version = -1
		w.slots[i].params = make([]float32, size)
	}
	w.latest.Store(-1)
	return w
}

// publish copies src as version v. Versions must increase; one goroutine
// publishes.
func (w *weightStore) publish(v int64, src []float32) {
	s := &w.slots[w.next]
	w.next = (w.next + 1) % weightSlots
	s.mu.Lock()
	copy(s.params, src)
	s.version = v
	s.mu.Unlock()
	w.latest.Store(v)
	w.pubs.Add(1)
	if w.notify != nil {
		w.notify()
	}
}

// load copies version v into dst and reports whether it is still kept.
func (w *weightStore) load(dst []float32, v int64) bool {
	for i := range w.slots {
		s := &w.slots[i]
		s.mu.RLock()
		if s.version == v {
			copy(dst, s.params)
			s.mu.RUnlock()
			w.loads.Add(1)
			return true
		}
		s.mu.RUnlock()
	}
	return false
}

// loadLatest copies the newest version into dst and returns it, or -1 if
// nothing was published.
func (w *weightStore) loadLatest(dst []float32) int64 {
	for {
		v := w.latest.Load()
		if v < 0 {
			return -1
		}
		if w.load(dst, v) {
			return v
		}
		// overwritten between the two reads: a newer one exists
	}
}

func (w *weightStore) errMissing(v int64) error {
	return fmt.Errorf("runtime: internal error: weight version %d is no longer kept (latest %d)", v, w.latest.Load())
}
