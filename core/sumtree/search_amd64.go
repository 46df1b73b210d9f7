//go:build amd64 && !purego

package sumtree

import "golang.org/x/sys/cpu"

// haveVectorSearch reports whether searchLevelVector can run on this CPU.
var haveVectorSearch = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// searchLevelVector is the vectorized searchLevel: for each query it counts
// the running sums of its group that are <= the query four at a time with
// AVX2 (VCMPPD, VMOVMSKPD, POPCNT) instead of bisecting. prefix must start at
// the running sums of the level's first group, groups are span slots apart,
// fanout must be a multiple of 4 and every group must lie inside prefix. Queries that run past the end of their group are
// left as js[q] = -2 - j for the caller to resolve; it returns how many.
// Implemented in search_amd64.s.
//
//go:noescape
func searchLevelVector(prefix []uint64, span, fanout int, js []int, rest []float64) (edges int)

// searchLeavesVector is searchLeaves for the last level in assembly: for
// each query it adds the leaves of its group left to right, as the updates
// do, and counts the running sums <= the query with scalar compares and
// add-with-carry, without a branch per leaf. Queries that run past the end
// of their group are left as js[q] = -2 - j for the caller to resolve; it
// returns how many. fanout must be a multiple of 4. Implemented in
// search_amd64.s.
//
//go:noescape
func searchLeavesVector(leaves []float64, stride, fanout int, js []int, rest []float64) (edges int)

// havePrefetch reports whether prefetchGroups is implemented.
const havePrefetch = true

// prefetchGroups prefetches, for every query q with js[q] = j >= 0, the
// cache lines of the fanout slots at first[j*span]. The searches run it
// over a chunk before searching a level: each query's search is a dependent
// chain that waits on its miss, and without the prefetch the reorder buffer
// fills after a few queries and leaves most of the memory latency exposed
// (measured at capacity 2^24, K = 16: 129 ns per query without the pass,
// 60-74 with it, depending on the machine's load). The batched update runs
// it over a chunk's leaf groups before writing them, for the same reason.
// Implemented in search_amd64.s.
//
//go:noescape
func prefetchGroups(first []float64, span, fanout int, js []int)
