package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

// narrativePane tells the current step of a walkthrough: which step of how
// many and its title, the paper section it follows, what to look at and
// why, what to look for, what the step changes in the configuration and
// which panes it is about. When the run has been changed by hand since the
// step set it up, it says so, and how.
type narrativePane struct {
	c    *common
	w, h int

	label    string // "step i of n"
	step     engine.Step
	changes  string // what the step changes from the step before, "" for nothing
	panes    string // the panes the step is about, by short name
	departed string // how the run departs from the step, "" when it runs the step
	hint     string // the frame note when nothing scrolls

	offset int // first content line shown
	lines  int // content lines of the last render, for scrolling

	version int // bumps on every change, for the view cache
	view    viewCache[narrativeKey]
}

type narrativeKey struct {
	version, w, h, offset int
	styles                *Styles
}

func newNarrativePane(c *common) *narrativePane { return &narrativePane{c: c} }

// SetSize sets the inner size of the pane.
func (p *narrativePane) SetSize(w, h int) { p.w, p.h = w, h }

// SetStep shows step s, labelled "step i of n", from the top. changes says
// what the step changes in the configuration; panes names the panes it is
// about.
func (p *narrativePane) SetStep(label string, s engine.Step, changes, panes string) {
	p.label, p.step = label, s
	p.changes, p.panes = changes, panes
	p.offset = 0
	p.version++
}

// SetDeparted says how the running configuration departs from the step's
// ("" when it is the step's).
func (p *narrativePane) SetDeparted(d string) {
	if d != p.departed {
		p.departed = d
		p.version++
	}
}

// SetHint sets the frame note shown when the text does not scroll.
func (p *narrativePane) SetHint(h string) { p.hint = h }

// Update scrolls the text.
func (p *narrativePane) Update(msg tea.KeyPressMsg) tea.Cmd {
	p.Scroll(scrollDelta(msg, p.c.Keys.ScrollUp, p.c.Keys.ScrollDown))
	return nil
}

// Scroll moves the text d lines (a key, the mouse wheel), kept so that it
// never scrolls past its end.
func (p *narrativePane) Scroll(d int) { p.offset = scrolled(p.offset, d, p.lines, p.h) }

// View renders the pane's inner w x h cells, cached until the step, the
// departure, the scroll, the size or the styles change.
func (p *narrativePane) View() string {
	k := narrativeKey{version: p.version, w: p.w, h: p.h, offset: p.offset, styles: p.c.Styles}
	return p.view.get(k, p.render)
}

// Note is the frame note: what is hidden above and below, else the hint.
func (p *narrativePane) Note() string {
	var parts []string
	if p.offset > 0 {
		parts = append(parts, fmt.Sprintf("↑ %d", p.offset))
	}
	if below := p.lines - p.offset - p.h; below > 0 && p.h > 0 {
		parts = append(parts, fmt.Sprintf("↓ %d more", below))
	}
	if len(parts) == 0 {
		return p.hint
	}
	return strings.Join(parts, " · ")
}

func (p *narrativePane) render() string {
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	st := p.c.Styles
	var lines []string
	// lead styles the first line's leading words apart from the rest.
	add := func(text, lead string, leadStyle, style lipgloss.Style) {
		for i, l := range wrapText(text, p.w) {
			if i == 0 && lead != "" && strings.HasPrefix(l, lead) {
				lines = append(lines, leadStyle.Render(lead)+style.Render(l[len(lead):]))
				continue
			}
			lines = append(lines, style.Render(l))
		}
	}
	blank := func() {
		if len(lines) > 0 && lines[len(lines)-1] != "" {
			lines = append(lines, "")
		}
	}

	s := p.step
	add(p.label+" · "+s.Title, p.label, st.Accent.Bold(true), st.Strong)
	if s.Section != "" {
		add(s.Section, "", st.Muted, st.Muted)
	}
	if p.departed != "" {
		add("(changed by hand: "+p.departed+")", "", st.Muted, st.Muted)
	}
	blank()
	add(s.Text, "", st.Text, st.Text)
	if s.Expect != "" {
		blank()
		add("Look for: "+s.Expect, "Look for:", st.Strong, st.Text)
	}
	if p.changes != "" || p.panes != "" {
		blank()
	}
	if p.changes != "" {
		add("this step: "+p.changes, "", st.Muted, st.Muted)
	}
	if p.panes != "" {
		add("panes: "+p.panes, "panes:", st.Muted, st.Accent)
	}

	p.lines = len(lines)
	p.offset = min(p.offset, max(len(lines)-p.h, 0))
	return strings.Join(lines[p.offset:min(p.offset+p.h, len(lines))], "\n")
}

// wrapText wraps text to w cells. Paragraphs are separated by blank lines;
// single line breaks inside a paragraph (a YAML block scalar's) are spaces,
// so that the text flows to the pane's width. Words longer than w are cut.
func wrapText(text string, w int) []string {
	var out []string
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		para = strings.Join(strings.Fields(para), " ")
		if para == "" {
			continue
		}
		if i > 0 && len(out) > 0 {
			out = append(out, "")
		}
		for l := range strings.SplitSeq(ansi.Wrap(para, max(w, 1), ""), "\n") {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	return out
}
