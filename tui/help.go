package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// helpEntry is one line of the full help: the keys and what they do.
type helpEntry struct{ keys, desc string }

// helpSection is one group of the full help: a pane's keys, the global
// keys, the mouse.
type helpSection struct {
	title   string
	pane    paneID // the pane the keys belong to; -1 for none
	entries []helpEntry
}

// noPane marks a help section that belongs to no pane.
const noPane paneID = -1

// bindingEntry reads a binding's help, whether or not it applies now: the
// full help lists every key, the footer only those that apply.
func bindingEntry(b key.Binding) helpEntry {
	h := b.Help()
	return helpEntry{h.Key, h.Desc}
}

func bindingEntries(bs ...key.Binding) []helpEntry {
	out := make([]helpEntry, len(bs))
	for i, b := range bs {
		out[i] = bindingEntry(b)
	}
	return out
}

// described is the help line of bindings bs, their keys side by side, with
// desc, longer than the bindings' own words (which the footer shows).
func described(desc string, bs ...key.Binding) helpEntry {
	keys := make([]string, len(bs))
	for i, b := range bs {
		keys[i] = b.Help().Key
	}
	return helpEntry{strings.Join(keys, " "), desc}
}

// helpSections lists every key of the explorer, grouped by pane, the
// focused pane's group first, then the global keys and the mouse.
func (m *Model) helpSections() []helpSection {
	k := m.com.Keys
	global := helpSection{title: "Everywhere", pane: noPane, entries: []helpEntry{
		bindingEntry(k.NextPane), bindingEntry(k.PrevPane),
		described("pause / resume the run", k.Pause),
		bindingEntry(k.Restart),
		bindingEntry(k.Export),
		described("zoom the focused pane (z or esc returns)", k.Zoom),
		described("this help (? or esc closes)", k.Help),
		{"q ctrl+c", "quit (in a text field q types)"},
	}}
	if m.wt != nil {
		global.entries = append(global.entries, bindingEntry(k.NextStep), bindingEntry(k.PrevStep))
	}
	change := helpSection{title: "Change the run", pane: noPane, entries: []helpEntry{
		{"Config", "environment, algorithm, sizes, mapping, devices: " + m.configRoute() + " or click it"},
		described("pick a preset, walkthrough or experiment", k.Presets),
	}}
	mouse := helpSection{title: "Mouse", pane: noPane, entries: []helpEntry{
		{"click", "focus a pane or a tab; select a row"},
		{"wheel", "scroll the pane under the pointer"},
	}}
	panes := []helpSection{
		{title: paneTitles[paneTree], pane: paneTree, entries: []helpEntry{
			described("step the walk a level (paused or over)", k.WalkPrev, k.WalkNext),
		}},
		{title: paneTitles[panePipeline], pane: panePipeline, entries: bindingEntries(k.ScrollUp, k.ScrollDown)},
		{title: paneTitles[paneCharts], pane: paneCharts, entries: []helpEntry{
			described("zoom: taller charts", k.Zoom),
		}},
		{title: paneTitles[paneMapping], pane: paneMapping, entries: m.mappingHelp()},
		{title: paneTitles[paneConfig], pane: paneConfig, entries: append(bindingEntries(k.FieldDown, k.FieldUp, k.Cycle, k.CyclePrev, k.StepUp, k.StepDown, k.Pick, k.Apply, k.Revert),
			helpEntry{"0-9", "type a number: the first key replaces the value"},
			helpEntry{"q", "types in a field; quits elsewhere"})},
	}
	if m.wt != nil {
		panes = append([]helpSection{{title: paneTitles[paneNarrative], pane: paneNarrative, entries: []helpEntry{
			described("scroll the text", k.ScrollUp, k.ScrollDown),
			described("step the sum-tree walk (paused)", k.WalkPrev, k.WalkNext),
		}}}, panes...)
	}
	var out []helpSection
	for _, s := range panes {
		if s.pane == m.focus {
			s.title += " (focused)"
			out = append(out, s)
		}
	}
	out = append(out, global, change)
	for _, s := range panes {
		if s.pane != m.focus {
			out = append(out, s)
		}
	}
	return append(out, mouse)
}

// changeHint is the first screen's one line on how to change the run.
func (m *Model) changeHint() string {
	if m.focus == paneConfig {
		return "change the run here in Config, or / for a preset · ? every key"
	}
	return "change the run: " + m.configRoute() + " → Config, or / for a preset · ? every key"
}

// configRoute says how to reach the Config pane from the focused one.
func (m *Model) configRoute() string {
	if m.focus == paneConfig {
		return "focused now"
	}
	i, j := max(slices.Index(m.order, m.focus), 0), max(slices.Index(m.order, paneConfig), 0)
	n := len(m.order)
	fwd, back := ((j-i)%n+n)%n, ((i-j)%n+n)%n
	if back <= fwd {
		return strings.TrimSpace(strings.Repeat("shift+tab ", back))
	}
	return strings.TrimSpace(strings.Repeat("tab ", fwd))
}

// helpKeyW is the width of the keys column of the full help.
const helpKeyW = 10

// helpLines renders the sections in columns of at least helpColW cells
// that fill w, each section kept whole in one column.
func (m *Model) helpLines(w int) []string {
	st := m.com.Styles
	const helpColW = 44
	cols := max(w/helpColW, 1)
	colW := w / cols
	var blocks [][]string
	for _, s := range m.helpSections() {
		title := st.Strong.Render(s.title)
		if s.pane == m.focus {
			title = st.Accent.Bold(true).Render(s.title)
		}
		blk := []string{fit(title, colW)}
		for _, e := range s.entries {
			keys := fit(st.Accent.Render(e.keys), helpKeyW)
			for i, l := range wrapText(e.desc, max(colW-helpKeyW-2, 8)) {
				if i > 0 {
					keys = strings.Repeat(" ", helpKeyW)
				}
				blk = append(blk, fit(" "+keys+" "+st.Text.Render(l), colW))
			}
		}
		blocks = append(blocks, append(blk, strings.Repeat(" ", colW)))
	}
	// Fill the columns in order, each about an equal share of the lines.
	total := 0
	for _, b := range blocks {
		total += len(b)
	}
	per := (total + cols - 1) / cols
	columns := make([][]string, cols)
	c := 0
	for _, b := range blocks {
		if c < cols-1 && len(columns[c]) > 0 && len(columns[c])+len(b) > per {
			c++
		}
		columns[c] = append(columns[c], b...)
	}
	rows := 0
	for _, col := range columns {
		rows = max(rows, len(col))
	}
	for i := range columns {
		for len(columns[i]) < rows {
			columns[i] = append(columns[i], strings.Repeat(" ", colW))
		}
	}
	return joinColumns(columns...)
}

// mappingHelp lists the mapping pane's keys: the list's, then the devices
// editor's (d opens it).
func (m *Model) mappingHelp() []helpEntry {
	k, e := m.com.Keys, &m.mapping.keys
	entries := []helpEntry{described("select a mapping", k.MapUp, k.MapDown)}
	entries = append(entries, bindingEntries(k.MapSwitch, k.MapAuto, e.Devices)...)
	return append(entries,
		described("editor: previous / next parameter", e.ParamUp, e.ParamDown),
		described("editor: a smaller / larger value", e.Less, e.More),
		described("editor: back to the file's value", e.Reset),
		described("editor: save and restart the run on it", e.Apply),
		described("editor: save the platform file", e.Save),
		described("editor: close the editor", e.Close))
}
