package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// View renders the pane's inner w x h cells, cached until its inputs change.
func (p *treePane) View() string {
	k := treeKey{step: p.step, w: p.w, h: p.h, dark: p.c.Styles.Dark, frozen: p.frozen}
	if p.latest != nil {
		k.latest = p.latest.Seq + 1
	}
	if p.shown != nil {
		k.shown = p.shown.Seq + 1
	}
	return p.view.get(k, p.render)
}

// Cell kinds of a level row, each drawn with its own glyph and style.
const (
	cellNone    = iota // past the nodes a cut level shows
	cellEven           // an ordinary node, alternating by index
	cellOdd            //
	cellSibling        // a child the walk read at this level
	cellSibOdd         //
	cellTaken          // the child the walk took
	cellUpdate         // on the priority-update path
	cellBoth           // taken by the walk and on the update path
	numCellKinds
)

var cellGlyphs = [numCellKinds]string{" ", "░", "▒", "▓", "▒", "█", "▲", "▲"}

func (p *treePane) cellStyles() [numCellKinds]paint {
	pt := &p.c.Styles.paint
	return [numCellKinds]paint{pt.muted, pt.cellEven, pt.cellOdd, pt.cellSibling, pt.cellSibling, pt.cellTaken, pt.cellUpdate, pt.cellTaken}
}

// Note is the frame note: the tree's shape, its levels named as the rows
// name them (L0 the root).
func (p *treePane) Note() string {
	if p.shown == nil || p.shown.Tree.Fanout == 0 || len(p.shown.Tree.Levels) == 0 {
		return "latest walk"
	}
	t := &p.shown.Tree
	return fmt.Sprintf("K=%d · leaves at L%d · Σ %s", t.Fanout, t.Height-1, units.SI(t.Levels[0][0]))
}

// treeLabelW is the width of the row labels ("L2  ", "↳L3 "): the widest
// level number, the arrow, a blank.
func treeLabelW(t *engine.TreeView) int {
	return len("L"+strconv.Itoa(max(t.Height-1, 0))) + 2
}

func (p *treePane) render() string {
	st := p.c.Styles
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	s := p.shown
	if s == nil {
		return st.Muted.Render(waitingText)
	}
	t := &s.Tree
	if t.Fanout == 0 || len(t.Levels) == 0 || len(t.Levels[0]) == 0 {
		if s.Config.Algo.OnPolicy() {
			return st.Muted.Render("No sum tree in a PPO run: it learns from its rollout, without prioritized replay.")
		}
		return st.Muted.Render("No sum-tree traversal yet.")
	}
	// The subtree's root holds the whole total (every leaf of positive
	// priority is below it).
	total := t.Levels[0][0]
	walk := &t.Walk
	step := min(p.step, max(len(walk.Steps)-1, 0))
	labelW := treeLabelW(t)

	// Row labels "L0  " and counts " 16/4096" take fixed widths.
	countW := 0
	for l := range t.Levels {
		countW = max(countW, len(levelCount(t, l))+1)
	}
	cellsW := p.w - labelW - countW
	if cellsW < 8 {
		countW = 0
		cellsW = p.w - labelW
	}

	lines := make([]string, 0, p.h+8)
	if t.RootLevel > 0 {
		lines = append(lines, st.Accent.Render(subtreeLine(t)))
	}
	// The target marker: the walk ends where the prefix sum crosses u, the
	// same column on every level.
	lines = append(lines, markerLine(st, walk.U, total, cellsW, labelW, "u="+units.SI(walk.U)))

	styles := p.cellStyles()
	for l := range t.Levels {
		kinds := p.levelCells(t, l, step, cellsW, total)
		var b strings.Builder
		b.WriteString(st.Muted.Render(fmt.Sprintf("%-*s", labelW, "L"+strconv.Itoa(t.RootLevel+l))))
		renderRuns(&b, kinds, styles)
		if countW > 0 {
			b.WriteString(st.Muted.Render(fmt.Sprintf("%*s", countW, levelCount(t, l))))
		}
		lines = append(lines, b.String())
	}
	lines = append(lines, p.walkLine(t, step))
	if step < len(walk.Steps) {
		lines = append(lines, p.lens(&walk.Steps[step], cellsW, labelW)...)
	}
	lines = append(lines, p.details(t, step)...)
	if len(lines) > p.h {
		lines = lines[:p.h]
	}
	return strings.Join(lines, "\n")
}

// subtreeLine says which part of the tree the rows draw when it is not
// the whole tree: the subtree holding every filled leaf.
func subtreeLine(t *engine.TreeView) string {
	return fmt.Sprintf("showing the subtree holding the %s filled leaves of %s: L%d node %d down",
		units.SI(float64(t.Filled)), units.SI(float64(t.Leaves)), t.RootLevel, t.RootNode)
}

// markerLine puts a ▼ at the column of value v on a row of w cells scaled to
// total, after labelW cells of row labels, with label beside it.
func markerLine(st *Styles, v, total float64, w, labelW int, label string) string {
	if w <= 0 || !units.Finite(v) || !(total > 0) || !units.Finite(total) {
		return ""
	}
	col := min(max(int(v/total*float64(w)), 0), w-1)
	pad := strings.Repeat(" ", labelW+col)
	switch {
	case col+2+len(label) <= w:
		return pad + st.Target.Render("▼ "+label)
	case col >= len(label)+1:
		return strings.Repeat(" ", labelW+col-len(label)-1) + st.Target.Render(label+" ▼")
	}
	return pad + st.Target.Render("▼")
}

// walkLine summarizes the walk and the animation state. Steps are counted
// from one, from where the walk enters the rows drawn; levels are named as
// the rows name them.
func (p *treePane) walkLine(t *engine.TreeView, step int) string {
	st := p.c.Styles
	walk := &t.Walk
	leaf := "no leaf"
	if walk.Leaf >= 0 {
		leaf = "leaf " + strconv.Itoa(walk.Leaf)
	}
	state := "animated"
	if p.frozen {
		state = "frozen, ←/→ steps"
	}
	where := ""
	if step < len(walk.Steps) {
		ws := &walk.Steps[step]
		where = fmt.Sprintf(" · step %d of %d: L%d node %d → child at L%d", step-p.entry+1, len(walk.Steps)-p.entry, ws.Level, ws.Node, ws.Level+1)
	}
	return st.Strong.Render("walk") + st.Text.Render(fmt.Sprintf(" u = %s → %s", units.SI(walk.U), leaf)) +
		st.Muted.Render(where+" · "+state)
}

// lens draws the step's children (the siblings the walk read) across the
// whole width, proportionally: the target marker above, the child taken
// solid, and under it the running partial sum of the children left of it.
func (p *treePane) lens(ws *engine.WalkStep, w, labelW int) []string {
	st := p.c.Styles
	if w <= 0 || len(ws.Children) == 0 {
		return nil
	}
	sum := 0.0
	for _, c := range ws.Children {
		sum += max(c, 0)
	}
	if !(sum > 0) || !units.Finite(sum) {
		return nil
	}
	kinds := make([]uint8, w)
	node, cumEnd := 0, max(ws.Children[0], 0)
	takenLo, takenHi := -1, -1
	for c := range w {
		mid := (float64(c) + 0.5) / float64(w) * sum
		for node < len(ws.Children)-1 && cumEnd <= mid {
			node++
			cumEnd += max(ws.Children[node], 0)
		}
		if node == ws.Child {
			kinds[c] = cellTaken
			if takenLo < 0 {
				takenLo = c
			}
			takenHi = c
		} else {
			kinds[c] = cellSibling + uint8(node&1)
		}
	}
	if takenLo < 0 {
		// Too narrow to get a column of its own: mark where it starts.
		c := min(max(int(ws.Partial/sum*float64(w)), 0), w-1)
		kinds[c] = cellTaken
		takenLo, takenHi = c, c
	}
	var cells strings.Builder
	cells.WriteString(st.Target.Render(fmt.Sprintf("%-*s", labelW, "↳L"+strconv.Itoa(ws.Level+1))))
	renderRuns(&cells, kinds, p.cellStyles())

	// Under the cells: └── partial Σ ──┘ over the children left of the one
	// taken, then the child taken.
	under := strings.Repeat(" ", labelW)
	label := "partial Σ " + units.SI(ws.Partial)
	if takenLo >= len(label)+4 {
		fill := takenLo - len(label) - 4
		left := fill / 2
		under += st.Accent.Render("└" + strings.Repeat("─", left) + " " + label + " " + strings.Repeat("─", fill-left) + "┘")
	} else {
		under += strings.Repeat(" ", takenLo)
	}
	taken := 0.0
	if ws.Child >= 0 && ws.Child < len(ws.Children) {
		taken = ws.Children[ws.Child]
	}
	under += st.CellTaken.Render(fmt.Sprintf("^ child %d (%s)", ws.Child, units.SI(taken)))
	if takenLo < len(label)+4 {
		under += st.Accent.Render(" after " + label)
	}
	_ = takenHi
	return []string{
		markerLine(st, ws.Target, sum, w, labelW, "target "+units.SI(ws.Target)),
		cells.String(),
		under,
	}
}

// levelCount is "shown/true" node count of level l, e.g. "256/4096".
func levelCount(t *engine.TreeView, l int) string {
	n := len(t.Levels[l])
	if l < len(t.LevelLen) && t.LevelLen[l] != n {
		return strconv.Itoa(n) + "/" + strconv.Itoa(t.LevelLen[l])
	}
	return strconv.Itoa(n)
}

// levelCells assigns every column of level l's row to the node whose share
// of the total contains the column's midpoint, and marks the walk (up to
// step) and the update path.
func (p *treePane) levelCells(t *engine.TreeView, l, step, w int, total float64) []uint8 {
	kinds := make([]uint8, w)
	vals := t.Levels[l]
	if w <= 0 {
		return kinds
	}
	if !(total > 0) || !units.Finite(total) {
		return kinds
	}

	// Row l is tree level RootLevel+l from node first on: indices below
	// are the tree's, less first.
	level, first := t.RootLevel+l, 0
	if l < len(t.LevelFirst) {
		first = t.LevelFirst[l]
	}
	// The node the walk visits at level l (revealed levels only), and the
	// range of siblings it read to get there.
	taken, sibLo, sibHi := -1, -1, -1
	walk := &t.Walk
	if l == 0 && p.entry < len(walk.Steps) {
		taken = 0
	}
	if l >= 1 && level-1 <= step && level-1 < len(walk.Steps) {
		ws := walk.Steps[level-1]
		taken = ws.Node*t.Fanout + ws.Child - first
		sibLo, sibHi = ws.Node*t.Fanout-first, ws.Node*t.Fanout+len(ws.Children)-first
	}
	// The update path is stored leaf first, root last.
	update := -1
	if n := len(t.Update); n > 0 && level < n {
		update = t.Update[n-1-level] - first
	}

	node := 0
	cumEnd := 0.0
	if len(vals) > 0 {
		cumEnd = max(vals[0], 0)
	}
	updateFirst := -1
	updateLast := -1
	for c := range w {
		mid := (float64(c) + 0.5) / float64(w) * total
		for node < len(vals) && cumEnd <= mid {
			node++
			if node < len(vals) {
				cumEnd += max(vals[node], 0)
			}
		}
		if node >= len(vals) {
			kinds[c] = cellNone
			continue
		}
		switch {
		case node == taken:
			kinds[c] = cellTaken
		case node >= sibLo && node < sibHi:
			kinds[c] = cellSibling + uint8(node&1)
		default:
			kinds[c] = cellEven + uint8(node&1)
		}
		if node == update {
			if updateFirst < 0 {
				updateFirst = c
			}
			updateLast = c
		}
	}
	// Nodes too small for a column of their own still show where they are.
	takenSeen := taken < 0 || slices.Contains(kinds, cellTaken)
	if !takenSeen && taken < len(vals) {
		kinds[nodeColumn(vals, taken, w, total)] = cellTaken
	}
	if update >= 0 && update < len(vals) {
		if updateFirst < 0 {
			updateFirst = nodeColumn(vals, update, w, total)
			updateLast = updateFirst
		}
		c := (updateFirst + updateLast) / 2
		if kinds[c] == cellTaken {
			kinds[c] = cellBoth
		} else {
			kinds[c] = cellUpdate
		}
	}
	return kinds
}

// nodeColumn is the column of the middle of node i's share of the row.
func nodeColumn(vals []float64, i, w int, total float64) int {
	start := 0.0
	for _, v := range vals[:i] {
		start += max(v, 0)
	}
	mid := start + max(vals[i], 0)/2
	return min(max(int(mid/total*float64(w)), 0), w-1)
}

// renderRuns writes kinds as glyphs, one painted run per stretch of equal
// kinds.
func renderRuns(b *strings.Builder, kinds []uint8, paints [numCellKinds]paint) {
	for i := 0; i < len(kinds); {
		j := i
		for j < len(kinds) && kinds[j] == kinds[i] {
			j++
		}
		paints[kinds[i]].add(b, strings.Repeat(cellGlyphs[kinds[i]], j-i))
		i = j
	}
}

// details explains the step in words (the formula of the choice, the
// children's values) and the priority-update path, most important first.
func (p *treePane) details(t *engine.TreeView, step int) []string {
	st := p.c.Styles
	walk := &t.Walk
	var out []string
	if step < len(walk.Steps) {
		ws := walk.Steps[step]
		taken := 0.0
		if ws.Child >= 0 && ws.Child < len(ws.Children) {
			taken = ws.Children[ws.Child]
		}
		edge := ""
		if ws.Edge {
			edge = st.Warn.Render(" (ran past the last child: rounding)")
		}
		out = append(out, st.Target.Render(fmt.Sprintf("L%d", ws.Level))+st.Text.Render(fmt.Sprintf(
			" node %d: partial Σ %s + child %d (%s) > target %s → next target %s",
			ws.Node, units.SI(ws.Partial), ws.Child, units.SI(taken), units.SI(ws.Target), units.SI(ws.Target-ws.Partial)))+edge)
	}
	if len(t.Update) > 0 {
		parts := make([]string, len(t.Update))
		for i, n := range t.Update {
			parts[i] = strconv.Itoa(n)
		}
		out = append(out, st.CellUpdate.Render("▲ update")+st.Text.Render(fmt.Sprintf(" of leaf %d rewrote nodes %s (leaf to root)",
			t.UpdateLeaf, strings.Join(parts, " → "))))
	}
	if step < len(walk.Steps) {
		ws := walk.Steps[step]
		out = append(out, st.Muted.Render(fmt.Sprintf("children read at L%d:", ws.Level+1)))
		out = append(out, "  "+childrenList(st, ws.Children, ws.Child, p.w-2))
	}
	// The walk so far, one line per level, from where it enters the rows.
	for i := p.entry; i <= step && i < len(walk.Steps); i++ {
		ws := walk.Steps[i]
		out = append(out, st.Muted.Render(fmt.Sprintf("  L%d node %-6d target %-8s partial Σ %-8s → child %d of %d",
			ws.Level, ws.Node, units.SI(ws.Target), units.SI(ws.Partial), ws.Child, len(ws.Children))))
	}
	return out
}

// childrenList formats children values within w cells, the taken one in
// brackets, keeping the taken one in view.
func childrenList(st *Styles, children []float64, taken, w int) string {
	if len(children) == 0 {
		return ""
	}
	items := make([]string, len(children))
	for i, v := range children {
		if i == taken {
			items[i] = "[" + units.SI(v) + "]"
		} else {
			items[i] = units.SI(v)
		}
	}
	// Grow a window around the taken child while it fits.
	lo, hi := max(min(taken, len(items)-1), 0), max(min(taken, len(items)-1), 0)+1
	width := len(items[lo])
	for {
		grew := false
		if hi < len(items) && width+1+len(items[hi])+2 <= w {
			width += 1 + len(items[hi])
			hi++
			grew = true
		}
		if lo > 0 && width+1+len(items[lo-1])+2 <= w {
			width += 1 + len(items[lo-1])
			lo--
			grew = true
		}
		if !grew {
			break
		}
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString(st.Muted.Render("… "))
	}
	for i := lo; i < hi; i++ {
		if i > lo {
			b.WriteByte(' ')
		}
		if i == taken {
			b.WriteString(st.CellTaken.Render(items[i]))
		} else {
			b.WriteString(st.CellSibling.Render(items[i]))
		}
	}
	if hi < len(items) {
		b.WriteString(st.Muted.Render(" …"))
	}
	return b.String()
}
