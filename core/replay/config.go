package replay

import (
	"fmt"

	"github.com/rlxdev/rlx/core/sumtree"
)

// Locking selects how a Buffer synchronizes concurrent callers.
type Locking int

const (
	// TwoLocks is the scheme of 002 §IV-D (Algorithm 3): a last-level lock
	// guards the leaves and a tree lock the levels above, so that reading a
	// priority never waits for an update's upper levels, and samplers share
	// the tree lock with each other.
	TwoLocks Locking = iota
	// GlobalLock serializes every operation on one mutex: the baseline 002
	// §VI-D measures the two-lock scheme against.
	GlobalLock
)

func (l Locking) String() string {
	switch l {
	case TwoLocks:
		return "two-locks"
	case GlobalLock:
		return "global-lock"
	}
	return fmt.Sprintf("Locking(%d)", int(l))
}

// DefaultFanout is the sum-tree fanout used when Config.Fanout is 0. It is
// the fastest for sampling plus updating at capacities 10^5-10^7 on the
// machines rlx was measured on; `rlx bench sumtree` measures yours.
const DefaultFanout = 16

// Config describes a prioritized replay buffer.
type Config struct {
	Capacity int // transitions held, 1..sumtree.MaxCapacity; FIFO replacement when full
	ObsDim   int // float32 values per observation, >= 1
	ActDim   int // float32 values per action, >= 1 (a discrete action is one value)

	// Fanout is the number of children per sum-tree node, 2..4096; 0 means
	// DefaultFanout.
	Fanout int

	// Alpha is the priority exponent: transition i is sampled with
	// probability p_i^Alpha / sum_k p_k^Alpha. 0 is uniform sampling, 1 fully
	// proportional. Range 0..1.
	Alpha float64
	// Beta is the importance-sampling exponent at the start, 0..1; SetBeta
	// anneals it.
	Beta float64
	// Eps is added to |TD error| to form a priority, so that no transition
	// becomes unsampleable. It must be > 0.
	Eps float64

	// Stratified, when set, draws one sample from each of n equal slices of
	// the total priority mass instead of n independent samples: the same
	// distribution per sample, lower variance per batch (the segments of
	// Schaul et al.'s PER implementation).
	Stratified bool

	// Locking selects the synchronization scheme; the zero value is TwoLocks.
	Locking Locking
}

// validate checks every field and returns an error naming the first bad
// one, its value and the accepted range.
func (c Config) validate() error {
	switch {
	case c.Capacity < 1 || c.Capacity > sumtree.MaxCapacity:
		return fmt.Errorf("replay: capacity %d is out of range: capacity must be 1..%d", c.Capacity, sumtree.MaxCapacity)
	case c.ObsDim < 1:
		return fmt.Errorf("replay: observation size %d is out of range: it must be >= 1", c.ObsDim)
	case c.ActDim < 1:
		return fmt.Errorf("replay: action size %d is out of range: it must be >= 1", c.ActDim)
	case c.Fanout != 0 && (c.Fanout < sumtree.MinFanout || c.Fanout > sumtree.MaxFanout):
		return fmt.Errorf("replay: fanout %d is not allowed: fanout must be %d..%d (or 0 for %d)", c.Fanout, sumtree.MinFanout, sumtree.MaxFanout, DefaultFanout)
	case !(c.Alpha >= 0 && c.Alpha <= 1):
		return fmt.Errorf("replay: alpha %v is out of range: alpha must be 0..1", c.Alpha)
	case !(c.Beta >= 0 && c.Beta <= 1):
		return fmt.Errorf("replay: beta %v is out of range: beta must be 0..1", c.Beta)
	case !(c.Eps > 0 && c.Eps < 1e6):
		return fmt.Errorf("replay: eps %v is out of range: eps must be > 0 and < 1e6", c.Eps)
	case c.Locking != TwoLocks && c.Locking != GlobalLock:
		return fmt.Errorf("replay: locking %d is unknown: use TwoLocks or GlobalLock", int(c.Locking))
	}
	// Storage is allocated up front: refuse sizes no machine can hold rather
	// than fail inside the allocator, which cannot be recovered from.
	if need := c.Bytes(); need > MaxBytes {
		return fmt.Errorf("replay: capacity %d with observations of %d and actions of %d values needs %.0f GiB: the limit is %d GiB",
			c.Capacity, c.ObsDim, c.ActDim, need/(1<<30), MaxBytes>>30)
	}
	return nil
}

// MaxBytes is the largest buffer New allocates, 1 TiB: beyond any machine rlx
// runs on, far below where sizes overflow.
const MaxBytes = 1 << 40

// Bytes returns the memory a buffer of this configuration allocates: the
// transitions (two observations, an action, a reward and two flags per slot)
// and, per slot, the sum tree (an 8-byte leaf, plus its upper levels at 16
// bytes a node with their running sums), the raw priority, the generation,
// the writer flag, the claim and the min/max tree.
func (c Config) Bytes() float64 {
	n := float64(c.Capacity)
	row := RowBytes(c.ObsDim, c.ActDim)
	fanout := float64(c.Fanout)
	if fanout == 0 {
		fanout = DefaultFanout
	}
	perSlot := 8 + 16/(fanout-1) + 8 + 4 + 1 + 8 + 16*(1+1.0/(extremaFanout-1))
	return n * (row + perSlot)
}

// RowBytes returns the bytes one transition takes in a buffer's storage:
// the observation and the next one (obsDim float32 each), the action
// (actDim float32), the reward (a float32) and the terminated and
// truncated flags (a byte each). Bytes counts Capacity of them; a caller
// sizing its own copies of sampled rows counts by it too. It is a float64,
// as Bytes is, so that dimensions Config's validation has yet to refuse
// cannot overflow it.
func RowBytes(obsDim, actDim int) float64 {
	return 4*(2*float64(obsDim)+float64(actDim)+1) + 2
}

// Anneal is a linear schedule, from Start at step 0 to End at step Steps and
// End after it: the annealing of beta towards 1 over training that Schaul
// et al. recommend.
type Anneal struct {
	Start, End float64
	Steps      int
}

// At returns the value of the schedule at step.
func (a Anneal) At(step int) float64 {
	if a.Steps <= 0 || step >= a.Steps {
		return a.End
	}
	if step <= 0 {
		return a.Start
	}
	return a.Start + (a.End-a.Start)*float64(step)/float64(a.Steps)
}
