package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// MaxParties bounds the goroutines one Run uses, the caller included.
const MaxParties = 64

// freeJobs is the number of jobs a Pool keeps: concurrent Runs beyond it
// compute on their calling goroutine.
const freeJobs = 8

// Parties returns how many goroutines a split can use here: GOMAXPROCS,
// at most the number of CPUs and MaxParties.
func Parties() int {
	return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU(), MaxParties))
}

// Step returns the length of the chunks that cut n items into at most
// parts chunks, one per party: n/parts rounded up to a multiple of align,
// and at least align. Cutting at multiples of align keeps the chunks on
// the boundaries (vectors, tiles, cache lines) that make a chunk's result
// the same as the whole pass's; the last chunk, n - (chunks-1)*step, may
// be shorter. It panics if parts or align is below 1.
func Step(n, parts, align int) int {
	if parts < 1 || align < 1 {
		panic(fmt.Sprintf("parallel: Step: %d parts, align %d: both must be at least 1", parts, align))
	}
	per := (n + parts - 1) / parts
	return max(1, (per+align-1)/align) * align
}

// Pool runs jobs whose argument is a T. Its zero value is not usable: make
// one with NewPool, once per kind of job (a package-level variable). The
// workers are shared by every Pool of the process.
type Pool[T any] struct {
	free   chan *job[T]
	helped atomic.Uint64 // workers' shares of a Run that claimed a chunk
}

// NewPool returns a Pool with its free list of jobs filled.
func NewPool[T any]() *Pool[T] {
	p := &Pool[T]{free: make(chan *job[T], freeJobs)}
	for range freeJobs {
		p.free <- &job[T]{pool: p, finished: make(chan struct{}, 1)}
	}
	return p
}

// Helped returns how many times a worker has computed chunks of a Run of
// p: a diagnostic, for tests that must know the workers took part.
func (p *Pool[T]) Helped() uint64 { return p.helped.Load() }

// Run calls fn(arg, i, party) for every chunk i in [0, chunks) on the
// calling goroutine (party 0) and on at most parties-1 idle workers
// (parties 1, 2, ...), and returns when every call has returned. It
// reports whether every call returned true. fn receives a copy of arg;
// chunks run in no particular order, each exactly once.
//
// Run hands chunks to workers still awake from a previous job (see Spin);
// with wake set, it also wakes parked ones, which costs the caller more
// (see the package documentation) and pays only for large jobs. With
// parties <= 1, or no worker to take part, the chunks run in order on the
// calling goroutine.
//
// A panic in fn reaches the caller, as in a loop over the chunks: chunks
// not yet started are skipped, and Run waits for the chunks that workers
// have started before it panics with the value fn panicked with (the
// first, if several did). fn must not call runtime.Goexit (nor
// testing.T.FailNow) on a worker.
func (p *Pool[T]) Run(arg T, chunks, parties int, wake bool,
	fn func(arg T, chunk, party int) bool) bool {
	helpers := min(parties, chunks, MaxParties) - 1
	if helpers <= 0 {
		return inline(arg, chunks, fn)
	}
	ensureWorkers(helpers)
	var j *job[T]
	select {
	case j = <-p.free:
	default: // every job is held: run inline rather than allocate
		return inline(arg, chunks, fn)
	}
	j.arg, j.fn, j.chunks = arg, fn, int64(chunks)
	j.next.Store(0)
	j.done.Store(0)
	j.joined.Store(0)
	j.bad.Store(false)
	j.aborted.Store(false)
	j.panicked.Store(nil)
	j.refs.Store(1)
	if handOut(j, helpers, wake) == 0 {
		j.release()
		return inline(arg, chunks, fn)
	}
	return j.lead()
}

// inline runs every chunk in order on the calling goroutine.
func inline[T any](arg T, chunks int, fn func(T, int, int) bool) bool {
	ok := true
	for i := range chunks {
		if !fn(arg, i, 0) {
			ok = false
		}
	}
	return ok
}

// runner is a job as the workers see it, whatever its argument type: hold
// takes a reference for a worker it is handed to, run is that worker's
// share, complete reports whether every chunk is done, and release drops
// the worker's reference.
type runner interface {
	hold()
	run()
	complete() bool
	release()
}

// A job is one Run handed to workers. Its chunks are claimed from a
// counter by the caller and the workers until none is left. The caller
// returns once every chunk is done, without waiting for workers that
// claimed nothing; the job goes back to the free list when the last party
// holding it lets go, so that a late worker never sees it reused.
type job[T any] struct {
	pool   *Pool[T]
	arg    T
	fn     func(T, int, int) bool
	chunks int64
	next   atomic.Int64 // the next chunk to claim
	done   atomic.Int64 // chunks finished (or skipped)
	joined atomic.Int32 // workers that took the job: their party indices
	bad    atomic.Bool  // a call of fn returned false
	// aborted is set when a call of fn panicked: the chunks claimed after
	// it are counted done without running.
	aborted  atomic.Bool
	panicked atomic.Pointer[chunkPanic] // the first panic on a worker
	refs     atomic.Int32               // the caller and the workers handed the job
	// finished carries one token when a worker, not the caller, finishes
	// the last chunk.
	finished chan struct{}
}

// chunkPanic is the value a chunk panicked with on a worker.
type chunkPanic struct{ value any }

// lead is the caller's share of a job it has handed out: it claims chunks
// as party 0, waits for those the workers run, and lets go of the job.
// When a chunk panics here, the deferred abandon still counts it, skips
// the rest, waits for the workers' and lets go before the panic goes on;
// a panic on a worker is raised here once every chunk is done.
func (j *job[T]) lead() bool {
	returned := false
	defer func() {
		if !returned {
			j.abandon()
		}
	}()
	if _, last := j.work(0); !last {
		j.waitLast()
	}
	returned = true
	ok, p := !j.bad.Load(), j.panicked.Load()
	j.release()
	if p != nil {
		panic(p.value)
	}
	return ok
}

// abandon finishes the job for a caller whose chunk did not return.
func (j *job[T]) abandon() {
	j.aborted.Store(true)
	last := j.done.Add(1) == j.chunks // the chunk that did not return
	if _, lastHere := j.work(0); !lastHere && !last {
		j.waitLast()
	}
	j.release()
}

// work claims and runs chunks as party until none is left. It reports
// whether this party claimed any chunk and whether it finished the job's
// last one.
func (j *job[T]) work(party int) (claimed, last bool) {
	for {
		i := j.next.Add(1) - 1
		if i >= j.chunks {
			return claimed, last
		}
		if !claimed && party > 0 {
			j.pool.helped.Add(1) // before the chunk counts: the caller sees it
		}
		claimed = true
		if !j.aborted.Load() {
			if party == 0 {
				j.call(int(i), 0)
			} else {
				j.callGuarded(int(i), party)
			}
		}
		last = j.done.Add(1) == j.chunks
	}
}

func (j *job[T]) call(i, party int) {
	if !j.fn(j.arg, i, party) {
		j.bad.Store(true)
	}
}

// callGuarded is call on a worker: a panic is kept for the caller, and
// the chunks not yet claimed are skipped.
func (j *job[T]) callGuarded(i, party int) {
	defer func() {
		if v := recover(); v != nil {
			j.panicked.CompareAndSwap(nil, &chunkPanic{v})
			j.aborted.Store(true)
		}
	}()
	j.call(i, party)
}

// run is a worker's share of the job. The worker keeps its reference
// until it has seen the job complete (see worker.next).
func (j *job[T]) run() {
	if _, last := j.work(int(j.joined.Add(1))); last {
		j.finished <- struct{}{}
	}
}

// complete reports whether every chunk is done; only a holder of a
// reference may ask.
func (j *job[T]) complete() bool { return j.done.Load() == j.chunks }

// waitLast waits, as the caller, for a worker to finish the last chunk:
// it spins for up to waitSpin first, since the worker is running and
// usually close to done, and parks only after that.
func (j *job[T]) waitLast() {
	if j.done.Load() != j.chunks {
		start := time.Now()
		for j.done.Load() != j.chunks && time.Since(start) < waitSpin {
			for range pollsPerYield {
				if j.done.Load() == j.chunks {
					break
				}
			}
			runtime.Gosched()
		}
	}
	<-j.finished
}

// hold adds the reference of a worker the job is handed to.
func (j *job[T]) hold() { j.refs.Add(1) }

// release drops one reference and recycles the job with the last.
func (j *job[T]) release() {
	if j.refs.Add(-1) != 0 {
		return
	}
	var zero T
	j.arg, j.fn = zero, nil // do not keep the caller's slices alive
	select {
	case j.pool.free <- j:
	default:
	}
}

// Worker states. A worker is busy from the moment a Run claims it until it
// has finished its share of the job; then it spins, polling for the next
// claim, until the job is complete and for Spin after; then it parks on
// its channel.
const (
	busy int32 = iota
	spinning
	parked
)

// A worker runs the jobs handed to it, one at a time. Workers are a cache
// line apart, so that claiming one does not disturb another's polling.
type worker struct {
	state atomic.Int32
	jobs  chan runner // capacity 1: a job is handed only to a claimed worker
	_     [64 - 16]byte
}

// pool is the process-wide set of workers: goroutines started on first use
// that wait for jobs for the life of the process.
var pool struct {
	mu      sync.Mutex
	started atomic.Int32 // workers[:started] are running
	_       [64 - 12]byte
	workers [MaxParties - 1]worker
}

// Workers returns the number of worker goroutines started so far. They live
// for the rest of the process, so a test that checks a run leaves no
// goroutine behind counts them apart.
func Workers() int { return int(pool.started.Load()) }

// ensureWorkers starts workers until there are at least n.
func ensureWorkers(n int) {
	if int(pool.started.Load()) >= n {
		return
	}
	pool.mu.Lock()
	defer pool.mu.Unlock()
	for i := int(pool.started.Load()); i < n; i++ {
		w := &pool.workers[i]
		w.jobs = make(chan runner, 1)
		w.state.Store(busy) // until it first waits
		go w.loop()
		pool.started.Store(int32(i + 1))
	}
}

// handOut claims up to n idle workers, spinning ones first and, with wake,
// parked ones after them, and hands each the job; it returns how many it
// claimed.
func handOut(r runner, n int, wake bool) int {
	got := 0
	started := int(pool.started.Load())
	for _, from := range [2]int32{spinning, parked} {
		if from == parked && !wake {
			break
		}
		for i := 0; i < started && got < n; i++ {
			w := &pool.workers[i]
			if w.state.Load() == from && w.state.CompareAndSwap(from, busy) {
				r.hold()
				w.jobs <- r
				got++
			}
		}
	}
	return got
}

func (w *worker) loop() {
	var last runner
	for {
		r, held := w.next(last)
		r.run()
		if held {
			last.release() // after the new share: off its critical path
		}
		last = r
	}
}

// next waits for the worker's next job, holding its reference to the last
// one (nil at first) until it has seen that job complete: it spins while
// the Run it took part in is still at work (at most jobSpin) and for Spin
// after, then parks. Only workers that took part in a Run stay awake for
// it, and for a bounded time. held reports that a job came before the
// last one completed: the caller still holds last's reference.
func (w *worker) next(last runner) (r runner, held bool) {
	w.state.Store(spinning)
	start := time.Now()
	for {
		for range pollsPerYield {
			if len(w.jobs) > 0 {
				return <-w.jobs, last != nil
			}
		}
		runtime.Gosched()
		waited := time.Since(start)
		if last != nil {
			if last.complete() || waited >= jobSpin {
				last.release()
				last, start = nil, time.Now()
			}
		} else if waited >= Spin {
			break
		}
	}
	// Nothing came: park, unless a claim comes first (then its job is on
	// its way).
	w.state.CompareAndSwap(spinning, parked)
	return <-w.jobs, false
}

// Spin is how long a worker stays awake after the last Run it took part
// in has returned. Waking a parked goroutine takes microseconds, and on a
// virtual machine whose idle CPU has halted the woken thread may first
// share the waker's CPU for up to a millisecond or two; the kernels that
// split their work call Run microseconds apart (a network's layers,
// forward then backward), so a worker that stays awake between them is
// found at once. A spinning worker yields the processor (runtime.Gosched)
// to any other goroutine that is ready between its polls.
const Spin = 200 * time.Microsecond

// jobSpin bounds how long a worker that has finished its share spins
// while the rest of the job is still at work (a caller's long last chunk):
// beyond it, waking the worker for the next Run costs little beside the
// Run that kept it.
const jobSpin = 20 * time.Millisecond

// pollsPerYield is how many times a spinning goroutine polls between
// yields: a yield goes through the scheduler and takes its lock, a poll is
// a load, so the yields are kept a microsecond or so apart.
const pollsPerYield = 1024

// waitSpin is how long a caller polls for the chunks that workers still
// run, at the end of its own, before it parks.
const waitSpin = 1 * time.Millisecond
