package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzBuffer drives a buffer with a random sequence of adds, priority
// updates and samples, decoded from the fuzz input, beside a naive model of
// its slots and priorities. Invalid inputs are mixed in: they must return
// errors and change nothing. After every step the priorities match the
// model, and every sample returns whole transitions with weights in (0, 1].
func FuzzBuffer(f *testing.F) {
	f.Add([]byte{5, 0, 1, 0, 2, 1, 3, 7, 2, 4})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 9, 2, 2, 3, 0, 1, 255})
	f.Add([]byte{16, 0, 3, 1, 1, 2, 2, 200, 1, 200, 0, 5, 2, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		capacity := 1 + next()%20
		cfg := Config{Capacity: capacity, ObsDim: 2, ActDim: 1, Fanout: 2 + next()%9, Alpha: 0.5, Beta: 0.7, Eps: 0.01}
		b := mustNew(t, cfg)
		model := make([]float64, capacity) // priority per slot, 0 = empty
		cursor, tag := 0, float32(0)
		rng := rand.New(rand.NewPCG(1, 1))
		var batch Batch
		for len(data) > 0 {
			switch next() % 4 {
			case 0: // add n transitions, one of them maybe invalid
				n := 1 + next()%5
				bad := next()%7 == 0
				ts := make([]Transition, n)
				for k := range ts {
					tag++
					ts[k] = tagged(tag, 2, 1)
				}
				if bad {
					ts[n-1].Reward = float32(math.NaN())
				}
				err := b.Add(ts...)
				if (err != nil) != bad {
					t.Fatalf("Add (invalid %v) = %v", bad, err)
				}
				if bad {
					tag -= float32(n)
					continue
				}
				// Per chunk, the slots are emptied first, then given the
				// largest priority still stored (1 if none).
				size := min(addChunk, capacity)
				for lo := 0; lo < n; lo += size {
					m := min(size, n-lo)
					for k := range m {
						model[(cursor+k)%capacity] = 0
					}
					maxp := 0.0
					for _, p := range model {
						maxp = math.Max(maxp, p)
					}
					if maxp == 0 {
						maxp = 1
					}
					for range m {
						model[cursor%capacity] = maxp
						cursor++
					}
				}
			case 1: // update priorities, maybe with an invalid entry
				s, p := next()%(capacity+1), float64(next()%9)/2
				err := b.UpdatePriorities([]int{s}, []float64{p})
				valid := s < capacity && p > 0 && model[s] > 0
				if (err == nil) != valid {
					t.Fatalf("UpdatePriorities(%d, %v) = %v", s, p, err)
				}
				if valid {
					model[s] = p
				}
			case 2: // sample and check
				n := 1 + next()%8
				err := b.Sample(&batch, n, rng)
				if b.Len() == 0 {
					if err != ErrEmpty {
						t.Fatalf("Sample on an empty buffer = %v", err)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				for k, s := range batch.Idx {
					if msg := checkRow(&batch, k, 2, 1); msg != "" || model[s] == 0 {
						t.Fatalf("sample %d: slot %d (model priority %v): %s", k, s, model[s], msg)
					}
					if w := batch.Weights[k]; !(w > 0 && w <= 1) {
						t.Fatalf("weight %v outside (0, 1]", w)
					}
				}
			case 3: // update the sampled batch from TD errors
				if batch.Len() == 0 {
					continue
				}
				td := make([]float32, batch.Len())
				for k := range td {
					td[k] = float32(next()%5) - 2
				}
				if err := b.Update(&batch, td); err != nil {
					t.Fatal(err)
				}
				for k, s := range batch.Idx {
					if batch.Skipped == 0 {
						model[s] = math.Abs(float64(td[k])) + cfg.Eps
					}
				}
				if batch.Skipped != 0 { // rewritten since sampled: trust the buffer, checked below
					_ = b.Priorities(model, seq(capacity))
				}
				batch = Batch{}
			}
			got := make([]float64, capacity)
			if err := b.Priorities(got, seq(capacity)); err != nil {
				t.Fatal(err)
			}
			for s := range got {
				if math.Abs(got[s]-model[s]) > 1e-12 {
					t.Fatalf("slot %d: priority %v, model %v", s, got[s], model[s])
				}
			}
		}
		assertConsistent(t, b)
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
