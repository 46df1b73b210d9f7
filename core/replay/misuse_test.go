package replay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// returnsWithin runs f and fails the test if it has not returned after d: a
// deadlocked buffer then fails the test instead of hanging it. The goroutine
// of a call that never returns is left behind; the test has failed anyway.
func returnsWithin(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %v", what, d)
	}
}

// noPanic calls f and turns a panic into an error, so that a regression
// reports the panic and goes on to show what it left locked.
func noPanic(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panicked: %v", r)
		}
	}()
	return f()
}

// TestUpdateRejectsForeignBatches updates a buffer with batches that did
// not come from its own Sample, or no longer match it. Each must return an
// error saying what is wrong, change nothing, and leave the buffer usable:
// Update once indexed such a batch while holding the tree lock, panicked,
// and left every later Sample and Stats blocked. Each case has a buffer of
// its own, so that one left locked fails only its case.
func TestUpdateRejectsForeignBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	sample := func(t *testing.T, from *Buffer, n int) *Batch {
		t.Helper()
		var batch Batch
		if err := from.Sample(&batch, n, rng); err != nil {
			t.Fatal(err)
		}
		return &batch
	}
	for _, tc := range []struct {
		name string
		// batch returns the batch to update b with, and the whole batch it
		// views, if it is a view.
		batch func(t *testing.T, b *Buffer) (batch, whole *Batch)
		want  []string
	}{
		{"view", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			whole := sample(t, b, 8)
			var view Batch
			whole.View(&view, 2, 5)
			return &view, whole
		}, []string{"view made by Batch.View", "update with the whole batch"}},
		{"hand-made", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			return &Batch{Idx: []int{0, 3}}, nil
		}, []string{"not filled by Sample", "no generation tags"}},
		{"zero batch", func(t *testing.T, b *Buffer) (*Batch, *Batch) { return &Batch{}, nil }, []string{"not filled by Sample"}},
		{"nil", func(t *testing.T, b *Buffer) (*Batch, *Batch) { return nil, nil }, []string{"needs a batch"}},
		{"from a larger buffer", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			batch := sample(t, filled(t, 1000), 32)
			if !slices.ContainsFunc(batch.Idx, func(s int) bool { return s >= 10 }) {
				t.Fatal("the large buffer's batch has no index beyond the small buffer: pick another seed")
			}
			return batch, nil
		}, []string{"sampled from another buffer", "capacity 1000, this one 10"}},
		{"from a buffer of the same size", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			return sample(t, filled(t, 10), 6), nil // every index is in range here
		}, []string{"sampled from another buffer"}},
		{"index changed", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			batch := sample(t, b, 4)
			batch.Idx[2] = 312
			return batch, nil
		}, []string{"batch element 2: index 312 is out of range for capacity 10", "indices must be 0..9"}},
		{"indices cut", func(t *testing.T, b *Buffer) (*Batch, *Batch) {
			batch := sample(t, b, 4)
			batch.Idx = batch.Idx[:2]
			return batch, nil
		}, []string{"2 indices but 4 generation tags"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := filled(t, 10)
			batch, whole := tc.batch(t, b)
			before := b.Stats()
			prio := make([]float64, 10)
			_ = b.Priorities(prio, seq(10))
			var td []float32
			if batch != nil {
				td = make([]float32, batch.Len())
				for k := range td {
					td[k] = 7
				}
			}
			err := noPanic(func() error { return b.Update(batch, td) })
			if err == nil {
				t.Errorf("Update succeeded")
			}
			for _, s := range tc.want {
				if err != nil && !strings.Contains(err.Error(), s) {
					t.Errorf("Update = %q, want it to say %q", err, s)
				}
			}
			var after Stats
			returnsWithin(t, 10*time.Second, "Stats after the rejected update", func() { after = b.Stats() })
			if after != before {
				t.Errorf("the rejected update changed the buffer: %+v -> %+v", before, after)
			}
			got := make([]float64, 10)
			_ = b.Priorities(got, seq(10))
			if !slices.Equal(got, prio) {
				t.Errorf("the rejected update changed priorities %v -> %v", prio, got)
			}
			returnsWithin(t, 10*time.Second, "Sample and Update after the rejected update", func() {
				var again Batch
				if err := b.Sample(&again, 4, rng); err != nil {
					t.Errorf("Sample after the rejected update = %v", err)
				}
				if whole != nil {
					if err := b.Update(whole, make([]float32, whole.Len())); err != nil {
						t.Errorf("Update of the whole batch after its view was rejected = %v", err)
					}
				}
			})
		})
	}
}

// TestSampleIntoViewLeavesViewedBatch samples into a batch that was a view:
// the new rows must go to memory of its own, not over the rows of the batch
// it viewed, which a data-parallel learner may still be reading.
func TestSampleIntoViewLeavesViewedBatch(t *testing.T) {
	b := filled(t, 50)
	rng := rand.New(rand.NewPCG(12, 12))
	var whole, part Batch
	if err := b.Sample(&whole, 10, rng); err != nil {
		t.Fatal(err)
	}
	idx, obs := slices.Clone(whole.Idx), slices.Clone(whole.Obs)
	whole.View(&part, 0, 5)
	if err := b.Sample(&part, 3, rng); err != nil {
		t.Fatal(err)
	}
	if &part.Obs[0] == &whole.Obs[0] || &part.Idx[0] == &whole.Idx[0] {
		t.Error("Sample wrote into the memory the view shared")
	}
	if !slices.Equal(whole.Idx, idx) || !slices.Equal(whole.Obs, obs) {
		t.Error("sampling into a view changed the viewed batch")
	}
	// The batch it became is an ordinary sampled batch.
	if err := b.Update(&part, []float32{1, 2, 3}); err != nil {
		t.Errorf("Update of a batch sampled into a former view = %v", err)
	}
}

// TestPreSamplerUpdateOnce updates the same batch twice, before and after
// Close, and updates batches Next did not return. Each must return an error
// without blocking: a second update after Close once waited forever for room
// in the pool, and before Close it put one batch in the pool twice.
func TestPreSamplerUpdateOnce(t *testing.T) {
	for _, depth := range []int{1, 2} {
		t.Run(fmt.Sprintf("depth %d", depth), func(t *testing.T) {
			b := filled(t, 64)
			p, err := b.PreSample(context.Background(), depth, 8, rand.New(rand.NewPCG(13, 13)))
			if err != nil {
				t.Fatal(err)
			}
			defer returnsWithin(t, 10*time.Second, "Close", p.Close)
			td := make([]float32, 8)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			// Every Update runs under a deadline, so that one that blocks
			// fails the test instead of hanging it.
			update := func(what string, batch *Batch, td []float32) (err error) {
				t.Helper()
				returnsWithin(t, 10*time.Second, what, func() { err = noPanic(func() error { return p.Update(batch, td) }) })
				return err
			}

			first, err := p.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := update("Update", first, td); err != nil {
				t.Fatal(err)
			}
			if err := update("a second Update of one batch", first, td); err == nil || !strings.Contains(err.Error(), "updated already") {
				t.Errorf("second Update = %v, want an error", err)
			}

			var direct Batch
			if err := b.Sample(&direct, 8, rand.New(rand.NewPCG(14, 14))); err != nil {
				t.Fatal(err)
			}
			if err := update("Update of a batch sampled directly", &direct, td); err == nil || !strings.Contains(err.Error(), "not one this pre-sampler's Next returned") {
				t.Errorf("Update of a batch sampled directly = %v, want an error", err)
			}
			if err := update("Update of a hand-made batch", &Batch{Idx: []int{1}}, td[:1]); err == nil || !strings.Contains(err.Error(), "not filled by Sample") {
				t.Errorf("Update of a hand-made batch = %v, want the buffer's error", err)
			}

			last, err := p.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := update("Update with too few TD errors", last, td[:3]); err == nil {
				t.Error("Update with too few TD errors succeeded")
			}
			returnsWithin(t, 10*time.Second, "Close", p.Close)
			updates := b.Stats().Updates
			// A batch Next returned is still updated after Close, once.
			if err := update("Update after Close", last, td); err != nil {
				t.Errorf("Update after Close = %v", err)
			}
			if err := update("a second Update after Close", last, td); err == nil || !strings.Contains(err.Error(), "updated already") {
				t.Errorf("second Update after Close = %v, want an error", err)
			}
			if got := b.Stats().Updates; got != updates+1 {
				t.Errorf("%d updates applied after Close, want 1", got-updates)
			}
			if s := p.Stats(); s.Batches != 2 {
				t.Errorf("pre-sampler counts %d batches updated, want 2", s.Batches)
			}
		})
	}
}

// TestPreSamplerUpdateTwiceAfterClose is the plain case: Next, Close, and
// two updates of the batch. The second once blocked forever.
func TestPreSamplerUpdateTwiceAfterClose(t *testing.T) {
	b := filled(t, 64)
	p, err := b.PreSample(context.Background(), 1, 8, rand.New(rand.NewPCG(16, 16)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	batch, err := p.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	td := make([]float32, 8)
	returnsWithin(t, 10*time.Second, "two Updates after Close", func() {
		if err := p.Update(batch, td); err != nil {
			t.Errorf("first Update = %v", err)
		}
		if err := p.Update(batch, td); err == nil || !strings.Contains(err.Error(), "updated already") {
			t.Errorf("second Update = %v, want an error", err)
		}
	})
}

// TestBankedUpdateChecksBank updates bank 0 with a batch drawn from bank
// 1. The banks have equal capacities, so every index is in range: Update
// once applied the TD errors to other transitions of bank 0.
func TestBankedUpdateChecksBank(t *testing.T) {
	k, err := NewBanked(testConfig(20), 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := k.Add(tagged(float32(i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	var batch Batch
	if err := k.Sample(1, &batch, 6, rand.New(rand.NewPCG(15, 15))); err != nil {
		t.Fatal(err)
	}
	before := k.Bank(0).Stats()
	td := []float32{5, 5, 5, 5, 5, 5}
	if err := k.Update(0, &batch, td); err == nil || !strings.Contains(err.Error(), "sampled from bank 1, not bank 0") {
		t.Errorf("Update(0) of a batch from bank 1 = %v, want an error naming both banks", err)
	}
	if after := k.Bank(0).Stats(); after != before {
		t.Errorf("bank 0 changed: %+v -> %+v", before, after)
	}
	if err := k.Update(1, &batch, td); err != nil {
		t.Errorf("Update(1) = %v", err)
	}
}

// TestNewBankedReportsCapacityFirst checks that a capacity below 1 is the
// error, not the number of banks, whose range the capacity sets.
func TestNewBankedReportsCapacityFirst(t *testing.T) {
	for _, c := range []int{0, -5} {
		cfg := testConfig(c)
		_, err := NewBanked(cfg, 1)
		want := fmt.Sprintf("capacity %d is out of range", c)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "banks") {
			t.Errorf("NewBanked(capacity %d, 1) = %v, want an error saying %q", c, err, want)
		}
	}
	if _, err := NewBanked(testConfig(3), 4); err == nil || !strings.Contains(err.Error(), "4 banks is out of range: banks must be 1..3") {
		t.Errorf("NewBanked(capacity 3, 4) = %v", err)
	}
}
