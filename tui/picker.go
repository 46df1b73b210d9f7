package tui

import (
	"fmt"
	"io"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
)

// picker is the list a choice field of the config form opens: a bubbles
// list without title, status bar, filter or help, one line per option.
type picker struct {
	c     *common
	title string
	list  list.Model
}

// pickerItem is one option.
type pickerItem string

// FilterValue implements list.Item.
func (i pickerItem) FilterValue() string { return string(i) }

// pickerDelegate draws an option on one line, the selected one marked.
type pickerDelegate struct{ c *common }

// Height is one line per option.
func (d pickerDelegate) Height() int { return 1 }

// Spacing is none between options.
func (d pickerDelegate) Spacing() int { return 0 }

// Update does nothing: options have no state.
func (d pickerDelegate) Update(_ tea.Msg, _ *list.Model) tea.Cmd { return nil }

// Render draws one option, the one under the cursor marked.
func (d pickerDelegate) Render(w io.Writer, m list.Model, index int, item list.Item) {
	st := d.c.Styles
	name := string(item.(pickerItem))
	if index == m.Index() {
		fmt.Fprint(w, st.Selected.Render("▸ "+name))
		return
	}
	fmt.Fprint(w, st.Text.Render("  "+name))
}

func newPicker(c *common, title string, options []string, selected, w, h int) *picker {
	items := make([]list.Item, len(options))
	for i, o := range options {
		items[i] = pickerItem(o)
	}
	l := list.New(items, pickerDelegate{c}, max(w, 1), max(h, 1))
	l.SetShowTitle(false)
	l.SetShowStatusBar(false)
	l.SetShowHelp(false)
	l.SetFilteringEnabled(false)
	l.DisableQuitKeybindings()
	l.Select(selected)
	return &picker{c: c, title: title, list: l}
}

// SetSize sets the list's size (the title line is extra).
func (p *picker) SetSize(w, h int) { p.list.SetSize(max(w, 1), max(h, 1)) }

// Update moves through the options.
func (p *picker) Update(msg tea.KeyPressMsg) { p.list, _ = p.list.Update(msg) }

// Selected returns the option under the cursor.
func (p *picker) Selected() string {
	if it, ok := p.list.SelectedItem().(pickerItem); ok {
		return string(it)
	}
	return ""
}

// View renders the title line and the list.
func (p *picker) View() string {
	st := p.c.Styles
	return st.Strong.Render("choose "+p.title) + st.Muted.Render(" · ↑/↓ enter select · esc cancel") + "\n" + p.list.View()
}
