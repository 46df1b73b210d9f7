package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// presetPicker is the overlay / opens: every preset the rlx command
// passed (WithPresets), runs, walkthroughs and experiments alike, filtered
// as the user types, one line each. enter starts the one under the
// cursor without leaving the explorer; esc closes it.
type presetPicker struct {
	c       *common
	all     []engine.Preset
	shown   []int // indices into all that match the filter, in all's order
	cursor  int   // index into shown
	offset  int   // first shown row drawn
	filter  textinput.Model
	current string // the preset running, marked in the list
	keys    presetPickerKeys
}

// presetPickerKeys are the picker's own keys, which the footer lists
// while it is open: it takes every other key, so that q and the letters
// type into the filter.
type presetPickerKeys struct {
	Up, Down, Start, Close, Quit key.Binding
}

func newPresetPickerKeys() presetPickerKeys {
	return presetPickerKeys{
		Up:    key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "previous")),
		Down:  key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "next")),
		Start: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "start")),
		Close: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
		Quit:  key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// HelpKeys returns the picker's keys, for the footer.
func (p *presetPicker) HelpKeys() []key.Binding {
	k := &p.keys
	return []key.Binding{k.Up, k.Down, k.Start, k.Close, k.Quit}
}

func newPresetPicker(c *common, presets []engine.Preset, current string) *presetPicker {
	in := textinput.New()
	in.Prompt = "filter: "
	in.Placeholder = "type to filter by name, kind or summary"
	in.CharLimit = 40
	in.Focus()
	st := c.Styles
	in.SetStyles(textinput.Styles{
		Focused: textinput.StyleState{Text: st.Strong, Prompt: st.Muted, Placeholder: st.Muted},
		Blurred: textinput.StyleState{Text: st.Text, Prompt: st.Muted, Placeholder: st.Muted},
	})
	p := &presetPicker{c: c, all: presets, filter: in, current: current, keys: newPresetPickerKeys()}
	p.refilter()
	for i, j := range p.shown {
		if presets[j].Name == current {
			p.cursor = i
		}
	}
	return p
}

// refilter keeps the presets whose name, kind or summary holds every word
// of the filter, case folded.
func (p *presetPicker) refilter() {
	words := strings.Fields(strings.ToLower(p.filter.Value()))
	p.shown = p.shown[:0]
	for i, pr := range p.all {
		hay := strings.ToLower(pr.Name + " " + pr.Kind + " " + pr.Summary)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			p.shown = append(p.shown, i)
		}
	}
	p.cursor = min(p.cursor, max(len(p.shown)-1, 0))
}

// Selected returns the preset under the cursor; false when none matches.
func (p *presetPicker) Selected() (engine.Preset, bool) {
	if len(p.shown) == 0 {
		return engine.Preset{}, false
	}
	return p.all[p.shown[p.cursor]], true
}

// pickerResult is what a key did in the picker.
type pickerResult int

const (
	pickerOpen   pickerResult = iota // still open
	pickerClosed                     // closed without a choice
	pickerChosen                     // closed with the preset under the cursor
)

// Update handles a key: moves, filters, starts or closes. The root
// quits on the Quit key before.
func (p *presetPicker) Update(msg tea.KeyPressMsg) pickerResult {
	switch {
	case key.Matches(msg, p.keys.Close):
		return pickerClosed
	case key.Matches(msg, p.keys.Start):
		if _, ok := p.Selected(); ok {
			return pickerChosen
		}
		return pickerOpen
	case key.Matches(msg, p.keys.Up):
		p.Move(-1)
		return pickerOpen
	case key.Matches(msg, p.keys.Down):
		p.Move(1)
		return pickerOpen
	}
	before := p.filter.Value()
	p.filter, _ = p.filter.Update(msg)
	if p.filter.Value() != before {
		p.cursor = 0
		p.refilter()
	}
	return pickerOpen
}

// Move moves the cursor d rows, kept in the list.
func (p *presetPicker) Move(d int) {
	p.cursor = min(max(p.cursor+d, 0), max(len(p.shown)-1, 0))
}

// ClickRow selects the preset drawn at inner line y of the overlay; a
// line that shows none does nothing.
func (p *presetPicker) ClickRow(y int) {
	if i := y - pickerHeadRows + p.offset; y >= pickerHeadRows && i < len(p.shown) {
		p.cursor = i
	}
}

// pickerHeadRows are the lines above the list: the filter and the count.
const pickerHeadRows = 2

// View renders the overlay's inside, w x h cells.
func (p *presetPicker) View(w, h int) string {
	st := p.c.Styles
	// A width of 0 makes textinput cut its placeholder to the first
	// letter ("filter: t"): give it the line.
	p.filter.SetWidth(max(w-len(p.filter.Prompt)-1, 1))
	lines := []string{
		p.filter.View(),
		st.Muted.Render(fmt.Sprintf("%d of %d presets", len(p.shown), len(p.all))),
	}
	rows := max(h-pickerHeadRows-1, 1)
	// Keep the cursor in view.
	p.offset = min(max(p.offset, p.cursor-rows+1), p.cursor)
	nameW, kindW := 0, 0
	for _, i := range p.shown {
		nameW = max(nameW, len(p.all[i].Name))
		kindW = max(kindW, len(p.all[i].Kind))
	}
	if len(p.shown) == 0 {
		lines = append(lines, st.Muted.Render("no preset matches: backspace widens the filter"))
	}
	for r := p.offset; r < min(p.offset+rows, len(p.shown)); r++ {
		pr := p.all[p.shown[r]]
		mark := "  "
		if pr.Name == p.current {
			mark = "● "
		}
		text := fmt.Sprintf("%-*s  %-*s  %s", nameW, pr.Name, kindW, pr.Kind, engine.Printable(pr.Summary, false))
		if r == p.cursor {
			lines = append(lines, st.Selected.Render(fit("▸ "+mark+text, w)))
		} else {
			lines = append(lines, st.Text.Render(fit("  "+mark+text, w)))
		}
	}
	if p.offset+rows < len(p.shown) {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("↓ %d more", len(p.shown)-p.offset-rows)))
	}
	if pr, ok := p.Selected(); ok && pr.Description != "" && len(lines) < h {
		lines = append(lines, "")
		// One paragraph: the description's line breaks are the YAML's.
		desc := engine.Printable(strings.Join(strings.Fields(pr.Description), " "), false)
		for _, l := range wrapText(desc, w) {
			if len(lines) >= h {
				break
			}
			lines = append(lines, st.Muted.Render(l))
		}
	}
	return strings.Join(lines, "\n")
}
