// Package sumtree implements a K-ary sum tree: an array of non-negative
// priorities p[0..n) that supports O(1) reads and totals, O(K log_K n)
// updates and O(log_K n) prefix-sum searches, the data structure behind
// prioritized experience replay.
//
// # What it computes
//
// Find(u), for u in [0, Total()), returns the unique index i with
//
//	S(i) <= u < S(i+1),  S(i) = p[0] + ... + p[i-1],
//
// so that for u uniform on [0, Total()) index i is drawn with probability
// p[i] / Total(). This is the "prefix sum index" of 002 §IV-A2 (Eq. 4) and
// 000 §II-A3 (Eq. 1), with the boundary convention that u = S(i) belongs to
// index i. Find never returns an index whose priority is 0: when rounding
// pushes u past the end of a subtree, when u >= Total() and when u < 0, the
// walk falls to the last (or first) leaf with a positive priority. With
// Total() == 0 it returns -1.
//
// # Layout (002 §IV-C4)
//
// The tree is one implicit array in level order, root first. The K children
// of a node form a group of siblings that starts on a 64-byte cache-line
// boundary when K is a multiple of 8; smaller groups are padded to a power of
// two so that no group straddles two lines. A group that covers the end of a
// level is padded with zeros, which the search never selects.
//
// Each group of internal nodes stores, right after its K values, their
// running sums v[0], v[0]+v[1], ..., added left to right. The search of such
// a group is then a count of the running sums <= u (a branch-free
// bisection, or a few AVX2 compares) instead of an addition per child on
// every visit. A group of leaves stores only its values: the leaves are most
// of the tree and most of what an update touches, and without running sums
// an update writes half the memory and adds K leaves instead of writing K
// sums. The search of the last level adds the leaves as it goes, in the same
// order, so it counts exactly the sums that stored ones would hold. Memory:
// 8 bytes per leaf and 16 per internal node.
//
// # No drift
//
// An update does not add a delta to the ancestors of a leaf, as 002
// Algorithm 2 does; it recomputes each ancestor from its K children, always
// adding left to right. Every node and running sum is therefore a pure
// function of the leaves: after any sequence of updates the tree is bit for
// bit the tree a rebuild from the leaves produces, and the root differs from
// the exact sum of the leaves by the rounding of one summation, never by
// accumulated error. The price is K additions per level instead of one.
//
// # Batches
//
// FindBatch advances a chunk of queries one level at a time, so that the
// memory accesses of different queries overlap (memory-level parallelism,
// the CPU analogue of the pipelined samplers of 000 §IV-C4); the vector
// kernels first prefetch the groups of the whole chunk, then search them.
// SetBatch writes a chunk of leaves and recomputes the sparse lower levels
// along each updated path, with straight-line kernels for K = 4, 8 and 16,
// and the dense upper levels, where a batch touches most nodes anyway, once
// each. Neither allocates.
//
// # Cost
//
// With H = ceil(log_K n) + 1 levels: Get and Total O(1); Set O(K H); Find
// O(H log K + K): a bisection (or K/4 vector compares) per internal level and
// up to K additions at the last; SetBatch of B leaves O(B K H) at most.
// Once the tree outgrows the caches, each level of a search or update costs
// about one cache miss. Memory: n + 2n/(K-1) float64 plus padding.
//
// # Portability
//
// On amd64 with AVX2 and POPCNT, FindBatch searches each group with vector
// compares, and the last level with scalar additions and compares, in
// assembly (search_amd64.s). Elsewhere, and with the purego build tag, it
// bisects and adds in Go. Both give identical results; the tests run both.
//
// # Concurrency
//
// A Tree is not safe for concurrent mutation. Any number of goroutines may
// call the read methods (Get, Total, Find, FindBatch, Trace, Level,
// LevelRange) at once when none is writing. The prioritized replay buffer (package
// github.com/rlxdev/rlx/core/replay) layers the two-lock scheme of 002
// §IV-D on top, using WriteLeaves and Propagate, which split an update into
// its last-level part and its upper-level part.
//
// # The exact tree
//
// Exact is the same structure over fixed-point priorities: each priority is
// a whole number of quanta (a power of two chosen from the capacity and the
// largest priority, so that the total of a full tree stays below 2^63), and
// every node the integer sum of its children. Integer addition is
// associative, so an update adds the difference between the new and the old
// priority to each ancestor, one word per level, as 002 Algorithm 2 and the
// FPGA tree of 000 §IV-C4 do, and still never drifts: every node equals the
// sum of its leaves bit for bit after any sequence of updates, and Find(u)
// for an integer target u returns the leaf a linear scan returns. Priorities
// it cannot represent (NaN, negative, above the maximum, or so small they
// would round to 0) are rejected with a RangeError. Where priorities need a
// wider range than 2^63 quanta give, Tree keeps float64's.
package sumtree
