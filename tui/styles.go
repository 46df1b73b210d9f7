package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles are the explorer's semantic styles for one terminal background.
// They are built by NewStyles, never mutated afterwards, and shared by
// pointer through the context every pane holds.
type Styles struct {
	Dark bool // built for a dark background

	Text   lipgloss.Style
	Muted  lipgloss.Style
	Strong lipgloss.Style
	Accent lipgloss.Style
	Good   lipgloss.Style
	Warn   lipgloss.Style
	Error  lipgloss.Style
	// Loud is for what must not be missed, e.g. returns that mean nothing.
	Loud lipgloss.Style

	App         lipgloss.Style // the "rlx" mark in the header
	Border      lipgloss.Style // a pane's frame
	BorderFocus lipgloss.Style // the focused pane's frame
	PaneTitle   lipgloss.Style
	TitleFocus  lipgloss.Style
	// BorderMark and TitleMark draw a pane the current walkthrough step is
	// about; its title also carries markGlyph, so the mark reads without
	// colour.
	BorderMark lipgloss.Style
	TitleMark  lipgloss.Style
	TabActive  lipgloss.Style
	TabIdle    lipgloss.Style
	Selected   lipgloss.Style // a selected row (mapping list, form field)

	// Sum tree cells: alternating ordinary nodes, the siblings the walk read,
	// the child it took, the priority-update path and the target marker.
	CellEven    lipgloss.Style
	CellOdd     lipgloss.Style
	CellSibling lipgloss.Style
	CellTaken   lipgloss.Style
	CellUpdate  lipgloss.Style
	Target      lipgloss.Style

	// Pipeline occupancy cells.
	Busy lipgloss.Style
	Idle lipgloss.Style

	// Charts: the simulated clock, the host clock and the return.
	SimSeries    lipgloss.Style
	HostSeries   lipgloss.Style
	ReturnSeries lipgloss.Style

	Help help.Styles

	paint paints // the bulk styles as bare escape sequences
}

// paint is a style reduced to the escape sequences around its text. The
// tree rows, occupancy strips, plots and frames are drawn by the run of
// cells, many per frame; wrapping a run in two precomputed strings is far
// cheaper than a lipgloss Render per run.
type paint struct{ pre, post string }

// paintMarker stands for the text when a style's sequences are taken apart.
const paintMarker = "\uE000"

func newPaint(s lipgloss.Style) paint {
	r := s.Render(paintMarker)
	i := strings.Index(r, paintMarker)
	if i < 0 {
		return paint{}
	}
	return paint{pre: r[:i], post: r[i+len(paintMarker):]}
}

// add writes text in the paint's style to b.
func (p paint) add(b *strings.Builder, text string) {
	if text == "" {
		return
	}
	b.WriteString(p.pre)
	b.WriteString(text)
	b.WriteString(p.post)
}

// paints are the precomputed paints of the styles drawn in bulk.
type paints struct {
	muted, warn, border, borderFocus    paint
	cellEven, cellOdd, cellSibling      paint
	cellTaken, cellUpdate               paint
	busy, idle                          paint
	simSeries, hostSeries, returnSeries paint
}

// NewStyles builds the styles for a dark or a light terminal background.
func NewStyles(dark bool) *Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkHex string) lipgloss.Style {
		return lipgloss.NewStyle().Foreground(ld(lipgloss.Color(light), lipgloss.Color(darkHex)))
	}
	s := &Styles{Dark: dark}

	s.Text = c("#1f2328", "#e6e6e6")
	s.Muted = c("#6e7781", "#8b949e")
	s.Strong = s.Text.Bold(true)
	s.Accent = c("#0969da", "#58a6ff")
	s.Good = c("#1a7f37", "#3fb950")
	s.Warn = c("#9a6700", "#d29922")
	s.Error = c("#cf222e", "#f85149")
	s.Loud = lipgloss.NewStyle().Bold(true).
		Foreground(ld(lipgloss.Color("#ffffff"), lipgloss.Color("#1f1f1f"))).
		Background(ld(lipgloss.Color("#bc4c00"), lipgloss.Color("#f0883e")))

	s.App = s.Accent.Bold(true)
	s.Border = c("#afb8c1", "#484f58")
	s.BorderFocus = c("#0969da", "#58a6ff")
	s.PaneTitle = s.Muted.Bold(true)
	s.TitleFocus = s.Accent.Bold(true)
	// The accent, as for the focus: both say "look here". Focus is told
	// apart by its heavy lines, the mark by its glyph.
	s.BorderMark = s.BorderFocus
	s.TitleMark = s.TitleFocus
	s.TabActive = s.Accent.Bold(true).Underline(true)
	s.TabIdle = s.Muted
	s.Selected = lipgloss.NewStyle().
		Foreground(ld(lipgloss.Color("#0b0b0b"), lipgloss.Color("#f0f6fc"))).
		Background(ld(lipgloss.Color("#ddf4ff"), lipgloss.Color("#1f3b5c")))

	s.CellEven = c("#8c959f", "#57606a")
	s.CellOdd = c("#afb8c1", "#3d444d")
	s.CellSibling = c("#0969da", "#388bfd")
	s.CellTaken = c("#bf3989", "#f778ba").Bold(true)
	s.CellUpdate = c("#1a7f37", "#56d364").Bold(true)
	s.Target = c("#bf3989", "#f778ba").Bold(true)

	s.Busy = c("#1a7f37", "#3fb950")
	s.Idle = c("#d0d7de", "#30363d")

	s.SimSeries = c("#0969da", "#58a6ff")
	s.HostSeries = c("#8250df", "#bc8cff")
	s.ReturnSeries = c("#1a7f37", "#3fb950")

	s.Help = help.DefaultStyles(dark)
	s.paint = paints{
		muted: newPaint(s.Muted), warn: newPaint(s.Warn), border: newPaint(s.Border), borderFocus: newPaint(s.BorderFocus),
		cellEven: newPaint(s.CellEven), cellOdd: newPaint(s.CellOdd), cellSibling: newPaint(s.CellSibling),
		cellTaken: newPaint(s.CellTaken), cellUpdate: newPaint(s.CellUpdate),
		busy: newPaint(s.Busy), idle: newPaint(s.Idle),
		simSeries: newPaint(s.SimSeries), hostSeries: newPaint(s.HostSeries), returnSeries: newPaint(s.ReturnSeries),
	}
	return s
}
