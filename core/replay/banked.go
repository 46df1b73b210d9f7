package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// Banked is a prioritized replay buffer split into L banks, one per learner,
// as in the Scalable Policy Optimization of thesis 001 §5.2.2.1: actors add
// to the banks in turn, and learner l samples and updates only bank l, so
// that L learners sample and update in parallel without sharing a tree.
//
// Learner l draws transition i of its bank with probability p_i^a / S_l,
// where S_l is the bank's total; over L learners drawing equally, the
// effective probability is P(i) = p_i^a / (L S_l) instead of the single
// buffer's p_i^a / S. Sample corrects the importance weights for that
// exactly (see Sample). 001 Eq. 5.4 approximates the same correction by
// S_l / S ~ 1/L, assuming equal bank totals.
type Banked struct {
	banks []*Buffer
	next  atomic.Uint64
}

// NewBanked returns a banked buffer of banks banks that hold cfg.Capacity
// transitions between them (each bank ceil(cfg.Capacity / banks)). It
// returns an error if cfg.Capacity is below 1, banks is outside
// [1, cfg.Capacity] or cfg is otherwise invalid.
func NewBanked(cfg Config, banks int) (*Banked, error) {
	// The range of banks is the capacity's, so a capacity that is itself
	// out of range is the error to report: with none, no number of banks
	// would do. (The upper limit of New applies to each bank, not here.)
	if cfg.Capacity < 1 {
		return nil, fmt.Errorf("replay: capacity %d is out of range: a banked buffer's capacity must be >= 1", cfg.Capacity)
	}
	if banks < 1 || banks > cfg.Capacity {
		return nil, fmt.Errorf("replay: %d banks is out of range: banks must be 1..%d (the capacity)", banks, cfg.Capacity)
	}
	per := cfg
	per.Capacity = (cfg.Capacity + banks - 1) / banks
	k := &Banked{banks: make([]*Buffer, banks)}
	for l := range k.banks {
		b, err := New(per)
		if err != nil {
			return nil, err
		}
		k.banks[l] = b
	}
	return k, nil
}

// Banks returns the number of banks, L.
func (k *Banked) Banks() int { return len(k.banks) }

// Bank returns bank l, a Buffer of its own. It panics if l is out of range.
func (k *Banked) Bank(l int) *Buffer { return k.banks[l] }

// Len returns the number of transitions stored in all banks.
func (k *Banked) Len() int {
	n := 0
	for _, b := range k.banks {
		n += b.Len()
	}
	return n
}

// Add stores transitions in the next bank in turn: one call, typically an
// actor flushing its local storage, goes to one bank (001 Algorithm 6).
func (k *Banked) Add(ts ...Transition) error {
	l := (k.next.Add(1) - 1) % uint64(len(k.banks))
	return k.banks[l].Add(ts...)
}

// SetBeta sets the importance-sampling exponent of every bank.
func (k *Banked) SetBeta(beta float64) error {
	for _, b := range k.banks {
		if err := b.SetBeta(beta); err != nil {
			return err
		}
	}
	return nil
}

// Sample draws n transitions from bank l into dst (see Buffer.Sample) and
// sets their importance weights for the banked sampling distribution
// P(i) = p_i^a / (L S_l):
//
//	w_i = (N P(i))^-b / max_j (N P(j))^-b = ((S_l / p_i^a) / M)^b,
//	M = max over banks m of S_m / pmin_m^a,
//
// the maximum over every stored transition of every bank. With equal bank
// totals this is the single buffer's weight. The other banks' totals are
// read when the weights are computed, not atomically with the sample.
func (k *Banked) Sample(l int, dst *Batch, n int, rng *rand.Rand) error {
	if l < 0 || l >= len(k.banks) {
		return fmt.Errorf("replay: bank %d is out of range: banks are 0..%d", l, len(k.banks)-1)
	}
	b := k.banks[l]
	if err := b.Sample(dst, n, rng); err != nil {
		return err
	}
	m := dst.total / dst.pminLeaf
	for j, other := range k.banks {
		if j == l {
			continue
		}
		other.rlock()
		total, pmin := other.tree.Total(), other.ext.minimum()
		other.runlock()
		if total > 0 {
			m = math.Max(m, total/other.leafValue(pmin))
		}
	}
	beta := b.Beta()
	for i, p := range dst.Priorities {
		dst.Weights[i] = float32(power(dst.total/b.leafValue(p)/m, beta))
	}
	return nil
}

// Update applies the priority update for a batch that Sample drew from bank
// l (see Buffer.Update). It returns an error, changing nothing, if the batch
// was drawn from another bank: the banks have the same capacity, so its
// slots would name other transitions of bank l.
func (k *Banked) Update(l int, batch *Batch, td []float32) error {
	if l < 0 || l >= len(k.banks) {
		return fmt.Errorf("replay: bank %d is out of range: banks are 0..%d", l, len(k.banks)-1)
	}
	if batch != nil && batch.from != k.banks[l] {
		for j, b := range k.banks {
			if batch.from == b {
				return fmt.Errorf("replay: the batch was sampled from bank %d, not bank %d: update the bank it was sampled from", j, l)
			}
		}
	}
	return k.banks[l].Update(batch, td)
}
