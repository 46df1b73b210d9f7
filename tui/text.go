package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// fit cuts or pads the single line s to exactly w terminal cells. A cut
// line ends in "…". ANSI styles in s are kept.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := cellWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = cellWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitLines splits s into lines and fits it to exactly w x h cells: long
// lines are cut, short ones padded, missing lines added blank, extra lines
// dropped.
func fitLines(s string, w, h int) []string {
	if h <= 0 {
		return nil
	}
	out := make([]string, 0, h)
	for line := range strings.SplitSeq(s, "\n") {
		if len(out) == h {
			break
		}
		out = append(out, fit(line, w))
	}
	blank := strings.Repeat(" ", max(w, 0))
	for len(out) < h {
		out = append(out, blank)
	}
	return out
}

// center pads s on both sides to w cells (cutting it if wider).
func center(s string, w int) string {
	sw := cellWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	left := (w - sw) / 2
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", w-sw-left)
}

// markGlyph marks what the current walkthrough step is about: a pane's
// title, its tab, the panes named in the narrative.
const markGlyph = "◆"

// frame draws a box of exactly w x h cells around content (fitted to the
// inner w-2 x h-2), with title in the top edge and note at its right. The
// focused frame is drawn with heavy lines so that the focus shows without
// colour too; a marked frame (a pane the walkthrough step is about) has
// markGlyph before its title and the accent colour.
func frame(st *Styles, title, note, content string, w, h int, focused, marked bool) string {
	if w < 4 || h < 2 {
		return strings.Join(fitLines(content, max(w, 0), max(h, 0)), "\n")
	}
	border, titleStyle := st.Border, st.PaneTitle
	tl, tr, bl, br, hz, vt := "╭", "╮", "╰", "╯", "─", "│"
	if marked {
		border, titleStyle = st.BorderMark, st.TitleMark
		title = markGlyph + " " + title
	}
	if focused {
		border, titleStyle = st.BorderFocus, st.TitleFocus
		tl, tr, bl, br, hz, vt = "┏", "┓", "┗", "┛", "━", "┃"
	}
	innerW, innerH := w-2, h-2

	// Top edge: ╭─ Title ──── note ─╮, the title cut first when narrow.
	var top strings.Builder
	top.WriteString(border.Render(tl + hz))
	if note != "" && innerW-1 >= cellWidth(note)+cellWidth(title)+6 {
		t := " " + title + " "
		n := " " + note + " "
		fill := innerW - 1 - cellWidth(t) - cellWidth(n) - 1
		top.WriteString(titleStyle.Render(t))
		top.WriteString(border.Render(strings.Repeat(hz, fill)))
		top.WriteString(st.Muted.Render(n))
		top.WriteString(border.Render(hz + tr))
	} else {
		t := ""
		if innerW-1 >= 3 {
			t = fit(" "+title+" ", min(cellWidth(title)+2, innerW-1))
			top.WriteString(titleStyle.Render(t))
		}
		top.WriteString(border.Render(strings.Repeat(hz, max(innerW-1-cellWidth(t), 0)) + tr))
	}

	var b strings.Builder
	b.Grow((w + 8) * h)
	b.WriteString(top.String())
	side := border.Render(vt)
	for _, line := range fitLines(content, innerW, innerH) {
		b.WriteByte('\n')
		b.WriteString(side)
		b.WriteString(line)
		b.WriteString(side)
	}
	b.WriteByte('\n')
	b.WriteString(border.Render(bl + strings.Repeat(hz, innerW) + br))
	return b.String()
}

// joinColumns places blocks of lines side by side; every block must already
// have the same number of lines, each of its own fixed width.
func joinColumns(blocks ...[]string) []string {
	if len(blocks) == 0 {
		return nil
	}
	n := len(blocks[0])
	out := make([]string, n)
	for i := range n {
		var b strings.Builder
		for _, blk := range blocks {
			if i < len(blk) {
				b.WriteString(blk[i])
			}
		}
		out[i] = b.String()
	}
	return out
}

// waitingText fills a pane that draws from snapshots until the first one
// arrives.
const waitingText = "waiting for the first snapshot…"
