package engine

import "github.com/rlxdev/rlx/core/sumtree"

// readTreeView builds the view of t the sum-tree pane draws: a prefix-sum
// walk for the target u01·Total (u01 in [0, 1)), the priority-update path of
// the leaf it finds, and the top levels of the smallest subtree holding
// every leaf of positive priority. filled is how many leaves hold a
// transition. The caller holds t's read lock, so it reads only the nodes
// shown (sumtree.Tree.LevelRange): at most MaxTreeNodes per level, however
// long the level (the leaves of 2^26, or level 3 at K = 1024).
func readTreeView(t *sumtree.Tree, filled int, u01 float64) TreeView {
	v := TreeView{Fanout: t.Fanout(), Height: t.Height(), Leaves: t.Cap(), Filled: filled, Walk: Walk{Leaf: -1}}
	if t.Total() > 0 {
		p := t.Trace(u01 * t.Total())
		v.Walk = Walk{U: p.U, Total: p.Total, Leaf: p.Leaf}
		for _, st := range p.Steps {
			v.Walk.Steps = append(v.Walk.Steps, WalkStep(st))
		}
		if p.Leaf >= 0 {
			v.UpdateLeaf = p.Leaf
			v.Update = t.Ancestors(nil, p.Leaf)
		}
		v.RootLevel, v.RootNode = massRoot(p.Steps)
	}

	first, span := v.RootNode, 1 // the subtree's first node and its node count on a level
	for lv := v.RootLevel; lv < t.Height() && lv-v.RootLevel < MaxTreeLevels; lv++ {
		n := min(span, t.LevelLen(lv)-first)
		v.Levels = append(v.Levels, t.LevelRange(nil, lv, first, min(n, MaxTreeNodes)))
		v.LevelLen = append(v.LevelLen, n)
		v.LevelFirst = append(v.LevelFirst, first)
		first *= t.Fanout()
		span *= t.Fanout()
	}
	return v
}

// massRoot returns the level and node of the root of the smallest subtree
// that holds every leaf of positive priority, read off a walk: every walk
// passes through that root, and above it each node visited has exactly one
// child of positive value. When even the last internal node has only one
// (a single leaf holds all the mass), it is that node, so that the view
// keeps a level of children to draw.
func massRoot(steps []sumtree.Step) (level, node int) {
	for _, st := range steps {
		positive := 0
		for _, c := range st.Children {
			if c > 0 {
				positive++
			}
		}
		if positive > 1 {
			return st.Level, st.Node
		}
	}
	if n := len(steps); n > 0 {
		return steps[n-1].Level, steps[n-1].Node
	}
	return 0, 0
}
