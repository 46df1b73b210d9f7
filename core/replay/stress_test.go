package replay

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rlxdev/rlx/core/sumtree"
)

// TestConcurrentStress runs actors adding while learners sample, check and
// update, and a reader retrieves priorities, all at once (002 §IV-D). Run it
// under the race detector.
func TestConcurrentStress(t *testing.T) {
	for _, locking := range []Locking{TwoLocks, GlobalLock} {
		t.Run(locking.String(), func(t *testing.T) { stress(t, locking) })
	}
}

func stress(t *testing.T, locking Locking) {
	const (
		actors   = 4
		learners = 2
		capacity = 512
		obsDim   = 64
		actDim   = 2
	)
	perActor := 6000
	if testing.Short() || raceEnabled {
		perActor = 1500
	}
	cfg := Config{Capacity: capacity, ObsDim: obsDim, ActDim: actDim, Fanout: 8,
		Alpha: 0.6, Beta: 0.4, Eps: 1e-3, Locking: locking}
	b := mustNew(t, cfg)

	// The tag of actor a's transition s; exact in float32.
	tag := func(a, s int) float32 { return float32(a*100_000 + s + 1) }

	var actorsDone sync.WaitGroup
	var stop atomic.Bool
	var sampled atomic.Int64
	var learnersQuit atomic.Int32 // learners that returned
	errs := make(chan string, 16)
	report := func(msg string) {
		select {
		case errs <- msg:
		default:
		}
	}

	for a := range actors {
		actorsDone.Add(1)
		go func() {
			defer actorsDone.Done()
			rng := rand.New(rand.NewPCG(uint64(a), 99))
			halfway := false
			for s := 0; s < perActor; {
				// Hold the second half back until a learner has
				// sampled, so that the learners run while the actors
				// still add however the goroutines are scheduled
				// (unheld, the global-lock actors could finish first).
				if !halfway && s >= perActor/2 {
					halfway = true
					for sampled.Load() == 0 && learnersQuit.Load() < learners {
						runtime.Gosched()
					}
				}
				// Single adds and local-storage flushes of up to 100.
				n := min(1+rng.IntN(100)*rng.IntN(2), perActor-s)
				ts := make([]Transition, n)
				for k := range ts {
					ts[k] = tagged(tag(a, s+k), obsDim, actDim)
				}
				if err := b.Add(ts...); err != nil {
					report(err.Error())
					return
				}
				s += n
			}
		}()
	}

	var learnersDone sync.WaitGroup
	for l := range learners {
		learnersDone.Add(1)
		go func() {
			defer learnersDone.Done()
			defer learnersQuit.Add(1)
			rng := rand.New(rand.NewPCG(uint64(l), 7))
			var batch Batch
			td := make([]float32, 64)
			for !stop.Load() {
				err := b.Sample(&batch, 64, rng)
				if err == ErrEmpty {
					continue
				}
				if err != nil {
					report(err.Error())
					return
				}
				for k := range batch.Idx {
					if msg := checkRow(&batch, k, obsDim, actDim); msg != "" {
						report(msg)
						return
					}
				}
				sampled.Add(int64(batch.Len()))
				for k := range td {
					td[k] = float32(rng.ExpFloat64())
				}
				if err := b.Update(&batch, td); err != nil {
					report(err.Error())
					return
				}
			}
		}()
	}
	learnersDone.Add(1)
	go func() { // priority retrieval, under the last-level lock only
		defer learnersDone.Done()
		idx := []int{0, 1, capacity / 2, capacity - 1}
		dst := make([]float64, len(idx))
		for !stop.Load() {
			if err := b.Priorities(dst, idx); err != nil {
				report(err.Error())
				return
			}
			for _, p := range dst {
				if p < 0 || math.IsNaN(p) {
					report("retrieved a negative or NaN priority")
					return
				}
			}
		}
	}()

	actorsDone.Wait()
	stop.Store(true)
	learnersDone.Wait()
	close(errs)
	for msg := range errs {
		t.Fatal(msg)
	}
	if sampled.Load() == 0 {
		t.Fatal("the learners never sampled: the test exercised nothing")
	}

	// Every insert is accounted for.
	if got := b.inserted.Load(); got != actors*uint64(perActor) {
		t.Fatalf("inserted %d, want %d", got, actors*perActor)
	}
	if b.Len() != capacity {
		t.Fatalf("Len = %d, want %d", b.Len(), capacity)
	}
	// Each slot holds one complete transition, each actor's stored ones are
	// the suffix of its sequence (slots are claimed in order, and the buffer
	// keeps the last Cap claims), and no transition is stored twice.
	oldest := make([]int, actors)
	count := make([]int, actors)
	for a := range oldest {
		oldest[a] = perActor
	}
	seen := make(map[float32]bool)
	for s := range capacity {
		if b.prio[s] <= 0 || b.busy[s].Load() {
			t.Fatalf("slot %d: priority %v, busy %v after quiescence", s, b.prio[s], b.busy[s].Load())
		}
		v := b.rew[s]
		if seen[v] {
			t.Fatalf("transition %v is stored twice", v)
		}
		seen[v] = true
		a, seq := int(v-1)/100_000, int(v-1)%100_000
		if a >= actors || seq >= perActor {
			t.Fatalf("slot %d holds an unknown tag %v", s, v)
		}
		oldest[a] = min(oldest[a], seq)
		count[a]++
	}
	for a := range actors {
		if oldest[a]+count[a] != perActor {
			t.Errorf("actor %d: %d stored from sequence %d, not a suffix of its %d", a, count[a], oldest[a], perActor)
		}
	}
	assertConsistent(t, b)
}

// TestLappedWriterDropsItsTransition replays, step by step, the schedule
// TestConcurrentStress once hit: a writer claims a slot and is descheduled
// before it owns it, the buffer wraps, and a newer claim of the same slot
// writes first. The older transition is the one FIFO replacement evicts, so
// the lapped writer must not overwrite the newer one.
func TestLappedWriterDropsItsTransition(t *testing.T) {
	const capacity = 4
	b := mustNew(t, testConfig(capacity))
	late := b.cursor.Add(1) - 1 // claims slot 0, then stalls
	for i := range capacity {   // the next claims: slots 1, 2, 3 and 0 again
		if err := b.Add(tagged(float32(10+i), 3, 2)); err != nil {
			t.Fatal(err)
		}
	}
	b.writeClaimed(late, []Transition{tagged(1, 3, 2)})
	if got := b.rew[0]; got != 13 {
		t.Fatalf("slot 0 holds transition %v, want the newer 13", got)
	}
	if b.busy[0].Load() || b.prio[0] <= 0 {
		t.Fatalf("slot 0: busy %v, priority %v", b.busy[0].Load(), b.prio[0])
	}
	if got := b.inserted.Load(); got != capacity+1 {
		t.Fatalf("inserted %d, want %d", got, capacity+1)
	}
	assertConsistent(t, b)
}

// checkRow reports a row of batch that is not one whole transition.
func checkRow(batch *Batch, k, obsDim, actDim int) string {
	v := batch.Rewards[k]
	want := tagged(v, obsDim, actDim)
	ok := batch.Priorities[k] > 0 && batch.Terminated[k] == want.Terminated && batch.Truncated[k] == want.Truncated
	for i := range obsDim {
		ok = ok && batch.Obs[k*obsDim+i] == v && batch.NextObs[k*obsDim+i] == v+0.5
	}
	for i := range actDim {
		ok = ok && batch.Actions[k*actDim+i] == -v
	}
	if !ok {
		return "sampled a torn or unwritten transition"
	}
	return ""
}

// assertConsistent checks a quiescent buffer: the tree leaves are the
// priorities raised to alpha, the whole tree equals a rebuild from its
// leaves bit for bit, and the min/max tracking matches a scan.
func assertConsistent(t *testing.T, b *Buffer) {
	t.Helper()
	n := b.Cap()
	idx := make([]int, n)
	leaves := make([]float64, n)
	mn, mx := math.Inf(1), 0.0
	for i := range n {
		idx[i] = i
		leaves[i] = b.tree.Get(i)
		if want := b.leafValue(b.prio[i]); b.prio[i] > 0 && leaves[i] != want {
			t.Fatalf("leaf %d = %v, want priority^alpha %v", i, leaves[i], want)
		}
		if p := b.prio[i]; p > 0 {
			mn, mx = math.Min(mn, p), math.Max(mx, p)
		}
	}
	if b.ext.minimum() != mn || b.ext.maximum() != mx {
		t.Fatalf("tracked min, max = %v, %v; scan gives %v, %v", b.ext.minimum(), b.ext.maximum(), mn, mx)
	}
	rebuilt, err := sumtree.New(n, b.cfg.Fanout)
	if err != nil {
		t.Fatal(err)
	}
	if err := rebuilt.SetBatch(idx, leaves); err != nil {
		t.Fatal(err)
	}
	for d := range rebuilt.Height() {
		got, want := b.tree.Level(nil, d), rebuilt.Level(nil, d)
		for j := range want {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("level %d node %d = %v, a rebuild gives %v", d, j, got[j], want[j])
			}
		}
	}
}
