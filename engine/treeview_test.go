package engine

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rlxdev/rlx/core/sumtree"
)

// filledTree returns a tree of capacity leaves at fanout k whose first
// filled leaves hold priorities in [0.5, 1.5), as a replay buffer fills
// it from slot 0.
func filledTree(t *testing.T, capacity, k, filled int) *sumtree.Tree {
	t.Helper()
	tr, err := sumtree.New(capacity, k)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	idx := make([]int, filled)
	p := make([]float64, filled)
	for i := range idx {
		idx[i], p[i] = i, 0.5+rng.Float64()
	}
	if err := tr.SetBatch(idx, p); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestTreeViewShowsTheFilledSubtree: on the buffers of hopper-ddpg-16384
// (2^20 leaves, K = 2) and of the same at K = 16, 25.2k filled leaves sit
// below one node of a deep level. The view starts at the smallest subtree
// holding them: its root holds the whole total, each level shown holds it
// too (nothing outside the subtree), its first level below the root has
// more than one node of mass (not the solid single node of the full-tree
// view). A full buffer keeps the root. (The walk passes through the
// subtree root by construction: the root is taken from the walk.)
func TestTreeViewShowsTheFilledSubtree(t *testing.T) {
	const filled = 25_200
	for _, tc := range []struct {
		name              string
		capacity, k, fill int
		level, node       int
	}{
		// 25,200 leaves fit in 2^15 = 32,768: the subtree of level 20-15.
		{"K2 mostly empty", 1 << 20, 2, filled, 5, 0},
		// 16^4 = 65,536 leaves under each node of level 1.
		{"K16 mostly empty", 1 << 20, 16, filled, 1, 0},
		{"K2 full", 1 << 16, 2, 1 << 16, 0, 0},
		// One leaf: the view keeps its parent, so there is a level of
		// children to draw.
		{"K4 one leaf", 1 << 10, 4, 1, 4, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := filledTree(t, tc.capacity, tc.k, tc.fill)
			v := readTreeView(tr, tc.fill, 0.37)
			if v.RootLevel != tc.level || v.RootNode != tc.node {
				t.Fatalf("subtree root L%d node %d, want L%d node %d", v.RootLevel, v.RootNode, tc.level, tc.node)
			}
			if v.Filled != tc.fill || v.Leaves != tc.capacity {
				t.Errorf("filled %d of %d, want %d of %d", v.Filled, v.Leaves, tc.fill, tc.capacity)
			}
			total := tr.Total()
			if len(v.Levels) == 0 || v.Levels[0][0] != total {
				t.Fatalf("the subtree root does not hold the total %v: %v", total, v.Levels)
			}
			for i, lv := range v.Levels {
				if len(lv) < v.LevelLen[i] {
					continue // cut: its sum is partial
				}
				sum := 0.0
				for _, x := range lv {
					sum += x
				}
				if math.Abs(sum-total) > 1e-9*total {
					t.Errorf("level L%d of the view sums to %v, want the total %v", v.RootLevel+i, sum, total)
				}
				if want := v.RootNode * intPow(tc.k, i); v.LevelFirst[i] != want {
					t.Errorf("level L%d starts at node %d, want %d", v.RootLevel+i, v.LevelFirst[i], want)
				}
			}
			if len(v.Levels) < 2 {
				t.Fatalf("%d levels shown", len(v.Levels))
			}
			positive := 0
			for _, x := range v.Levels[1] {
				if x > 0 {
					positive++
				}
			}
			if positive < 2 && tc.fill > 1 {
				t.Errorf("the level below the subtree root has %d node(s) of mass: a solid block", positive)
			}
		})
	}
}

// TestTreeViewBoundsItsReads: a single leaf deep in a tree of 2^20 leaves
// at K = 2 puts the subtree root on level 19 (2^19 nodes), too long to copy
// at every snapshot. The view reads only the nodes it shows: the root node,
// holding the total, and its children, a few hundred bytes, not the 4 MiB
// of level 19 or the 8 MiB of the leaves.
func TestTreeViewBoundsItsReads(t *testing.T) {
	tr, err := sumtree.New(1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	const leaf = 12345
	if err := tr.Set(leaf, 2); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := readTreeView(tr, 1, 0.5)
	runtime.ReadMemStats(&after)
	if v.Levels[0][0] != 2 || v.RootNode != leaf>>(tr.Height()-1-v.RootLevel) {
		t.Errorf("subtree root L%d node %d value %v, want the ancestor of leaf %d holding 2", v.RootLevel, v.RootNode, v.Levels[0][0], leaf)
	}
	for i, lv := range v.Levels {
		if len(lv) > MaxTreeNodes || len(lv) > v.LevelLen[i] {
			t.Errorf("level L%d: %d values of the %d the subtree has, bound %d", v.RootLevel+i, len(lv), v.LevelLen[i], MaxTreeNodes)
		}
	}
	// The view's own slices take a few KiB; a copy of a level it draws
	// from would take 4 MiB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("reading the view allocated %d bytes: it copied more than it shows", got)
	}
}

func intPow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}
