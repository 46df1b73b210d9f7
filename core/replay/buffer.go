package replay

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/rlxdev/rlx/core/sumtree"
)

// Transition is one step of experience: the observation, the action taken,
// the reward and next observation that followed, and how the episode ended
// at that step. Obs and NextObs have Config.ObsDim values, Action has
// Config.ActDim.
type Transition struct {
	Obs        []float32
	Action     []float32
	Reward     float32
	NextObs    []float32
	Terminated bool // the episode reached a terminal state: no bootstrap
	Truncated  bool // the episode was cut by a time limit: bootstrap from NextObs
}

// Buffer is a prioritized experience replay buffer of fixed-shape float32
// transitions. It is safe for concurrent use by any number of goroutines:
// actors adding, learners sampling and updating priorities.
type Buffer struct {
	cfg  Config
	tree *sumtree.Tree // leaves hold p^alpha

	// Guarded by leafMu for writing and by leafMu or treeMu for reading
	// (a writer holds both): the raw priority of each slot, 0 if it holds
	// no transition or one being written.
	prio []float64

	// Guarded by treeMu.
	ext *extrema // min and max of prio over present slots
	gen []uint32 // how many times each slot was (re)written
	// Scratch for UpdatePriorities.
	tmpIdx          []int
	tmpRaw, tmpLeaf []float64

	busy []atomic.Bool // a writer owns the slot
	// Guarded by busy: 1 + the claim number (cursor position) of the
	// transition each slot holds, 0 for none. A writer whose claim is older
	// than the slot's has been lapped and does not write (see addChunk).
	claim []uint64

	// Transition storage, struct of arrays. A slot is written only by the
	// writer that owns it (busy), while its priority is 0 so that no sampler
	// selects it; samplers read it under treeMu.
	obs, act, next []float32
	rew            []float32
	term, trunc    []bool

	cursor   atomic.Uint64 // slots claimed so far; slot = cursor % capacity
	inserted atomic.Uint64 // transitions added (a lapped one counts: added, then evicted)
	updates  atomic.Uint64 // priority-update batches applied
	skipped  atomic.Uint64 // priority updates dropped: slot rewritten or being written
	beta     atomic.Uint64 // float64 bits of the current beta

	treeMu sync.RWMutex // the tree lock (and, with GlobalLock, the only lock)
	leafMu sync.Mutex   // the last-level lock
}

// New returns an empty buffer described by cfg, or an error naming the first
// invalid field of cfg. All storage is allocated here.
func New(cfg Config) (*Buffer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Fanout == 0 {
		cfg.Fanout = DefaultFanout
	}
	tree, err := sumtree.New(cfg.Capacity, cfg.Fanout)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	n := cfg.Capacity
	b := &Buffer{
		cfg:   cfg,
		tree:  tree,
		prio:  make([]float64, n),
		ext:   newExtrema(n),
		gen:   make([]uint32, n),
		busy:  make([]atomic.Bool, n),
		claim: make([]uint64, n),
		obs:   make([]float32, n*cfg.ObsDim),
		act:   make([]float32, n*cfg.ActDim),
		next:  make([]float32, n*cfg.ObsDim),
		rew:   make([]float32, n),
		term:  make([]bool, n),
		trunc: make([]bool, n),
	}
	b.beta.Store(math.Float64bits(cfg.Beta))
	return b, nil
}

// Config returns the configuration of the buffer, with defaults filled in.
func (b *Buffer) Config() Config { return b.cfg }

// Cap returns the number of transitions the buffer holds when full.
func (b *Buffer) Cap() int { return b.cfg.Capacity }

// Len returns the number of transitions stored: those fully written, at most
// Cap.
func (b *Buffer) Len() int { return int(min(b.inserted.Load(), uint64(b.cfg.Capacity))) }

// Beta returns the current importance-sampling exponent.
func (b *Buffer) Beta() float64 { return math.Float64frombits(b.beta.Load()) }

// SetBeta sets the importance-sampling exponent for later samples, as an
// annealing schedule (see Anneal) moves it towards 1. It returns an error if
// beta is outside [0, 1].
func (b *Buffer) SetBeta(beta float64) error {
	if !(beta >= 0 && beta <= 1) {
		return fmt.Errorf("replay: beta %v is out of range: beta must be 0..1", beta)
	}
	b.beta.Store(math.Float64bits(beta))
	return nil
}

// Stats is a snapshot of a buffer's counters.
type Stats struct {
	Len      int    // transitions stored
	Inserted uint64 // transitions ever added
	Updates  uint64 // priority-update batches applied
	Skipped  uint64 // priority updates dropped because the slot was rewritten
	Total    float64
	MinPrio  float64 // smallest priority stored, 0 if empty
	MaxPrio  float64 // largest priority stored, 0 if empty
}

// Stats returns the buffer's counters and priority summary.
func (b *Buffer) Stats() Stats {
	b.rlock()
	s := Stats{Total: b.tree.Total(), MinPrio: b.ext.minimum(), MaxPrio: b.ext.maximum()}
	b.runlock()
	if math.IsInf(s.MinPrio, 1) {
		s.MinPrio = 0
	}
	s.Len, s.Inserted = b.Len(), b.inserted.Load()
	s.Updates, s.Skipped = b.updates.Load(), b.skipped.Load()
	return s
}

// rlock takes the tree lock for reading: shared among samplers with
// TwoLocks, exclusive with GlobalLock.
func (b *Buffer) rlock() {
	if b.cfg.Locking == GlobalLock {
		b.treeMu.Lock()
	} else {
		b.treeMu.RLock()
	}
}

func (b *Buffer) runlock() {
	if b.cfg.Locking == GlobalLock {
		b.treeMu.Unlock()
	} else {
		b.treeMu.RUnlock()
	}
}

// writePriorities sets the priorities of slots idx to raw (0 marks a slot
// absent) with leaf values leaf = raw^alpha, following 002 Algorithm 3: the
// caller holds the tree lock; the last-level lock is held only while the
// leaves change, and the upper levels are recomputed after it is released.
func (b *Buffer) writePriorities(idx []int, raw, leaf []float64) {
	if b.cfg.Locking == TwoLocks {
		b.leafMu.Lock()
	}
	if err := b.tree.WriteLeaves(idx, leaf); err != nil {
		// The buffer validated every index and priority it passes.
		panic(fmt.Sprintf("replay: internal error: %v", err))
	}
	for k, i := range idx {
		b.prio[i] = raw[k]
	}
	if b.cfg.Locking == TwoLocks {
		b.leafMu.Unlock()
	}
	b.tree.Propagate(idx)
	b.ext.setBatch(idx, raw)
}

// leafValue returns p^alpha, with the common exponents computed exactly and
// quickly.
func (b *Buffer) leafValue(p float64) float64 {
	switch b.cfg.Alpha {
	case 1:
		return p
	case 0:
		return 1
	case 0.5:
		return math.Sqrt(p)
	}
	return power(p, b.cfg.Alpha)
}

// power returns x^e for x in (0, MaxPriority] and e in [0, 1] as
// exp(e log x): twice as fast as math.Pow, which handles every special case
// of its domain, and within about 1e-14 relative of it on this one.
func power(x, e float64) float64 { return math.Exp(e * math.Log(x)) }

// addChunk is the largest number of transitions Add writes under one pair of
// lock acquisitions; its slot lists live on the stack.
const addChunk = 64

// Add stores transitions at the current maximum priority (1 when the buffer
// holds none), replacing the oldest ones when the buffer is full (000
// §II-A3). It validates every transition first and returns an error naming
// the first bad one, storing nothing; it never panics on bad data.
//
// Writing follows the lazy writing of 002 §IV-D2: each slot's priority is
// set to 0, so that no sampler can select it, the data is copied without any
// lock, and the priority is then raised to the maximum. Add does not
// allocate.
func (b *Buffer) Add(ts ...Transition) error {
	for k := range ts {
		if err := b.checkTransition(&ts[k]); err != nil {
			if len(ts) > 1 {
				return fmt.Errorf("replay: transition %d: %w", k, err)
			}
			return fmt.Errorf("replay: %w", err)
		}
	}
	// A chunk must not wrap onto itself, or it would wait for its own slot.
	size := min(addChunk, b.cfg.Capacity)
	for lo := 0; lo < len(ts); lo += size {
		b.addChunk(ts[lo:min(lo+size, len(ts))])
	}
	return nil
}

func (b *Buffer) addChunk(ts []Transition) {
	b.writeClaimed(b.cursor.Add(uint64(len(ts)))-uint64(len(ts)), ts)
}

// writeClaimed writes ts into the slots of the claims start, start+1, ...
func (b *Buffer) writeClaimed(start uint64, ts []Transition) {
	var idx, src [addChunk]int
	var raw, leaf [addChunk]float64
	for k := range ts {
		idx[k] = int((start + uint64(k)) % uint64(b.cfg.Capacity))
	}
	b.own(idx[:len(ts)])
	// A writer descheduled between claiming and owning its slots can be
	// lapped: a claim one capacity later takes the same slot and may write
	// it first. FIFO replacement has then already evicted the older
	// transition, so the lapped writer drops it rather than overwrite the
	// newer one.
	n := 0
	for k, s := range idx[:len(ts)] {
		if c := start + uint64(k) + 1; c > b.claim[s] {
			b.claim[s] = c
			idx[n], src[n] = s, k
			n++
		} else {
			b.busy[s].Store(false)
		}
	}

	b.treeMu.Lock()
	for _, s := range idx[:n] {
		b.gen[s]++
	}
	b.writePriorities(idx[:n], raw[:n], leaf[:n]) // all 0: absent
	b.treeMu.Unlock()

	for k, s := range idx[:n] {
		b.store(s, &ts[src[k]])
	}

	b.treeMu.Lock()
	p := b.ext.maximum()
	if p == 0 {
		p = 1
	}
	lp := b.leafValue(p)
	for k := range n {
		raw[k], leaf[k] = p, lp
	}
	b.writePriorities(idx[:n], raw[:n], leaf[:n])
	b.treeMu.Unlock()

	for _, s := range idx[:n] {
		b.busy[s].Store(false)
	}
	b.inserted.Add(uint64(len(ts)))
}

// own takes ownership of the slots idx for writing. Another writer may still
// own some of them if the buffer wrapped around faster than it wrote: then
// own releases what it took and tries again, so that no writer holds slots
// while waiting for others, and writers cannot deadlock.
func (b *Buffer) own(idx []int) {
	for {
		k := 0
		for k < len(idx) && b.busy[idx[k]].CompareAndSwap(false, true) {
			k++
		}
		if k == len(idx) {
			return
		}
		for _, s := range idx[:k] {
			b.busy[s].Store(false)
		}
		runtime.Gosched()
	}
}

// store copies t into slot s.
func (b *Buffer) store(s int, t *Transition) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	copy(b.obs[s*od:(s+1)*od], t.Obs)
	copy(b.act[s*ad:(s+1)*ad], t.Action)
	copy(b.next[s*od:(s+1)*od], t.NextObs)
	b.rew[s] = t.Reward
	b.term[s] = t.Terminated
	b.trunc[s] = t.Truncated
}

// checkTransition reports the first problem with t: a wrong size, or a value
// that is NaN or infinite.
func (b *Buffer) checkTransition(t *Transition) error {
	parts := []struct {
		name string
		v    []float32
		n    int
	}{
		{"observation", t.Obs, b.cfg.ObsDim},
		{"action", t.Action, b.cfg.ActDim},
		{"next observation", t.NextObs, b.cfg.ObsDim},
	}
	for _, p := range parts {
		if len(p.v) != p.n {
			return fmt.Errorf("%s has %d values, want %d", p.name, len(p.v), p.n)
		}
		for i, x := range p.v {
			if !finite32(x) {
				return fmt.Errorf("%s value %d is %v: values must be finite", p.name, i, x)
			}
		}
	}
	if !finite32(t.Reward) {
		return fmt.Errorf("reward %v is not allowed: rewards must be finite", t.Reward)
	}
	return nil
}

func finite32(x float32) bool { return x-x == 0 }
