package replay

import "math"

// extrema tracks the smallest and the largest priority among the slots that
// hold a transition (present slots), under updates, exactly: a K-ary tree
// whose leaves are the priorities and whose internal nodes are the min and
// max of their children, recomputed from the children on every update. An
// absent slot counts as +Inf for the minimum and 0 for the maximum, so an
// empty buffer reports min = +Inf and max = 0.
//
// The replay buffer needs the minimum for the exact maximum importance
// weight and the maximum for the priority of new transitions. It is not safe
// for concurrent use; the buffer guards it with its tree lock.
type extrema struct {
	// levels[d] holds node j's min at 2j and its max at 2j+1, leaves first;
	// the last level is the root. Interleaving the two keeps an update's
	// reads and writes in one place.
	levels [][]float64
}

// extremaFanout is the fanout of the extrema tree, independent of the sum
// tree's: small enough that a recompute is short, large enough that the tree
// is shallow (measured: 8 beats 4 and 16 on batches of 32 to 2048).
const extremaFanout = 8

func newExtrema(capacity int) *extrema {
	e := &extrema{}
	for n := capacity; ; n = (n + extremaFanout - 1) / extremaFanout {
		lv := make([]float64, 2*n)
		for j := range n {
			lv[2*j] = math.Inf(1)
		}
		e.levels = append(e.levels, lv)
		if n == 1 {
			break
		}
	}
	return e
}

// setBatch records priority p[k] for slot idx[k]; a priority of 0 marks the
// slot absent. Like the sum tree, it recomputes the nodes on the updated
// paths where a level is larger than the batch, and whole levels above.
func (e *extrema) setBatch(idx []int, p []float64) {
	leaves := e.levels[0]
	for k, i := range idx {
		if p[k] == 0 {
			leaves[2*i], leaves[2*i+1] = math.Inf(1), 0
		} else {
			leaves[2*i], leaves[2*i+1] = p[k], p[k]
		}
	}
	div := 1
	for d := 1; d < len(e.levels); d++ {
		div *= extremaFanout
		if n := len(e.levels[d]) / 2; n > len(idx) {
			for _, i := range idx {
				e.recompute(d, i/div)
			}
		} else {
			for j := range n {
				e.recompute(d, j)
			}
		}
	}
}

// recompute sets node j of level d to the min and max of its children,
// without branches (the builtins compile to MINSD and MAXSD on amd64):
// random priorities would make compare-and-branch mispredict.
func (e *extrema) recompute(d, j int) {
	children := e.levels[d-1]
	lo := 2 * j * extremaFanout
	hi := min(lo+2*extremaFanout, len(children))
	mn, mx := math.Inf(1), 0.0
	for c := lo; c+1 < hi; c += 2 {
		mn = min(mn, children[c])
		mx = max(mx, children[c+1])
	}
	e.levels[d][2*j], e.levels[d][2*j+1] = mn, mx
}

// minimum returns the smallest priority of a present slot, +Inf if none.
func (e *extrema) minimum() float64 { return e.levels[len(e.levels)-1][0] }

// maximum returns the largest priority of a present slot, 0 if none.
func (e *extrema) maximum() float64 { return e.levels[len(e.levels)-1][1] }
