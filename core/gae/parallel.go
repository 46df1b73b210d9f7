package gae

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// ParallelThreshold is the number of elements T*N from which Compute splits
// the columns across cores. Below it, handing work to another core costs
// more than it saves: a parked worker takes microseconds to wake, tens of
// them when its virtual CPU is halted, and the sweep of a rollout of a few
// hundred thousand elements takes little more. Measured on the 2-core
// development machine (AVX-512): 1024x512 ran as fast on two cores as on
// one, 512x2048 and 2048x1024 ran 1.4-1.6x faster.
const ParallelThreshold = 1 << 20

const (
	// chunkAlign is the column granularity of a split: 16 float32 fill a
	// 64-byte cache line, so two chunks rarely write the same line of a
	// row, and the SIMD kernels see whole vectors.
	chunkAlign = 16
	// minChunk is the narrowest chunk worth a core: 64 columns, a row
	// segment of 256 bytes per stream.
	minChunk = 64
	// maxCores bounds the split.
	maxCores = 64
	// freeJobs is the number of jobs the pool keeps; a call that finds none
	// free runs on one core rather than allocate.
	freeJobs = 8
)

// run computes p with kernel k, on several cores when it is large enough.
func run(p *panel, k kernelID) bool {
	cores := coresFor(p.rows, p.c1-p.c0)
	if cores <= 1 {
		return runKernel(k, p)
	}
	return runParallel(p, k, cores)
}

// Cores returns how many cores Compute uses for a rollout of T steps of N
// environments: 1 below ParallelThreshold elements, otherwise up to
// GOMAXPROCS, one per 64 columns at most.
func Cores(T, N int) int {
	if T < 1 || N < 1 || T > math.MaxInt/N {
		return 1
	}
	return coresFor(T, N)
}

// coresFor returns how many cores a rows x cols panel is worth.
func coresFor(rows, cols int) int {
	if rows*cols < ParallelThreshold {
		return 1
	}
	return max(1, min(runtime.GOMAXPROCS(0), runtime.NumCPU(), maxCores, cols/minChunk))
}

// A job is one parallel Compute. Its columns are cut into one chunk per
// core, which the calling goroutine and the workers claim from a counter
// until none is left, so a worker that starts late, or never gets a core on
// a shared machine, delays nothing: the caller takes its chunk. The caller
// returns once every chunk is done, without waiting for workers that
// claimed nothing; a job goes back to the free list when the last party
// holding it lets go, so that a late worker never sees it reused.
//
// One chunk per core, rather than many small ones to balance: a chunk
// sweeps every row, and with rows of 4 KB or more each row of a chunk is a
// different page, so narrow chunks pay a TLB miss and a cold prefetcher per
// few hundred bytes. Measured at 2048x1024 on 2 cores, chunks of 512
// columns ran faster than chunks of 256 or 128.
type job struct {
	p       panel
	k       kernelID
	chunk   int          // columns per chunk, a multiple of chunkAlign
	nchunks int32        // chunks in p
	next    atomic.Int32 // the next chunk to claim
	done    atomic.Int32 // chunks finished
	bad     atomic.Bool  // a chunk wrote a non-finite return
	refs    atomic.Int32 // the caller and the workers sent the job
	// finished carries one token when a worker, not the caller, finishes
	// the last chunk.
	finished chan struct{}
}

// work claims and computes chunks until none is left. It reports whether
// the caller of work finished the job's last chunk.
func (j *job) work() (last bool) {
	for {
		i := j.next.Add(1) - 1
		if i >= j.nchunks {
			return last
		}
		q := j.p
		q.c0 = j.p.c0 + int(i)*j.chunk
		q.c1 = min(q.c0+j.chunk, j.p.c1)
		if !runKernel(j.k, &q) {
			j.bad.Store(true)
		}
		last = j.done.Add(1) == j.nchunks
	}
}

// release drops one reference and recycles the job with the last.
func (j *job) release() {
	if j.refs.Add(-1) == 0 {
		j.p = panel{} // do not keep the caller's slices alive
		select {
		case pool.free <- j:
		default:
		}
	}
}

// pool is the persistent worker pool: goroutines started on first use that
// wait for jobs for the life of the process, so that a parallel call spawns
// nothing and, once warm, allocates nothing.
var pool struct {
	mu      sync.Mutex
	workers int
	jobs    chan *job
	free    chan *job
}

// ensureWorkers starts workers until there are at least n.
func ensureWorkers(n int) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.jobs == nil {
		pool.jobs = make(chan *job, maxCores*freeJobs)
		pool.free = make(chan *job, freeJobs)
		for range freeJobs {
			pool.free <- &job{finished: make(chan struct{}, 1)}
		}
	}
	for ; pool.workers < n; pool.workers++ {
		go worker(pool.jobs)
	}
}

func worker(jobs <-chan *job) {
	for j := range jobs {
		if j.work() {
			j.finished <- struct{}{}
		}
		j.release()
	}
}

// runParallel computes p with the calling goroutine and cores-1 workers.
// If every job is still held, by callers or by workers that have yet to
// wake for calls already finished, it computes p on the calling goroutine.
func runParallel(p *panel, k kernelID, cores int) bool {
	ensureWorkers(cores - 1)
	var j *job
	select {
	case j = <-pool.free:
	default:
		return runKernel(k, p)
	}
	cols := p.c1 - p.c0
	chunk := (cols + cores - 1) / cores
	chunk = (chunk + chunkAlign - 1) / chunkAlign * chunkAlign
	j.p, j.k, j.chunk = *p, k, chunk
	j.nchunks = int32((cols + chunk - 1) / chunk)
	j.next.Store(0)
	j.done.Store(0)
	j.bad.Store(false)
	j.refs.Store(int32(cores))
	for range cores - 1 {
		pool.jobs <- j
	}
	if !j.work() {
		// A worker finishes the last chunk and says so.
		<-j.finished
	}
	ok := !j.bad.Load()
	j.release()
	return ok
}
