//go:build !amd64 || purego

package sumtree

// haveVectorSearch is false where there is no vector kernel: FindBatch then
// runs the portable bisection.
const haveVectorSearch = false

// searchLevelVector is never called when haveVectorSearch is false; it exists
// so that the portable build compiles the same call site.
func searchLevelVector(prefix []uint64, span, fanout int, js []int, rest []float64) (edges int) {
	panic("sumtree: no vector search kernel in this build")
}

// searchLeavesVector is never called when haveVectorSearch is false.
func searchLeavesVector(leaves []float64, stride, fanout int, js []int, rest []float64) (edges int) {
	panic("sumtree: no vector search kernel in this build")
}

// havePrefetch is false where prefetchGroups has no implementation.
const havePrefetch = false

// prefetchGroups is never called when havePrefetch is false.
func prefetchGroups(first []float64, span, fanout int, js []int) {
	panic("sumtree: no prefetch kernel in this build")
}
