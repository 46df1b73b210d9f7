// Package parallel runs the chunks of one computation on the calling
// goroutine and on idle goroutines of a process-wide worker pool: the
// multi-core splits of core/nn/kernel's GEMM, core/nn's convolutions and
// core/gae's advantage sweep share it, so that a process keeps one set of
// workers however many kernels split their work.
//
// # Contract
//
// Pool.Run(arg, chunks, parties, wake, fn) calls fn(arg, i, party) once
// for every chunk i in [0, chunks) and returns when every call has
// returned. The calling goroutine claims chunks itself; it hands the job
// to at most parties-1 workers, and only to workers that are idle at that
// moment: awake ones, and with wake set parked ones too. A worker that is
// slow to wake, or that never gets a core on a busy machine, delays
// nothing: the caller claims the chunks it would have taken. A caller
// waits only for chunks that a worker has already started, so concurrent
// callers never wait for one another beyond one chunk, and a Run nested in
// a chunk of another (a GEMM inside a convolution's chunk) runs inline
// when every worker is busy. Which goroutine runs which chunk varies from
// call to call: fn must compute the same thing whoever runs a chunk. The
// party index tells concurrent calls of one job apart (0 for the caller,
// distinct below parties for the workers), so that a chunk can use scratch
// space of its own. A panic in fn, on the caller or on a worker, reaches
// the caller, once the chunks the workers have started have returned; the
// chunks not yet started are skipped. Step gives the chunk length that
// cuts a range into one chunk per party at an alignment.
//
// # Cost
//
// Handing chunks to a worker that is awake costs a few atomic operations
// and a channel send, about a microsecond all told. A worker that has
// finished its share of a job stays awake, polling (and yielding to other
// goroutines between polls), until that job's Run returns (at most 20 ms)
// and for Spin after, then parks: only the workers that took part in a
// Run stay awake for the next. Waking a parked worker costs far more:
// microseconds for the wake-up, and on a virtual machine whose idle CPU
// has halted the woken thread may first share the caller's CPU for up to a
// millisecond or two; that is why wake is the caller's decision, for jobs
// large enough to pay for it.
// core/nn/kernel measures both thresholds for its GEMM
// (kernel.ParallelMinFlops, kernel.ParallelWakeFlops).
//
// # Allocation
//
// Workers are goroutines started on first use and kept for the life of
// the process; jobs come from a free list per Pool. Once warm, Run
// allocates nothing. When every job of a Pool is still held (by workers
// yet to wake for calls already finished), Run computes the chunks on the
// calling goroutine rather than allocate.
//
// # Imports
//
// The standard library only. It is internal to the module: core/gae,
// core/nn and core/nn/kernel import it, and nothing here may import
// anything of the module.
package parallel
