package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// treePane draws the sum tree: its top levels as rows of cells whose widths
// are proportional to the nodes' priorities, the latest prefix-sum walk
// revealed level by level, and the latest priority-update path.
//
// While the run is live the walk animates: each tick reveals one more level,
// the finished walk is held for a moment, then the latest walk from the
// newest snapshot is taken. When the run is paused or over the walk freezes
// and ←/→ step through its levels.
type treePane struct {
	c    *common
	w, h int

	latest *engine.Snapshot // newest snapshot seen
	shown  *engine.Snapshot // the snapshot whose walk is on screen
	entry  int              // walkEntry of shown's tree, where its walk enters the rows drawn
	step   int              // index into shown.Tree.Walk.Steps being explained
	hold   int              // ticks left to show the finished walk
	frozen bool

	view viewCache[treeKey]
}

// treeKey is everything the rendered pane depends on.
type treeKey struct {
	latest, shown uint64
	step, w, h    int
	dark          bool
	frozen        bool
}

// holdTicks is how many ticks a finished walk stays before the next one.
const holdTicks = 8

func newTreePane(c *common) *treePane { return &treePane{c: c} }

// SetSize sets the inner size of the pane.
func (p *treePane) SetSize(w, h int) { p.w, p.h = w, h }

// SetSnapshot hands the pane the newest snapshot. A frozen pane takes its
// walk at once (the run is paused: this is the walk to step through).
func (p *treePane) SetSnapshot(s *engine.Snapshot) {
	p.latest = s
	if p.shown == nil || p.frozen {
		p.latch()
	}
}

// SetFrozen freezes (paused or finished run) or thaws the walk animation.
func (p *treePane) SetFrozen(f bool) {
	if f && !p.frozen {
		p.frozen = true
		p.latch()
		return
	}
	p.frozen = f
}

// latch shows the walk of the latest snapshot from its root.
func (p *treePane) latch() {
	if p.latest == nil || (p.shown != nil && p.shown.Seq == p.latest.Seq) {
		return
	}
	p.shown = p.latest
	p.entry = walkEntry(&p.shown.Tree)
	p.step = p.entry
	p.hold = holdTicks
}

// walkEntry is the index of the walk's first step inside the subtree the
// view draws (TreeView.RootLevel): the steps above it go through single
// nodes that hold all the mass and are not drawn.
func walkEntry(t *engine.TreeView) int {
	for i, ws := range t.Walk.Steps {
		if ws.Level >= t.RootLevel {
			return i
		}
	}
	return 0
}

// Tick advances the animation by one frame (live runs only). It reports
// whether anything on screen changed.
func (p *treePane) Tick() bool {
	if p.frozen || p.shown == nil {
		p.latch()
		return p.shown != nil
	}
	n := len(p.shown.Tree.Walk.Steps)
	switch {
	case p.step < n-1:
		p.step++
		return true
	case p.hold > 0:
		p.hold--
		return false
	default:
		before := p.shown
		p.latch()
		return p.shown != before
	}
}

// Update handles the pane's keys: stepping a frozen walk.
func (p *treePane) Update(msg tea.KeyPressMsg) tea.Cmd {
	if p.shown == nil {
		return nil
	}
	n := len(p.shown.Tree.Walk.Steps)
	switch {
	case key.Matches(msg, p.c.Keys.WalkPrev):
		p.step = max(p.step-1, p.entry)
	case key.Matches(msg, p.c.Keys.WalkNext):
		p.step = min(p.step+1, max(n-1, 0))
	}
	return nil
}

// Step returns the index of the walk step being explained, which visits
// level Step() of the tree (for tests and the help).
func (p *treePane) Step() int { return p.step }
