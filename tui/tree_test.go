package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

// sparseTree is the TreeView the engine publishes for hopper-ddpg-16384 a
// little after the start: 2^20 leaves at K = 2 (height 21), the first
// 25,200 filled with priority 0.8, so that the smallest subtree holding
// them is node 0 of level 5 (2^15 leaves). Its levels 5-8 are drawn; the
// walk, for a target u, goes down all 20 internal levels.
func sparseTree(u float64) engine.TreeView {
	const (
		k, height, filled, prio = 2, 21, 25_200, 0.8
		root                    = 5
	)
	leaves := 1 << (height - 1)
	// node returns the value of node j of level d: its filled leaves.
	node := func(d, j int) float64 {
		span := leaves >> d
		lo, hi := j*span, (j+1)*span
		return prio * float64(max(0, min(hi, filled)-lo))
	}
	t := engine.TreeView{Fanout: k, Height: height, Leaves: leaves, Filled: filled, RootLevel: root}
	for i := range engine.MaxTreeLevels {
		n := 1 << i
		vals := make([]float64, n)
		for j := range vals {
			vals[j] = node(root+i, j)
		}
		t.Levels = append(t.Levels, vals)
		t.LevelLen = append(t.LevelLen, n)
		t.LevelFirst = append(t.LevelFirst, 0)
	}
	total := node(0, 0)
	t.Walk = engine.Walk{U: u, Total: total}
	j, target := 0, u
	for d := range height - 1 {
		children := []float64{node(d+1, 2*j), node(d+1, 2*j+1)}
		child, partial := 0, 0.0
		if target >= children[0] {
			child, partial = 1, children[0]
		}
		t.Walk.Steps = append(t.Walk.Steps, engine.WalkStep{Level: d, Node: j, Target: target,
			Children: children, Partial: partial, Child: child})
		target -= partial
		j = 2*j + child
	}
	t.Walk.Leaf = j
	t.UpdateLeaf = j
	for i, d := j, height-1; d >= 0; i, d = i/2, d-1 {
		t.Update = append(t.Update, i)
	}
	return t
}

// treeSnapshot is a scripted Hopper snapshot carrying tree.
func treeSnapshot(tree engine.TreeView) *engine.Snapshot {
	cfg := hopperConfig()
	cfg.Fanout = 2
	s := snapshotFor(cfg, 1)
	s.Tree = tree
	return s
}

// newTree returns a tree pane of size w x h showing s, frozen (paused) or
// animated.
func newTree(s *engine.Snapshot, w, h int, frozen bool) *treePane {
	p := newTreePane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	p.SetSize(w, h)
	p.SetSnapshot(s)
	p.SetFrozen(frozen)
	return p
}

// levelRow matches a level row: its label and its cells.
var levelRow = regexp.MustCompile(`^L(\d+)\s+([░▒▓█▲]+)`)

// TestTreeSparseShowsTheFilledSubtree: on a buffer of 25.2k filled leaves
// of 1.05M the pane says it shows the subtree holding them, names its rows
// by their tree levels (L5 … L8), draws them with more than one node each
// below the root (the filled part, not a solid block walked at child 0),
// and starts the walk where it enters that subtree.
func TestTreeSparseShowsTheFilledSubtree(t *testing.T) {
	p := newTree(treeSnapshot(sparseTree(12_345)), 100, 30, true)
	out := ansi.Strip(p.View())
	if !strings.Contains(out, "showing the subtree holding the 25.2k filled leaves of 1.05M") {
		t.Errorf("the pane does not say it shows the filled subtree:\n%s", out)
	}
	var levels []string
	for l := range strings.SplitSeq(out, "\n") {
		m := levelRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		levels = append(levels, m[1])
		cells := []rune(m[2])
		if m[1] == "5" {
			continue // the subtree's root: one node
		}
		// More than one node: the row changes glyph along it.
		runs := 1
		for i := 1; i < len(cells); i++ {
			if cells[i] != cells[i-1] {
				runs++
			}
		}
		if runs < 2 {
			t.Errorf("row L%s is a solid block: %q", m[1], string(cells))
		}
	}
	if got := strings.Join(levels, ","); got != "5,6,7,8" {
		t.Errorf("rows name levels %s, want 5,6,7,8:\n%s", got, out)
	}
	if p.Step() != 5 {
		t.Errorf("the walk starts at step %d, want 5 (where it enters the subtree at L5)", p.Step())
	}
	if !strings.Contains(out, "step 1 of 15: L5 node 0") {
		t.Errorf("the walk line does not count from the subtree's root:\n%s", out)
	}
	press := func(k string) { p.Update(keyMsg(k)) }
	press("left")
	if p.Step() != 5 {
		t.Errorf("← stepped above the subtree, to step %d", p.Step())
	}
}

// TestTreeFullKeepsTheWholeTree: when the filled leaves span the root's
// children (a full buffer) the rows are the tree's top levels from L0 and
// no subtree is announced.
func TestTreeFullKeepsTheWholeTree(t *testing.T) {
	s := snapshotFor(hopperConfig(), 1)
	p := newTree(s, 100, 30, true)
	out := ansi.Strip(p.View())
	if strings.Contains(out, "subtree") {
		t.Errorf("a full tree is shown as a subtree:\n%s", out)
	}
	if m := levelRow.FindStringSubmatch(strings.Split(out, "\n")[1]); m == nil || m[1] != "0" {
		t.Errorf("the first row is not L0:\n%s", out)
	}
}

// TestTreeWalkLineAgreesWithTheRows: at every step the walk line names the
// level of the node visited and of its children as the rows and the lens
// label them: "L2 node 11 → child at L3" beside "↳L3", not a 0-based
// level against a 1-based count.
func TestTreeWalkLineAgreesWithTheRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *engine.Snapshot
	}{
		{"full", snapshotFor(hopperConfig(), 1)},
		{"sparse", treeSnapshot(sparseTree(20_000))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newTree(tc.s, 110, 40, true)
			steps := tc.s.Tree.Walk.Steps
			for range len(steps) {
				ws := steps[p.Step()]
				out := ansi.Strip(p.View())
				want := fmt.Sprintf("L%d node %d → child at L%d", ws.Level, ws.Node, ws.Level+1)
				if !strings.Contains(out, want) {
					t.Fatalf("step %d: the walk line does not read %q:\n%s", p.Step(), want, out)
				}
				if lens := fmt.Sprintf("↳L%d ", ws.Level+1); !strings.Contains(out, lens) {
					t.Fatalf("step %d: the lens is not labelled %q:\n%s", p.Step(), lens, out)
				}
				p.Update(keyMsg("right"))
			}
		})
	}
}
