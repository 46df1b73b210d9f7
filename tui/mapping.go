package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// mappingPane shows the device mapping design-space exploration chose (000
// §VI): the primitive-platform table, the chosen mapping and its predicted
// throughput, the speedups over the second best and the worst mapping, the
// FPGA parameters and every mapping with its predicted GPS. Selecting a
// mapping and pressing enter switches the live run to it.
type mappingPane struct {
	c    *common
	w, h int

	snap    *engine.Snapshot
	focused bool
	sel     int  // selected row of snap.Mapping.All
	moved   bool // the user moved the selection; otherwise it follows the running mapping
	status  string
	bad     bool // status is an error

	view viewCache[mappingKey]
}

type mappingKey struct {
	seq        uint64
	w, h, sel  int
	dark, bad  bool
	focused    bool
	status     string
	switchable bool
}

// switchMappingMsg asks the root model to switch the live run's mapping.
type switchMappingMsg struct{ mapping engine.Mapping }

func newMappingPane(c *common) *mappingPane { return &mappingPane{c: c} }

// SetSize sets the inner size of the pane.
func (p *mappingPane) SetSize(w, h int) { p.w, p.h = w, h }

// SetSnapshot hands the pane the newest snapshot.
func (p *mappingPane) SetSnapshot(s *engine.Snapshot) {
	p.snap = s
	all := s.Mapping.All
	if !p.moved {
		if i := slices.IndexFunc(all, func(m engine.MappingGPS) bool { return m.Mapping == s.Mapping.Chosen }); i >= 0 {
			p.sel = i
		}
	}
	p.sel = min(max(p.sel, 0), max(len(all)-1, 0))
}

// SetFocused tells the pane whether it has the focus (it then shows the
// selection cursor).
func (p *mappingPane) SetFocused(f bool) { p.focused = f }

// SetStatus shows the outcome of a switch.
func (p *mappingPane) SetStatus(text string, bad bool) { p.status, p.bad = text, bad }

// Selected returns the selected mapping, "" if there is none.
func (p *mappingPane) Selected() string {
	if p.snap == nil || p.sel >= len(p.snap.Mapping.All) {
		return ""
	}
	return p.snap.Mapping.All[p.sel].Mapping
}

// HasMappings reports whether there are mappings to choose from.
func (p *mappingPane) HasMappings() bool { return p.snap != nil && len(p.snap.Mapping.All) > 0 }

// Update moves the selection and asks for a switch.
func (p *mappingPane) Update(msg tea.KeyPressMsg) tea.Cmd {
	if !p.HasMappings() {
		return nil
	}
	n := len(p.snap.Mapping.All)
	switch {
	case key.Matches(msg, p.c.Keys.MapUp):
		p.sel, p.moved = max(p.sel-1, 0), true
	case key.Matches(msg, p.c.Keys.MapDown):
		p.sel, p.moved = min(p.sel+1, n-1), true
	case key.Matches(msg, p.c.Keys.MapSwitch):
		m, err := engine.ParseMapping(p.Selected())
		p.moved = false
		if err != nil || m.Auto() {
			return nil // no row selected
		}
		return func() tea.Msg { return switchMappingMsg{m} }
	case key.Matches(msg, p.c.Keys.MapAuto):
		p.moved = false
		return func() tea.Msg { return switchMappingMsg{engine.AutoMapping} }
	}
	return nil
}

// View renders the pane's inner w x h cells, cached until its inputs change.
func (p *mappingPane) View() string {
	focused := p.focused
	k := mappingKey{w: p.w, h: p.h, sel: p.sel, dark: p.c.Styles.Dark, bad: p.bad,
		status: p.status, focused: focused, switchable: p.c.Keys.MapSwitch.Enabled()}
	if p.snap != nil {
		k.seq = p.snap.Seq + 1
	}
	return p.view.get(k, func() string { return p.render(focused) })
}

// stepTime formats seconds per learner step or RMM round; 0 means the
// device cannot run the primitive.
func stepTime(sec float64) string {
	if !(sec > 0) {
		return "cannot"
	}
	return units.Seconds(sec)
}

func (p *mappingPane) render(focused bool) string {
	st := p.c.Styles
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	s := p.snap
	if s == nil {
		return st.Muted.Render(waitingText)
	}
	m := &s.Mapping
	if m.Chosen == "" && len(m.All) == 0 {
		return st.Muted.Render("No device mapping published for this run yet.")
	}

	narrow := p.w < 56
	var top []string
	req := m.Requested
	if req == "" {
		req = s.Config.Mapping.String()
	}
	unit, second, letters := mappingLabels(*m)
	// The modelled power, when the platform gives it and the pane has
	// room: beside the prediction and as a column of the mapping list.
	perWatt := !narrow && m.Watts > 0
	power := ""
	if perWatt {
		power = fmt.Sprintf(" · %s W, %s %s/W", units.SI(m.Watts), units.SI(m.GPSPerWatt), unit)
	}
	top = append(top, st.Accent.Bold(true).Render(mappingText(req, s.Config.Mapping.String(), m.Chosen))+
		st.Text.Render(fmt.Sprintf(" · predicted %s %s", units.Fixed(m.PredictedGPS), unit)+power))
	// The prediction is for the warm run; the live line says where the
	// simulated rate is now and which unit sets its pace.
	if b := s.Busiest; b.Device != "" {
		lead, unitName := "live %s %s · busiest unit ", fmt.Sprintf("%s %s (%s busy)", b.Device, b.Stage, units.Percent(b.Utilization, 0))
		if narrow {
			lead, unitName = "now %s %s · ", fmt.Sprintf("%s %s %s", b.Device, b.Stage, units.Percent(b.Utilization, 0))
		}
		top = append(top, st.Text.Render(fmt.Sprintf(lead, units.Fixed(liveRate(s, unit)), unit))+st.Strong.Render(unitName))
	}
	if m.SecondBest != "" || m.Worst != "" {
		second := fmt.Sprintf("×%s over 2nd best %s", units.SI(m.SpeedupOver), m.SecondBest)
		worst := fmt.Sprintf("×%s over worst %s", units.SI(m.SpeedupOverWorst), m.Worst)
		// A mapping set by hand reads best against the exploration's
		// fastest prediction.
		if best, ok := bestMapping(*m); ok && best.Mapping != m.Chosen && m.PredictedGPS > 0 {
			second = fmt.Sprintf("DSE best %s: ×%s this", best.Mapping, units.SI(best.GPS/m.PredictedGPS))
		}
		if narrow {
			top = append(top, st.Text.Render(second), st.Text.Render(worst))
		} else {
			top = append(top, st.Text.Render(second+" · "+worst))
		}
	}
	if f := m.FPGA; f.DP != 0 || f.PI != 0 || f.S != 0 {
		if narrow {
			top = append(top, st.Text.Render(fmt.Sprintf("FPGA DP %d · PI %d · S %d", f.DP, f.PI, f.S)))
		} else {
			top = append(top, st.Text.Render(fmt.Sprintf("FPGA: DP %d learner pipelines · PI %d per pipeline · S %d RMM banks", f.DP, f.PI, f.S)))
		}
	}
	var table []string
	if len(m.Table) > 0 {
		table = append(table, st.Muted.Render(fmt.Sprintf("%-7s", "s/batch"))+st.Strong.Render(fmt.Sprintf(" %9s %9s", "learner", second)))
		for _, d := range m.Table {
			table = append(table, st.Text.Render(fmt.Sprintf("%-7s %9s %9s", d.Device, stepTime(d.LearnerSec), stepTime(d.RMMSec))))
		}
	}

	// The mapping list gets what is left, scrolled to keep the selection.
	var list []string
	// The bound column is as wide as its longest entry, so that a narrow
	// pane keeps room for the running mapping's live rate.
	const boundHead = "bound by"
	boundW := len(boundHead)
	for _, mg := range m.All {
		boundW = max(boundW, len(mg.Bottleneck))
	}
	if len(m.All) > 0 {
		head := fmt.Sprintf("  %-5s %7s  %-*s", letters, "pred.", boundW, boundHead)
		if perWatt {
			head += fmt.Sprintf(" %7s", unit+"/W")
		}
		list = append(list, st.Strong.Render(head))
	}
	rows := make([]string, len(m.All))
	for i, mg := range m.All {
		mark := "  "
		if i == p.sel && focused {
			mark = "▸ "
		}
		line := fmt.Sprintf("%s%-5s %7s  %-*s", mark, mg.Mapping, units.Fixed(mg.GPS), boundW, mg.Bottleneck)
		if perWatt {
			// 7 wide: units.SI's widest below 1, 2.1e-03.
			line += fmt.Sprintf(" %7s", units.SI(mg.GPSPerWatt))
		}
		tag := ""
		if mg.Mapping == m.Chosen {
			tag = " ◀ now " + units.Fixed(liveRate(s, unit))
		}
		switch {
		case i == p.sel && focused:
			rows[i] = st.Selected.Render(line) + st.Accent.Render(tag)
		case mg.Mapping == m.Chosen:
			rows[i] = st.Accent.Render(line + tag)
		default:
			rows[i] = st.Text.Render(line)
		}
	}

	var status []string
	if p.status != "" {
		if p.bad {
			status = append(status, st.Error.Render("✗ "+p.status))
		} else {
			status = append(status, st.Good.Render(p.status))
		}
	}

	var note []string
	if m.Note != "" {
		wrapped := lipgloss.NewStyle().Width(max(p.w, 10)).Render(m.Note)
		for l := range strings.SplitSeq(wrapped, "\n") {
			note = append(note, st.Muted.Render(strings.TrimRight(l, " ")))
		}
	}

	// Priority when short of room: the status, the choice and its speedups,
	// the mapping list, the table, then DSE's note.
	out := make([]string, 0, p.h)
	out = append(out, status...)
	out = append(out, top...)
	listNeed := 0
	if len(rows) > 0 {
		listNeed = 1 + len(rows)
	}
	room := p.h - len(out) - listNeed
	if len(table) <= room || (len(table) <= p.h-len(out)-4) {
		out = append(out, table...)
		room -= len(table)
	}
	if room > 0 && len(note) > 0 {
		out = append(out, note[:min(room, len(note))]...)
	}
	room = p.h - len(out)
	if len(rows) > 0 && room >= 2 {
		out = append(out, list...)
		room--
		first := 0
		if len(rows) > room {
			first = min(max(p.sel-room/2, 0), len(rows)-room)
		}
		out = append(out, rows[first:min(first+room, len(rows))]...)
	}
	if len(out) > p.h {
		out = out[:p.h]
	}
	return strings.Join(out, "\n")
}

// bestMapping returns the mapping the exploration predicts fastest.
func bestMapping(m engine.MappingView) (engine.MappingGPS, bool) {
	if len(m.All) == 0 {
		return engine.MappingGPS{}, false
	}
	return m.All[0], true // All is sorted best first
}

// mappingLabels names what the mapping pane shows: the unit of the
// predictions, the primitive of the table's second column and the letters
// of a mapping string (Learner-RMM-Storage, or Learner-GAE-Storage for PPO).
// Snapshots from before the fields existed read as off-policy.
func mappingLabels(m engine.MappingView) (unit, second, letters string) {
	unit, second = m.Unit, m.Columns[1]
	if unit == "" {
		unit = "GPS"
	}
	if second == "" {
		second = "RMM"
	}
	return unit, second, "L-" + second[:1] + "-S"
}

// liveRate is the simulated throughput in the mapping's unit.
func liveRate(s *engine.Snapshot, unit string) float64 {
	if unit == "IPS" {
		return s.Sim.IPS
	}
	return s.Sim.GPS
}
