package tui

// rect is a rectangle of terminal cells; the zero rect is not shown.
type rect struct{ X, Y, W, H int }

func (r rect) contains(x, y int) bool {
	return x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

func (r rect) empty() bool { return r.W <= 0 || r.H <= 0 }

// Sizes at which the layout changes.
const (
	wideMinWidth  = 120 // all panes at once from here ...
	wideMinHeight = 32  // ... and here; below, one pane at a time with tabs
	splitMinMainW = 130 // the tree and the pipeline side by side from here
	// stackMinBodyH is the body height from which a walkthrough's side
	// column holds the narrative, the config and the mapping one above the
	// other; below it the narrative and the config share a slot.
	stackMinBodyH = 50
)

// layoutInput is what the layout depends on besides the terminal size.
type layoutInput struct {
	headerH   int
	focus     paneID
	zoomed    bool
	order     []paneID       // the panes in focus order: the tab bar's order
	marked    [numPanes]bool // panes the walkthrough step is about (their tabs carry markGlyph)
	narrative bool           // walkthrough mode: the narrative pane is shown
}

// layout is where everything goes for one terminal size. It is recomputed on
// every WindowSizeMsg and whenever the focus, the zoom or the walkthrough
// step changes.
//
// Wide: the header, then a main column (sum tree, pipeline, charts) and a
// side column (config above mapping), then the footer. Compact (below
// wideMinWidth x wideMinHeight) and zoomed: a tab bar and the focused pane
// over the whole body.
//
// A walkthrough adds the narrative pane. Compact, it is one more tab (the
// first). Wide, it takes the top of the side column, and how the config
// makes room depends on the height:
//
//   - Below stackMinBodyH rows of body (120x40 has 37) the narrative takes
//     the config's slot, made a little taller, and the config comes back
//     into that slot whenever it has the focus (shift+tab from the
//     narrative, tab back). Shrinking the config instead would leave three
//     panes of 10-12 rows in a 37-row column: the narrative's text, the
//     form (a dozen rows) and the mapping list would all scroll, and the
//     mapping pane, which most steps are about, would lose its list. The
//     header and the narrative already say what each step sets, so the form
//     is the pane to give up while reading.
//   - From stackMinBodyH up (200x60 has 57) there is room for all three:
//     the narrative on top, the config shrunk to its rows (every
//     off-policy row still fits), the mapping below with the rest.
type layout struct {
	compact bool // tabs and one pane
	shared  bool // the narrative and the config share the side column's top slot
	header  rect
	tabs    rect
	tabHits [numPanes]rect
	panes   [numPanes]rect
	footer  rect
}

// tabLabel is the tab bar's label of pane p, marked when the walkthrough
// step is about it.
func tabLabel(p paneID, marked bool) string {
	if marked {
		return " " + markGlyph + " " + paneShort[p] + " "
	}
	return " " + paneShort[p] + " "
}

// computeLayout lays out a w x h screen.
func computeLayout(w, h int, in layoutInput) layout {
	var l layout
	l.header = rect{0, 0, w, in.headerH}
	l.footer = rect{0, h - 1, w, 1}
	top := in.headerH
	bodyH := h - in.headerH - 1
	if bodyH <= 0 {
		return l
	}
	l.compact = w < wideMinWidth || h < wideMinHeight
	if l.compact || in.zoomed {
		l.tabs = rect{0, top, w, 1}
		x := 0
		for _, p := range in.order {
			n := len([]rune(tabLabel(p, in.marked[p])))
			l.tabHits[p] = rect{x, top, n, 1}
			x += n + 1
		}
		l.panes[in.focus] = rect{0, top + 1, w, bodyH - 1}
		return l
	}

	sideW := min(max(w*30/100, 40), 60)
	mainW := w - sideW
	switch {
	case !in.narrative:
		configH := min(max(bodyH*45/100, 12), 20)
		l.panes[paneConfig] = rect{mainW, top, sideW, configH}
		l.panes[paneMapping] = rect{mainW, top + configH, sideW, bodyH - configH}
	case bodyH < stackMinBodyH:
		l.shared = true
		slotH := min(max(bodyH/2, 12), 22)
		slot := paneNarrative
		if in.focus == paneConfig {
			slot = paneConfig
		}
		l.panes[slot] = rect{mainW, top, sideW, slotH}
		l.panes[paneMapping] = rect{mainW, top + slotH, sideW, bodyH - slotH}
	default:
		narrH := min(max(bodyH*30/100, 12), 18)
		// 14 rows hold every off-policy row of the form; a taller form
		// would take them from the mapping list.
		configH := min(max(bodyH*30/100, 12), 16)
		l.panes[paneNarrative] = rect{mainW, top, sideW, narrH}
		l.panes[paneConfig] = rect{mainW, top + narrH, sideW, configH}
		l.panes[paneMapping] = rect{mainW, top + narrH + configH, sideW, bodyH - narrH - configH}
	}

	// The tree and the pipeline get at most the rows their contents use
	// (the walk and its trace; a platform's rows); every further row of a
	// tall terminal goes to the charts, the pane that gains from height.
	// Each share is a max of non-decreasing terms, so no pane shrinks as
	// the terminal grows.
	if mainW >= splitMinMainW {
		chartsH := max(bodyH*61/100, bodyH-24)
		rowH := bodyH - chartsH
		half := mainW / 2
		l.panes[paneTree] = rect{0, top, half, rowH}
		l.panes[panePipeline] = rect{half, top, mainW - half, rowH}
		l.panes[paneCharts] = rect{0, top + rowH, mainW, chartsH}
		return l
	}
	chartsH := max(bodyH*44/100, bodyH-26)
	treeH := (bodyH - chartsH) * 4 / 7
	pipeH := bodyH - chartsH - treeH
	l.panes[paneTree] = rect{0, top, mainW, treeH}
	l.panes[panePipeline] = rect{0, top + treeH, mainW, pipeH}
	l.panes[paneCharts] = rect{0, top + treeH + pipeH, mainW, bodyH - treeH - pipeH}
	return l
}

// paneAt returns the pane or tab under the cell (x, y).
func (l *layout) paneAt(x, y int) (paneID, bool) {
	if !l.tabs.empty() && l.tabs.contains(x, y) {
		for p := range numPanes {
			if l.tabHits[p].contains(x, y) {
				return p, true
			}
		}
		return 0, false
	}
	for p := range numPanes {
		if l.panes[p].contains(x, y) {
			return p, true
		}
	}
	return 0, false
}
