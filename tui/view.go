package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
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
	switch {
	case m.pick != nil:
		lines = append(lines, m.pickerOverlay(w, bodyH)...)
	case m.helpOpen:
		lines = append(lines, m.fullHelp(w, bodyH)...)
	default:
		lines = append(lines, m.body(bodyTop, bodyH)...)
	}
	lines = append(lines, m.footer())
	return strings.Join(lines, "\n")
}

// overlayRect is where the help and the preset picker draw: the body,
// under the header and the tab bar, above the footer.
func (m *Model) overlayRect() rect {
	top := m.headerH
	if !m.lay.tabs.empty() {
		top++
	}
	return rect{0, top, m.com.Width, m.com.Height - top - 1}
}

// pickerOverlay draws the preset picker in a frame over the body.
func (m *Model) pickerOverlay(w, h int) []string {
	content := m.pick.View(w-2, h-2)
	return strings.Split(frame(m.com.Styles, "Presets, walkthroughs, experiments", "/ opened it",
		content, w, h, true, false), "\n")
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

// footer is the status line and the short help for what has the focus
// (the preset picker's keys while it is open).
func (m *Model) footer() string {
	st := m.com.Styles
	w := m.com.Width
	status := ""
	var keys []key.Binding
	switch {
	case m.pick != nil:
		status = st.Accent.Render("type to filter") + st.Muted.Render("  │  ")
		keys = m.pick.HelpKeys()
	case !m.hinted && !m.bad:
		// The first screen says how to change the run, until a key.
		status = st.Accent.Render(m.changeHint()) +
			st.Muted.Render("  │  ")
	case m.status != "":
		if m.bad {
			status = st.Error.Render(m.status)
		} else {
			status = st.Accent.Render(m.status)
		}
		status = ansi.Truncate(status, max(w/2, 20), "…") + st.Muted.Render("  │  ")
	}
	if keys == nil {
		keys = m.shortHelp()
	}
	m.help.SetWidth(max(w-cellWidth(status), 0))
	return fit(status+m.help.ShortHelpView(keys), w)
}

// shortHelp is the footer's bindings: the key map's, with the mapping
// pane's own (d, or the devices editor's) after ? and q when it has the
// focus.
func (m *Model) shortHelp() []key.Binding {
	all := m.com.Keys.ShortHelp()
	if m.focus != paneMapping || m.helpOpen {
		return all
	}
	own := m.mapping.HelpKeys()
	out := make([]key.Binding, 0, len(all)+len(own))
	out = append(out, all[:2]...) // ? and q
	out = append(out, own...)
	return append(out, all[2:]...)
}

// fullHelp renders every key of the explorer, grouped by pane, in a frame
// over the body; it scrolls (↑/↓, the wheel) when it does not fit.
func (m *Model) fullHelp(w, h int) []string {
	st := m.com.Styles
	lines := m.helpLines(w - 2)
	panes := "Panes: sum tree (the prefix-sum walk and update path) · pipeline occupancy (sim clock) · " +
		"throughput & learning (sim and host clocks) · mapping (the DSE's choice, 000 §VI) · config (the next run)."
	for _, l := range wrapText(panes, w-2) {
		lines = append(lines, st.Muted.Render(l))
	}
	if m.wt != nil {
		for _, l := range wrapText("Walkthrough: the narrative tells the step, what to look at and why; "+markGlyph+
			" marks the panes it is about. n and p move to the next and the previous step: a step that changes "+
			"only the mapping switches the live run's mapping, any other restarts the run with the step's configuration.", w-2) {
			lines = append(lines, st.Muted.Render(l))
		}
	}
	inner := max(h-2, 1)
	m.helpOffset = min(m.helpOffset, max(len(lines)-inner, 0))
	note := "? or esc closes"
	if len(lines) > inner {
		note = "↑/↓ scroll · " + note
		if m.helpOffset+inner < len(lines) {
			note = "↓ more · " + note
		}
	}
	shown := lines[m.helpOffset:min(m.helpOffset+inner, len(lines))]
	return strings.Split(frame(st, "Help: every key", note, strings.Join(shown, "\n"), w, h, true, false), "\n")
}
