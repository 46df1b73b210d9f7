package parallel

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// patience bounds every wait of these tests: they fail with a message
// rather than hang.
const patience = time.Minute

// await waits for c, failing the test after patience.
func await[E any](t *testing.T, c <-chan E, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(patience):
		t.Fatalf("still waiting, after %v, for %s", patience, what)
	}
}

// eventually waits until cond holds, failing the test after patience.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v, still not %s", patience, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitIdle waits until no started worker is busy with a job.
func waitIdle(t *testing.T) {
	t.Helper()
	for i := range int(pool.started.Load()) {
		idle := func() bool { return pool.workers[i].state.Load() != busy }
		eventually(t, fmt.Sprintf("worker %d idle", i), idle)
	}
}

// waitParked waits until every started worker has parked: none spins
// once the Runs it took part in are over.
func waitParked(t *testing.T) {
	t.Helper()
	for i := range int(pool.started.Load()) {
		isParked := func() bool { return pool.workers[i].state.Load() == parked }
		eventually(t, fmt.Sprintf("worker %d parked", i), isParked)
	}
}

// pair is a job of two chunks that the caller and one worker run, one
// each: each chunk waits (at most patience) until the other has started,
// then calls then with its party.
type pair struct {
	started [2]chan struct{} // closed by the caller's chunk, by the worker's
	then    func(party int)
	missed  atomic.Bool // a chunk waited in vain
}

func newPair(then func(party int)) *pair {
	return &pair{started: [2]chan struct{}{make(chan struct{}), make(chan struct{})}, then: then}
}

func pairChunk(p *pair, _, party int) bool {
	me := min(party, 1)
	close(p.started[me])
	select {
	case <-p.started[1-me]:
	case <-time.After(patience):
		p.missed.Store(true)
		return false
	}
	p.then(party)
	return true
}

// catch runs f and returns what it panicked with, nil if it returned.
func catch(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestRunPanics checks that a chunk that panics, on the caller or on a
// worker, panics in the caller's Run once the worker's chunk has returned,
// as a loop over the chunks would, and that the pool works as before
// after it: the workers park (none spins on for the failed call), every
// job is back on the free list, and more Runs than it holds still find a
// worker.
func TestRunPanics(t *testing.T) {
	p := NewPool[*pair]()
	ensureWorkers(1)
	for _, on := range []string{"caller", "worker"} {
		waitIdle(t)
		var otherDone atomic.Bool
		job := newPair(func(party int) {
			if (party == 0) == (on == "caller") {
				panic("boom on the " + on)
			}
			for range 1000 { // the panicking party must wait for this
				runtime.Gosched()
			}
			otherDone.Store(true)
		})
		got := catch(func() { p.Run(job, 2, 2, true, pairChunk) })
		if job.missed.Load() {
			t.Fatalf("panic on the %s: the caller and a worker did not each take a chunk", on)
		}
		if want := "boom on the " + on; got != want {
			t.Fatalf("panic on the %s: Run panicked with %v, want %q", on, got, want)
		}
		if !otherDone.Load() {
			t.Errorf("panic on the %s: Run panicked before the other chunk returned", on)
		}
		waitParked(t)
		eventually(t, fmt.Sprintf("all %d jobs back on the free list after a panic on the %s", freeJobs, on),
			func() bool { return len(p.free) == freeJobs })
	}
	for i := range freeJobs + 2 {
		helped := p.Helped()
		job := newPair(func(int) {})
		if !p.Run(job, 2, 2, true, pairChunk) || job.missed.Load() {
			t.Fatalf("Run %d after the panics: no worker took a chunk", i)
		}
		if p.Helped() == helped {
			t.Fatalf("Run %d after the panics: Helped did not count the worker's chunk", i)
		}
	}
}

// TestRunFreeListExhausted holds every job of a Pool in Runs blocked in
// their chunks, and checks that a further Run computes its chunks on the
// calling goroutine, although a worker is idle, rather than allocate a
// job; and that the jobs come back once the Runs return.
func TestRunFreeListExhausted(t *testing.T) {
	p := NewPool[chan struct{}]()
	ensureWorkers(freeJobs + 1)
	waitIdle(t)
	release := make(chan struct{})
	started := make(chan struct{}, 2*freeJobs)
	returned := make(chan bool, freeJobs)
	hold := func(release chan struct{}, _, _ int) bool {
		started <- struct{}{}
		select {
		case <-release:
			return true
		case <-time.After(patience):
			return false
		}
	}
	for i := range freeJobs {
		go func() { returned <- p.Run(release, 2, 2, true, hold) }()
		// Both chunks start only if a worker took the job.
		await(t, started, fmt.Sprintf("the first chunk of holding Run %d", i))
		await(t, started, fmt.Sprintf("the second chunk of holding Run %d (on a worker)", i))
	}
	if n := len(p.free); n != 0 {
		t.Fatalf("%d jobs on the free list while %d Runs hold one each", n, freeJobs)
	}
	var parties []int
	p.Run(nil, 4, 2, true, func(_ chan struct{}, i, party int) bool {
		parties = append(parties, party) // inline: no other goroutine writes
		return true
	})
	if want := []int{0, 0, 0, 0}; !slices.Equal(parties, want) {
		t.Errorf("with every job held, the chunks ran as parties %v, want %v (inline)", parties, want)
	}
	close(release)
	for i := range freeJobs {
		select {
		case ok := <-returned:
			if !ok {
				t.Errorf("holding Run %d: a chunk timed out", i)
			}
		case <-time.After(patience):
			t.Fatalf("holding Run %d has not returned after %v", i, patience)
		}
	}
	eventually(t, "every job back on the free list", func() bool { return len(p.free) == freeJobs })
}

// TestRunNestedInline keeps every started worker and the caller in the
// chunks of one job, and runs a second Run from the caller's chunk: with
// no idle worker it must compute its chunks inline, as party 0.
func TestRunNestedInline(t *testing.T) {
	ensureWorkers(1)
	waitIdle(t)
	n := int(pool.started.Load())
	all, release := make(chan struct{}), make(chan struct{})
	var inChunks atomic.Int32
	var inner []int
	var missed atomic.Bool
	outer := NewPool[int]()
	nested := NewPool[int]()
	outer.Run(0, n+1, n+1, true, func(_, _, party int) bool {
		if inChunks.Add(1) == int32(n+1) {
			close(all)
		}
		select {
		case <-all: // every worker holds a chunk
		case <-time.After(patience):
			missed.Store(true)
			return false
		}
		if party != 0 {
			select { // held until the nested Run has returned
			case <-release:
			case <-time.After(patience):
			}
			return true
		}
		nested.Run(0, 4, 2, true, func(_, _, party int) bool {
			inner = append(inner, party) // inline: no other goroutine writes
			return true
		})
		close(release)
		return true
	})
	if missed.Load() {
		t.Fatalf("the %d workers and the caller did not all take a chunk of the outer Run", n)
	}
	if want := []int{0, 0, 0, 0}; !slices.Equal(inner, want) {
		t.Errorf("with every worker busy, the nested Run's chunks ran as parties %v, want %v", inner, want)
	}
}

// TestRunGOMAXPROCSChanges runs jobs of Parties() parties while GOMAXPROCS
// goes down and up between calls: Parties follows it, every chunk runs
// once with a party below it, and at 1 every chunk runs on the caller.
func TestRunGOMAXPROCSChanges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 1, 4, 3, 1, 2} {
		runtime.GOMAXPROCS(procs)
		parties := Parties()
		if want := min(procs, runtime.NumCPU()); parties != want {
			t.Fatalf("GOMAXPROCS %d on %d CPUs: Parties() = %d, want %d", procs, runtime.NumCPU(), parties, want)
		}
		const chunks = 40
		l := &chunkLog{runs: make([]atomic.Int32, chunks), parties: make([]atomic.Int32, chunks)}
		logPool.Run(l, chunks, parties, true, logChunk)
		if l.overlap.Load() {
			t.Fatalf("GOMAXPROCS %d: a party index out of range or used twice at once", procs)
		}
		for i := range chunks {
			if n := l.runs[i].Load(); n != 1 {
				t.Fatalf("GOMAXPROCS %d: chunk %d ran %d times", procs, i, n)
			}
			if p := int(l.parties[i].Load()) - 1; p >= parties {
				t.Fatalf("GOMAXPROCS %d: chunk %d ran as party %d, Parties() is %d", procs, i, p, parties)
			}
		}
	}
}

// TestStep checks the chunk length against its definition: the least
// multiple of align, at least align, that cuts n into at most parts
// chunks.
func TestStep(t *testing.T) {
	for n := range 300 {
		for parts := 1; parts <= 9; parts++ {
			for _, align := range []int{1, 4, 16, 64} {
				step := Step(n, parts, align)
				want := align
				for (n+want-1)/want > parts {
					want += align
				}
				if step != want {
					t.Fatalf("Step(%d, %d, %d) = %d, want %d", n, parts, align, step, want)
				}
			}
		}
	}
	for _, bad := range [][2]int{{0, 16}, {2, 0}, {-1, 1}} {
		if catch(func() { Step(10, bad[0], bad[1]) }) == nil {
			t.Errorf("Step(10, %d, %d) did not panic", bad[0], bad[1])
		}
	}
}
