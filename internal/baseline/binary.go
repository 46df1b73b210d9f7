// Package baseline holds the plain implementations rlx measures its fast
// ones against. They are correct and straightforward, written the way most
// replay buffers write them, and never used by the training core.
package baseline

// BinaryTree is the textbook binary sum tree in an implicit array: node 1 is
// the root, node i has children 2i and 2i+1, and the leaves start at the
// first power of two >= the capacity. An update rewrites the leaf and
// recomputes each ancestor from its two children; a search walks down
// comparing against the left child.
type BinaryTree struct {
	nodes []float64
	size  int // number of leaf slots, a power of two
}

// NewBinaryTree returns a tree of at least capacity leaves, all 0.
// capacity must be positive.
func NewBinaryTree(capacity int) *BinaryTree {
	size := 1
	for size < capacity {
		size <<= 1
	}
	return &BinaryTree{nodes: make([]float64, 2*size), size: size}
}

// Total returns the sum of all priorities.
func (t *BinaryTree) Total() float64 { return t.nodes[1] }

// Set sets the priority of leaf i and recomputes its ancestors.
func (t *BinaryTree) Set(i int, p float64) {
	j := t.size + i
	t.nodes[j] = p
	for j >>= 1; j >= 1; j >>= 1 {
		t.nodes[j] = t.nodes[2*j] + t.nodes[2*j+1]
	}
}

// SetBatch sets each idx[k] to p[k], one leaf at a time.
func (t *BinaryTree) SetBatch(idx []int, p []float64) {
	for k, i := range idx {
		t.Set(i, p[k])
	}
}

// Find returns the leaf whose prefix-sum range holds u, for u in
// [0, Total()).
func (t *BinaryTree) Find(u float64) int {
	j := 1
	for j < t.size {
		left := 2 * j
		if u < t.nodes[left] {
			j = left
		} else {
			u -= t.nodes[left]
			j = left + 1
		}
	}
	return j - t.size
}

// FindBatch sets out[k] = Find(u[k]), one query at a time.
func (t *BinaryTree) FindBatch(u []float64, out []int) {
	for k, x := range u {
		out[k] = t.Find(x)
	}
}
