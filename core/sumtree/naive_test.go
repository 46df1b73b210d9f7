package sumtree

// naiveTree is the reference the tests compare the sum tree with: a plain
// slice of priorities and linear scans.
type naiveTree struct{ p []float64 }

func newNaive(n int) *naiveTree { return &naiveTree{p: make([]float64, n)} }

func (n *naiveTree) total() float64 {
	s := 0.0
	for _, x := range n.p {
		s += x
	}
	return s
}

// prefix returns S(i) = p[0] + ... + p[i-1], summed left to right.
func (n *naiveTree) prefix(i int) float64 {
	s := 0.0
	for _, x := range n.p[:i] {
		s += x
	}
	return s
}

// find is the definition of the prefix-sum index: the i with
// S(i) <= u < S(i+1), with the edge rules of Find. With priorities that sum
// exactly in float64 (small integers) it is the exact answer.
func (n *naiveTree) find(u float64) int {
	first, last := -1, -1
	for i, x := range n.p {
		if x > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || u != u {
		return -1
	}
	if u < 0 {
		return first
	}
	s := 0.0
	for i, x := range n.p {
		s += x
		if s > u {
			return i
		}
	}
	return last
}
