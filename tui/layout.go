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
)

// layout is where everything goes for one terminal size. It is recomputed on
// every WindowSizeMsg and whenever the focus or the zoom changes.
//
// Wide: the header, then a main column (sum tree, pipeline, charts) and a
// side column (config above mapping), then the footer. Compact (below
// wideMinWidth x wideMinHeight) and zoomed: a tab bar and the focused pane
// over the whole body. A walkthrough narrative pane (issue 9) will take a
// strip of the side column.
type layout struct {
	compact bool // tabs and one pane
	header  rect
	tabs    rect
	tabHits [numPanes]rect
	panes   [numPanes]rect
	footer  rect
}

// computeLayout lays out a w x h screen whose header takes headerH lines.
func computeLayout(w, h, headerH int, focus paneID, zoomed bool) layout {
	var l layout
	l.header = rect{0, 0, w, headerH}
	l.footer = rect{0, h - 1, w, 1}
	top := headerH
	bodyH := h - headerH - 1
	if bodyH <= 0 {
		return l
	}
	l.compact = w < wideMinWidth || h < wideMinHeight
	if l.compact || zoomed {
		l.tabs = rect{0, top, w, 1}
		x := 0
		for p := range numPanes {
			n := len([]rune(paneShort[p])) + 2
			l.tabHits[p] = rect{x, top, n, 1}
			x += n + 1
		}
		l.panes[focus] = rect{0, top + 1, w, bodyH - 1}
		return l
	}

	sideW := min(max(w*30/100, 40), 60)
	mainW := w - sideW
	configH := min(max(bodyH*45/100, 12), 20)
	l.panes[paneConfig] = rect{mainW, top, sideW, configH}
	l.panes[paneMapping] = rect{mainW, top + configH, sideW, bodyH - configH}

	if mainW >= splitMinMainW {
		rowH := bodyH * 45 / 100
		half := mainW / 2
		l.panes[paneTree] = rect{0, top, half, rowH}
		l.panes[panePipeline] = rect{half, top, mainW - half, rowH}
		l.panes[paneCharts] = rect{0, top + rowH, mainW, bodyH - rowH}
		return l
	}
	treeH := bodyH * 35 / 100
	pipeH := bodyH * 30 / 100
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
