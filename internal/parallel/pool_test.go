package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlxdev/rlx/internal/testalloc"
)

// chunkLog records which party ran each chunk of a job, and checks that no
// two calls with the same party index overlap.
type chunkLog struct {
	runs    []atomic.Int32
	parties []atomic.Int32 // the party that ran each chunk, plus 1
	inUse   [MaxParties]atomic.Bool
	overlap atomic.Bool
}

var logPool = NewPool[*chunkLog]()

// spinSink keeps the result of the chunks' busy work alive.
var spinSink atomic.Bool

func logChunk(l *chunkLog, i, party int) bool {
	if party < 0 || party >= MaxParties || !l.inUse[party].CompareAndSwap(false, true) {
		l.overlap.Store(true)
		return false
	}
	l.runs[i].Add(1)
	l.parties[i].Store(int32(party + 1))
	spinSink.Store(spinWork(2000, i, party)) // kept, so the work is not optimised away
	l.inUse[party].Store(false)
	return i%7 != 3 // some chunks report failure
}

// TestRunEveryChunkOnce checks that Run calls fn once for every chunk,
// with party indices below parties and never two at once with the same
// index, reports whether every call returned true, and does so on any
// number of parties, with and without waking workers.
func TestRunEveryChunkOnce(t *testing.T) {
	for _, parties := range []int{1, 2, 3, 5} {
		for _, chunks := range []int{0, 1, 2, 3, 4, 7, 50} {
			for _, wake := range []bool{false, true} {
				l := &chunkLog{runs: make([]atomic.Int32, chunks), parties: make([]atomic.Int32, chunks)}
				ok := logPool.Run(l, chunks, parties, wake, logChunk)
				if l.overlap.Load() {
					t.Fatalf("parties %d, chunks %d: a party index out of range or used twice at once", parties, chunks)
				}
				for i := range chunks {
					if n := l.runs[i].Load(); n != 1 {
						t.Fatalf("parties %d, chunks %d: chunk %d ran %d times", parties, chunks, i, n)
					}
					if p := int(l.parties[i].Load()) - 1; p >= parties {
						t.Fatalf("parties %d, chunks %d: chunk %d ran as party %d", parties, chunks, i, p)
					}
				}
				if want := chunks <= 3; ok != want {
					t.Fatalf("parties %d, chunks %d: Run reported %v, want %v (chunk 3 fails)", parties, chunks, ok, want)
				}
			}
		}
	}
}

// TestRunNested runs a Run inside every chunk of another: the inner ones
// find the workers busy, or take the idle ones, and all complete.
func TestRunNested(t *testing.T) {
	var total atomic.Int64
	outer := NewPool[*atomic.Int64]()
	inner := NewPool[*atomic.Int64]()
	outer.Run(&total, 8, Parties()+1, true, func(sum *atomic.Int64, i, _ int) bool {
		inner.Run(sum, 8, Parties()+1, true, func(sum *atomic.Int64, j, _ int) bool {
			sum.Add(int64(i*8 + j))
			return true
		})
		return true
	})
	if got, want := total.Load(), int64(63*64/2); got != want {
		t.Errorf("nested Runs summed %d, want %d", got, want)
	}
}

// TestRunDoesNotWaitForOtherCallers holds every worker and a first caller
// inside the chunks of one job until a second caller's Run has returned.
// Had the second caller to wait for a busy worker, or for the first job,
// it would never return (the test fails after a minute rather than hang).
func TestRunDoesNotWaitForOtherCallers(t *testing.T) {
	parties := Parties()
	ensureWorkers(parties - 1)
	waitIdle(t)
	release := make(chan struct{})
	started := make(chan struct{}, parties)
	blocked := NewPool[chan struct{}]()
	firstDone := make(chan struct{})
	go func() {
		defer close(firstDone)
		// One chunk per party: the caller holds one, so the workers must
		// take the others.
		blocked.Run(release, parties, parties, true, func(release chan struct{}, _, _ int) bool {
			started <- struct{}{}
			select {
			case <-release:
			case <-time.After(time.Minute): // the test has failed: let go
			}
			return true
		})
	}()
	for i := range parties {
		await(t, started, fmt.Sprintf("chunk %d of %d of the first job to start", i+1, parties))
	}
	var sum atomic.Int64
	done := make(chan struct{})
	go func() {
		other := NewPool[*atomic.Int64]()
		other.Run(&sum, 16, parties, true, func(sum *atomic.Int64, i, _ int) bool {
			sum.Add(int64(i))
			return true
		})
		close(done)
	}()
	await(t, done, "a Run while every worker is held by another caller's job")
	close(release)
	await(t, firstDone, "the first job to return once its chunks were released")
	if got := sum.Load(); got != 120 {
		t.Errorf("the second caller's chunks summed %d, want 120", got)
	}
}

// TestRunConcurrentCallers runs many jobs from several goroutines at once,
// under -race too: each sees every chunk run once and only its own data.
func TestRunConcurrentCallers(t *testing.T) {
	const goroutines, rounds, chunks = 8, 30, 12
	pool := NewPool[[]int32]()
	var wg sync.WaitGroup
	errs := make(chan string, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			out := make([]int32, chunks)
			for r := range rounds {
				clear(out)
				pool.Run(out, chunks, Parties()+1, r%2 == 0, func(out []int32, i, _ int) bool {
					out[i] += int32(g*1000 + i)
					return true
				})
				for i, v := range out {
					if v != int32(g*1000+i) {
						errs <- fmt.Sprintf("goroutine %d round %d: chunk %d wrote %d", g, r, i, v)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRunAllocs checks that a warm Run that hands chunks to a worker
// allocates nothing and starts no goroutine, counting with the process's
// GOMAXPROCS (testing.AllocsPerRun would set it to 1, where Run keeps
// every chunk on the caller). The chunks are long enough for a worker to
// join, and the measurement is repeated until one has.
func TestRunAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	p := NewPool[int]()
	run := func() { p.Run(5000, 8, Parties(), true, spinWork) }
	run()
	goroutines := runtime.NumGoroutine()
	multi := runtime.NumCPU() >= 2 && runtime.GOMAXPROCS(0) >= 2
	deadline := time.Now().Add(time.Minute)
	for {
		helped := p.Helped()
		if allocs := testalloc.MallocsPerCall(20, run); allocs != 0 {
			t.Fatalf("Run with GOMAXPROCS %d allocates %v times per call, want 0",
				runtime.GOMAXPROCS(0), allocs)
		}
		if !multi || p.Helped() > helped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no worker computed a chunk in a minute of calls with GOMAXPROCS %d",
				runtime.GOMAXPROCS(0))
		}
	}
	if now := runtime.NumGoroutine(); now > goroutines {
		t.Errorf("%d goroutines after the calls, %d before: a call starts goroutines", now, goroutines)
	}
}
