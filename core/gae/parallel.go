package gae

import (
	"math"

	"github.com/rlxdev/rlx/internal/parallel"
)

// ParallelThreshold is the number of elements T*N from which Compute splits
// the columns across cores. Below it, handing work to another core costs
// more than it saves: Compute wakes parked workers, which takes
// microseconds, and on a virtual machine whose idle CPU has halted the
// woken thread may first share the caller's CPU for up to a millisecond or
// two (internal/parallel); the sweep of a rollout of a few hundred
// thousand elements takes little more. Measured on the 2-core development
// machine (AVX-512): 1024x512 ran as fast on two cores as on one, 512x2048
// and 2048x1024 ran 1.4-1.6x faster.
const ParallelThreshold = 1 << 20

const (
	// chunkAlign is the column granularity of a split: 16 float32 fill a
	// 64-byte cache line, so two chunks rarely write the same line of a
	// row, and the SIMD kernels see whole vectors.
	chunkAlign = 16
	// minChunk is the narrowest chunk worth a core: 64 columns, a row
	// segment of 256 bytes per stream.
	minChunk = 64
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
	return max(1, min(parallel.Parties(), cols/minChunk))
}

// A parallel Compute cuts its columns into one chunk per core, which the
// calling goroutine and idle workers of the process's pool
// (internal/parallel) claim until none is left, so a worker that starts
// late, or never gets a core on a shared machine, delays nothing: the
// caller takes its chunk.
//
// One chunk per core, rather than many small ones to balance: a chunk
// sweeps every row, and with rows of 4 KB or more each row of a chunk is a
// different page, so narrow chunks pay a TLB miss and a cold prefetcher per
// few hundred bytes. Measured at 2048x1024 on 2 cores, chunks of 512
// columns ran faster than chunks of 256 or 128.
type chunkTask struct {
	p     panel
	k     kernelID
	chunk int // columns per chunk, a multiple of chunkAlign
}

// gaePool runs the chunks of parallel Computes.
var gaePool = parallel.NewPool[chunkTask]()

// runChunk computes chunk i of a parallel Compute and reports whether its
// returns are finite.
func runChunk(t chunkTask, i, _ int) bool {
	q := t.p
	q.c0 = t.p.c0 + i*t.chunk
	q.c1 = min(q.c0+t.chunk, t.p.c1)
	return runKernel(t.k, &q)
}

// runParallel computes p in cores chunks, with the calling goroutine and up
// to cores-1 idle workers; with none idle, or every pooled job still held,
// it computes them on the calling goroutine. It reports whether every
// return is finite.
func runParallel(p *panel, k kernelID, cores int) bool {
	cols := p.c1 - p.c0
	chunk := parallel.Step(cols, cores, chunkAlign)
	t := chunkTask{p: *p, k: k, chunk: chunk}
	return gaePool.Run(t, (cols+chunk-1)/chunk, cores, true, runChunk)
}
