package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws the whole screen: header, panes (or one pane with tabs, or the
// full help), footer. It also sets the alternate screen, the mouse mode and
// the window title. Panes cache what they render, so a View without a new
// snapshot costs little more than joining strings.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = m.title()
	return v
}

// title is the terminal window title.
func (m *Model) title() string {
	t := "rlx · " + m.cfg.Env + " " + string(m.cfg.Algo)
	if m.wt != nil {
		t += " · " + m.wt.label()
	}
	if m.snap != nil && m.run != nil {
		t += " · " + m.snap.State.String()
	}
	return t
}

func (m *Model) render() string {
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		// The first frame comes before the first WindowSizeMsg.
		return ""
	}
	if w < MinWidth || h < MinHeight {
		return m.tooSmall()
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header()...)
	if !m.lay.tabs.empty() {
		lines = append(lines, m.tabBar())
	}
	bodyTop := len(lines)
	bodyH := h - bodyTop - 1
	if m.helpOpen {
		lines = append(lines, m.fullHelp(w, bodyH)...)
	} else {
		lines = append(lines, m.body(bodyTop, bodyH)...)
	}
	lines = append(lines, m.footer())
	return strings.Join(lines, "\n")
}

// tooSmall says which size the explorer needs.
func (m *Model) tooSmall() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	msg := []string{
		st.Strong.Render(fmt.Sprintf("rlx needs a terminal of at least %dx%d", MinWidth, MinHeight)),
		st.Text.Render(fmt.Sprintf("this one is %dx%d: enlarge the window", w, h)),
		st.Muted.Render("q quits"),
	}
	out := make([]string, h)
	top := max((h-len(msg))/2, 0)
	for i := range out {
		if j := i - top; j >= 0 && j < len(msg) {
			out[i] = center(msg[j], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return strings.Join(out, "\n")
}

// body renders the panes' frames into bodyH lines starting at row top.
func (m *Model) body(top, bodyH int) []string {
	rows := make([]strings.Builder, bodyH)
	order := make([]paneID, 0, numPanes)
	for p := range numPanes {
		if !m.lay.panes[p].empty() {
			order = append(order, p)
		}
	}
	// Left to right, so that each row is appended in screen order.
	slices.SortStableFunc(order, func(a, b paneID) int { return m.lay.panes[a].X - m.lay.panes[b].X })
	for _, p := range order {
		r := m.lay.panes[p]
		lines := strings.Split(m.framedPane(p, r), "\n")
		for i, line := range lines {
			if y := r.Y - top + i; y >= 0 && y < bodyH {
				rows[y].WriteString(line)
			}
		}
	}
	out := make([]string, bodyH)
	for i := range rows {
		out[i] = rows[i].String()
		if out[i] == "" {
			out[i] = strings.Repeat(" ", m.com.Width)
		}
	}
	return out
}

// framedPane renders pane p in its frame of r.W x r.H cells.
func (m *Model) framedPane(p paneID, r rect) string {
	var content, note string
	switch p {
	case paneTree:
		content, note = m.tree.View(), m.tree.Note()
	case panePipeline:
		content = m.pipe.View()
		note = m.pipe.Note()
	case paneCharts:
		content, note = m.charts.View(), "sim + host clocks"
	case paneMapping:
		content, note = m.mapping.View(), "DSE, 000 §VI"
	case paneConfig:
		content, note = m.form.View(), "next run"
		if m.form.Dirty() {
			note = "edited: enter applies"
		}
	case paneNarrative:
		content, note = m.narr.View(), m.narr.Note()
	}
	k := frameKey{content: content, note: note, w: r.W, h: r.H, focused: p == m.focus, marked: m.marked[p], styles: m.com.Styles}
	return m.frames[p].get(k, func() string {
		return frame(k.styles, p.String(), k.note, k.content, k.w, k.h, k.focused, k.marked)
	})
}

// footer is the status line and the short help for what has the focus.
func (m *Model) footer() string {
	st := m.com.Styles
	w := m.com.Width
	status := ""
	if m.status != "" {
		if m.bad {
			status = st.Error.Render(m.status)
		} else {
			status = st.Accent.Render(m.status)
		}
		status = ansi.Truncate(status, max(w/2, 20), "…") + st.Muted.Render("  │  ")
	}
	m.help.SetWidth(max(w-cellWidth(status), 0))
	return fit(status+m.help.ShortHelpView(m.com.Keys.ShortHelp()), w)
}

// fullHelp renders every binding that applies now, in a frame over the body.
func (m *Model) fullHelp(w, h int) []string {
	st := m.com.Styles
	content := m.help.FullHelpView(m.com.Keys.FullHelp()) + "\n\n" +
		st.Muted.Render("Panes: sum tree (prefix-sum walk, update path) · pipeline occupancy (sim clock) · "+
			"throughput & learning (sim and host clocks) · mapping (DSE) · config (next run).") + "\n"
	if m.wt != nil {
		for _, l := range wrapText("Walkthrough: the narrative tells the step, what to look at and why; "+markGlyph+
			" marks the panes it is about. n and p move to the next and the previous step: a step that changes "+
			"only the mapping switches the live run's mapping, any other restarts the run with the step's configuration.", w-2) {
			content += st.Muted.Render(l) + "\n"
		}
	}
	content += st.Muted.Render("? or esc closes this help.")
	return strings.Split(frame(st, "Help", "", content, w, h, true, false), "\n")
}
