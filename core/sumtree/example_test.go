package sumtree_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rlxdev/rlx/core/sumtree"
)

func Example() {
	tree, err := sumtree.New(8, 4) // 8 priorities, 4 children per node
	if err != nil {
		panic(err)
	}
	if err := tree.SetBatch([]int{0, 3, 6}, []float64{1, 2, 5}); err != nil {
		panic(err)
	}
	fmt.Println("total:", tree.Total())
	// The prefix sums are 1 (after leaf 0), 3 (after leaf 3) and 8 (after
	// leaf 6): u in [0,1) finds 0, [1,3) finds 3, [3,8) finds 6.
	for _, u := range []float64{0, 0.99, 1, 2.5, 3, 7.9} {
		fmt.Printf("Find(%v) = %d\n", u, tree.Find(u))
	}
	// Output:
	// total: 8
	// Find(0) = 0
	// Find(0.99) = 0
	// Find(1) = 3
	// Find(2.5) = 3
	// Find(3) = 6
	// Find(7.9) = 6
}

// Sampling with probability proportional to priority: draw u uniformly on
// [0, Total()) and look up its prefix-sum index.
func ExampleTree_FindBatch() {
	tree, _ := sumtree.New(4, 2)
	_ = tree.SetBatch([]int{0, 1, 2, 3}, []float64{1, 0, 3, 4})

	rng := rand.New(rand.NewPCG(1, 2))
	u := make([]float64, 8000)
	for i := range u {
		u[i] = rng.Float64() * tree.Total()
	}
	idx := make([]int, len(u))
	tree.FindBatch(u, idx)

	counts := make([]int, tree.Cap())
	for _, i := range idx {
		counts[i]++
	}
	fmt.Println(counts) // about 1000, 0, 3000, 4000
	// Output: [974 0 3050 3976]
}

func ExampleTree_Set_errors() {
	tree, _ := sumtree.New(10, 16)
	fmt.Println(tree.Set(10, 1))
	fmt.Println(tree.Set(3, -0.5))
	_, err := sumtree.New(100, 1)
	fmt.Println(err)
	// Output:
	// sumtree: index 10 is out of range: indices must be 0..9
	// sumtree: priority -0.5 for index 3 is not allowed: priorities must be 0..1e+270
	// sumtree: fanout 1 is not allowed: fanout must be 2..4096
}

// Trace records the walk of one search, level by level, as the explorer's
// sum-tree pane draws it.
func ExampleTree_Trace() {
	tree, _ := sumtree.New(16, 4)
	for i := range 16 {
		_ = tree.Set(i, float64(i%4+1)) // 1 2 3 4 1 2 3 4 ...
	}
	path := tree.Trace(27.5)
	for _, s := range path.Steps {
		fmt.Printf("level %d node %d: target %v, children %v, partial %v -> child %d\n",
			s.Level, s.Node, s.Target, s.Children, s.Partial, s.Child)
	}
	fmt.Println("leaf", path.Leaf)
	// Output:
	// level 0 node 0: target 27.5, children [10 10 10 10], partial 20 -> child 2
	// level 1 node 2: target 7.5, children [1 2 3 4], partial 6 -> child 3
	// leaf 11
}

// A viewer draws part of a level: the children of one node, without
// reading the rest of the level.
func ExampleTree_LevelRange() {
	tree, _ := sumtree.New(16, 4) // levels of 1, 4 and 16 nodes
	_ = tree.SetBatch([]int{4, 5, 6, 7, 9}, []float64{1, 2, 3, 4, 8})
	fmt.Println("level 1:", tree.Level(nil, 1))
	fmt.Println("children of node 1:", tree.LevelRange(nil, 2, 4, 4))
	// Output:
	// level 1: [0 10 8 0]
	// children of node 1: [1 2 3 4]
}

// An exact tree over fixed-point priorities: sums are integers, so the root
// is the leaves' sum bit for bit and a target drawn uniformly from
// [0, Total()) picks each leaf with probability exactly Quanta(i)/Total().
func ExampleExact() {
	tree, err := sumtree.NewExact(8, 4, 10) // 8 priorities, 4 children per node, priorities up to 10
	if err != nil {
		panic(err)
	}
	if err := tree.SetBatch([]int{1, 3, 6}, []float64{0.5, 2, 1.5}); err != nil {
		panic(err)
	}
	fmt.Println(tree.Cap(), tree.MaxPriority(), tree.TotalPriority(), tree.Get(3))
	fmt.Printf("resolution 2^%d\n", int(math.Log2(tree.Resolution())))

	q := tree.Quanta(1) // leaf 1 owns targets [0, q)
	fmt.Println(tree.Find(0), tree.Find(q-1), tree.Find(q), tree.Find(tree.Total()-1))

	fmt.Println(tree.Set(2, 11))
	// Output:
	// 8 10 4 2
	// resolution 2^-56
	// 1 1 3 6
	// sumtree: priority 11 for index 2 cannot be represented: priorities must be 0, or above 6.938893903907228e-18 (half the resolution 2^-56) and at most 10
}
