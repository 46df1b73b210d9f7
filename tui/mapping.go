package tui

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// mappingPane shows the device mapping design-space exploration chose (000
// §VI): the primitive-platform table, the chosen mapping and its predicted
// throughput (the model's) beside the live rate and busiest unit, the
// speedups over the second best and the worst mapping (or the mappings it
// ties with), the FPGA parameters and every mapping with its prediction.
// Selecting a mapping and pressing enter switches the live run to it.
//
// Two other views share the pane: a preview of a configuration not
// running (Preview, from the config form), and the devices editor (d), a
// what-if on the run's platform whose prediction follows every edit while
// the live run goes on unchanged.
type mappingPane struct {
	c    *common
	w, h int

	snap    *engine.Snapshot
	focused bool
	sel     int  // selected row of snap.Mapping.All
	moved   bool // the user moved the selection; otherwise it follows the running mapping
	status  string
	bad     bool // status is an error

	keys    mappingKeys
	editor  *devicesEditor  // the devices editor, nil when closed
	preview *mappingPreview // a configuration not running, nil when none
	version uint64          // bumps with every change of the editor or the preview

	// Predictions that build a run's networks (up to a second for a Pong
	// PPO trainer on this class of machine) are made off the update loop:
	// the editor opens and a preview shows when their message comes back.
	// Each request takes the next token of requests; pendingEditor and
	// pendingPreview hold the one awaited (0: none), so a result asked
	// for before the user moved on is dropped. The pane lives as long as
	// the explorer, so a token is never reused.
	requests                      int
	pendingEditor, pendingPreview int
	// pred keeps the previews' workload while only the platform changes;
	// predMu serializes the commands that use it.
	pred   engine.Predictor
	predMu sync.Mutex

	// lineRow maps each line of the last rendering to the row it shows (a
	// mapping of the list, or a parameter of the editor), -1 for others.
	lineRow []int
	view    viewCache[mappingKey]
}

type mappingKey struct {
	seq        uint64
	w, h, sel  int
	dark, bad  bool
	focused    bool
	status     string
	switchable bool
	version    uint64
}

// mappingPreview is the prediction of a configuration not running.
type mappingPreview struct {
	cfg  engine.Config
	view engine.MappingView
	err  error
}

// mappingKeys are the pane's own bindings: d opens the devices editor,
// whose keys follow. The list's keys (MapUp, MapDown, MapSwitch, MapAuto)
// are the KeyMap's, which the root enables.
type mappingKeys struct {
	Devices key.Binding

	ParamUp, ParamDown key.Binding
	Less, More         key.Binding
	Reset              key.Binding
	Apply, Save, Close key.Binding
}

func newMappingKeys() mappingKeys {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return mappingKeys{
		Devices:   b([]string{"d"}, "d", "what if: edit the devices"),
		ParamUp:   b([]string{"up", "k"}, "↑/k", "previous parameter"),
		ParamDown: b([]string{"down", "j"}, "↓/j", "next parameter"),
		// The editor's hint line and the footer use these short words;
		// the full help says more (help.go).
		Less:  b([]string{"left", "-"}, "←/-", "smaller"),
		More:  b([]string{"right", "+", "="}, "→/+", "larger"),
		Reset: b([]string{"x"}, "x", "reset"),
		Apply: b([]string{"enter"}, "enter", "apply"),
		Save:  b([]string{"w"}, "w", "save"),
		Close: b([]string{"esc", "d"}, "esc/d", "close"),
	}
}

// mappingWide is the pane width from which the summary puts the power
// figures beside the prediction and the list has its GPS/W column.
const mappingWide = 56

// switchMappingMsg asks the root model to switch the live run's mapping.
type switchMappingMsg struct{ mapping engine.Mapping }

func newMappingPane(c *common) *mappingPane {
	return &mappingPane{c: c, keys: newMappingKeys()}
}

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
//
// A preview hides the list: its keys and clicks would act on rows not
// shown.
func (p *mappingPane) HasMappings() bool {
	return p.snap != nil && p.preview == nil && len(p.snap.Mapping.All) > 0
}

// Editing reports whether the devices editor is open: its keys then take
// the arrows, enter and esc, and the list's bindings do not apply.
//
// An editor on its way counts: its keys (esc and d cancel it) are the
// pane's already.
func (p *mappingPane) Editing() bool { return p.editor != nil || p.pendingEditor != 0 }

// nextRequest returns a new request's token.
func (p *mappingPane) nextRequest() int {
	p.requests++
	return p.requests
}

// NewRun readies the pane for a new run: the list follows the new run's
// mapping and an editor of the old run's platform closes. A preview (of
// the form's configuration, which a restart leaves as it is) stays.
func (p *mappingPane) NewRun() {
	p.snap, p.sel, p.moved = nil, 0, false
	p.editor, p.pendingEditor = nil, 0
	p.SetStatus("", false)
	p.version++
}

// Preview shows the prediction for cfg, a configuration not running yet
// (the config form's platform field), marked "preview: not running",
// until ClearPreview. The root decides which configuration runs: the
// snapshot's keeps the mapping the run started with after a live switch.
//
// The prediction is made by the command it returns; until its
// previewMsg comes back (SetPreview) the preview says it is predicting.
func (p *mappingPane) Preview(cfg engine.Config) tea.Cmd {
	token, cfg := p.nextRequest(), cfg.Defaults()
	p.pendingPreview = token
	p.preview = &mappingPreview{cfg: cfg}
	p.version++
	return func() tea.Msg {
		p.predMu.Lock()
		defer p.predMu.Unlock()
		v, err := p.pred.Predict(cfg)
		return previewMsg{token, &mappingPreview{cfg: cfg, view: v, err: err}}
	}
}

// previewMsg is a preview's prediction, made off the update loop.
type previewMsg struct {
	token   int
	preview *mappingPreview
}

// SetPreview shows a preview's prediction, unless the preview was
// cleared or replaced since it was asked for.
func (p *mappingPane) SetPreview(msg previewMsg) {
	if msg.token != p.pendingPreview {
		return
	}
	p.pendingPreview = 0
	p.preview = msg.preview
	p.version++
}

// ClearPreview goes back to the running configuration's view; a
// prediction still on its way is dropped when it comes.
func (p *mappingPane) ClearPreview() {
	p.pendingPreview = 0
	if p.preview != nil {
		p.preview = nil
		p.version++
	}
}

// sameRun reports whether a and b run the same configuration (the
// preset name they carry aside).
func sameRun(a, b engine.Config) bool {
	a, b = a.Defaults(), b.Defaults()
	a.Name, b.Name = "", ""
	return a == b
}

// HelpKeys returns the pane's own bindings that apply now, for the
// footer: the editor's while it is open, else d. The list's keys are the
// KeyMap's, which the footer has already.
func (p *mappingPane) HelpKeys() []key.Binding {
	k := &p.keys
	switch {
	case p.editor != nil:
		return []key.Binding{k.ParamUp, k.ParamDown, k.Less, k.More, k.Reset, k.Apply, k.Save, k.Close}
	case p.canEdit():
		return []key.Binding{k.Devices}
	}
	return nil
}

// canEdit reports whether d opens the editor: there is a run to predict.
func (p *mappingPane) canEdit() bool { return p.snap != nil }

// Update handles a key while the pane has the focus: the editor's, d, or
// the list's (select, switch, back to auto). running is the configuration
// the run runs, the root's: d drafts its platform and predicts it there
// (the snapshot's configuration keeps the mapping the run started with
// after a live switch).
func (p *mappingPane) Update(msg tea.KeyPressMsg, running engine.Config) tea.Cmd {
	if p.editor != nil {
		return p.updateEditor(msg)
	}
	if p.pendingEditor != 0 && key.Matches(msg, p.keys.Close) {
		p.cancelOpening()
		return nil
	}
	if key.Matches(msg, p.keys.Devices) && p.canEdit() {
		return p.openEditor(running)
	}
	if !p.HasMappings() {
		return nil
	}
	if d := scrollDelta(msg, p.c.Keys.MapUp, p.c.Keys.MapDown); d != 0 {
		p.Scroll(d)
		return nil
	}
	switch {
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

// ClickRow selects the row at inner line y of the last rendering: a
// mapping of the list, or a parameter in the editor. Other lines do
// nothing.
func (p *mappingPane) ClickRow(y int) {
	if y < 0 || y >= len(p.lineRow) || p.lineRow[y] < 0 {
		return
	}
	if p.editor != nil {
		p.editor.sel = p.lineRow[y]
		p.version++
		return
	}
	if p.HasMappings() {
		p.sel, p.moved = min(p.lineRow[y], len(p.snap.Mapping.All)-1), true
	}
}

// Scroll moves the selection d rows (a key, the mouse wheel), kept in the
// list: the mapping list's, or the editor's parameter.
func (p *mappingPane) Scroll(d int) {
	if p.editor != nil {
		p.editor.move(d)
		p.version++
		return
	}
	if p.HasMappings() {
		p.sel, p.moved = min(max(p.sel+d, 0), len(p.snap.Mapping.All)-1), true
	}
}

// View renders the pane's inner w x h cells, cached until its inputs change.
func (p *mappingPane) View() string {
	focused := p.focused
	k := mappingKey{w: p.w, h: p.h, sel: p.sel, dark: p.c.Styles.Dark, bad: p.bad,
		status: p.status, focused: focused, switchable: p.c.Keys.MapSwitch.Enabled(), version: p.version}
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
	p.lineRow = p.lineRow[:0]
	st := p.c.Styles
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	s := p.snap
	if s == nil {
		return st.Muted.Render(waitingText)
	}
	if p.editor != nil {
		lines, rows := p.editor.render(st, &p.keys, p.w, p.h, s, p.status, p.bad)
		p.lineRow = rows
		return strings.Join(lines, "\n")
	}
	if pv := p.preview; pv != nil {
		return p.renderPreview(pv)
	}
	m := &s.Mapping
	if m.Chosen == "" && len(m.All) == 0 {
		return st.Muted.Render("No device mapping published for this run yet.")
	}

	narrow := p.w < mappingWide
	req := m.Requested
	if req == "" {
		req = s.Config.Mapping.String()
	}
	// The prediction is for the warm run; the live line says where the
	// simulated rate is now and which unit sets its pace, beside the
	// model's rate and bound above it: while the run warms up they differ.
	live := ""
	if b := s.Busiest; b.Device != "" {
		unit := unitOf(*m)
		lead, unitName := "live %s %s, busiest ", fmt.Sprintf("%s %s (%s busy)", b.Device, b.Stage, units.Percent(b.Utilization, 0))
		if narrow {
			lead, unitName = "live %s %s · ", fmt.Sprintf("%s %s %s busy", b.Device, b.Stage, units.Percent(b.Utilization, 0))
		}
		live = st.Text.Render(fmt.Sprintf(lead, units.Fixed(liveRate(s, unit)), unit)) + st.Strong.Render(unitName)
	}
	top := mappingSummary(st, *m, mappingText(req, s.Config.Mapping.String(), m.Chosen), narrow, live)
	var status []string
	if p.status != "" {
		if p.bad {
			status = append(status, st.Error.Render("✗ "+p.status))
		} else {
			status = append(status, st.Good.Render(p.status))
		}
	}
	hint := ""
	if focused && p.canEdit() {
		hint = "d: what if the devices were different"
	}
	tags := map[string]string{m.Chosen: " ◀ now " + units.Fixed(liveRate(s, unitOf(*m)))}
	lines, rows := p.layoutMapping(*m, status, top, tags, focused, hint)
	p.lineRow = rows
	return strings.Join(lines, "\n")
}

// renderPreview draws the prediction of a configuration not running.
func (p *mappingPane) renderPreview(pv *mappingPreview) string {
	st := p.c.Styles
	head := st.Warn.Render(fit("preview: not running · "+platformName(pv.cfg.Devices), p.w))
	if p.pendingPreview != 0 { // its previewMsg has not come back
		return head + "\n" + st.Muted.Render(fit("predicting "+pv.cfg.Env+" "+string(pv.cfg.Algo)+" on it…", p.w))
	}
	if pv.err != nil {
		wrapped := lipgloss.NewStyle().Width(max(p.w, 10)).Render(pv.err.Error())
		return head + "\n" + st.Error.Render(wrapped)
	}
	m := pv.view
	top := mappingSummary(st, m, mappingText(m.Requested, m.Requested, m.Chosen), p.w < mappingWide, "")
	lines, rows := p.layoutMapping(m, []string{head}, top, map[string]string{m.Chosen: " ◀ would run"}, false, "")
	p.lineRow = rows
	return strings.Join(lines, "\n")
}

// layoutMapping fits a mapping view into the pane: status and top lines
// first, then the table, the note, the mapping list (tags marks rows by
// mapping) and the hint as room allows. It returns the lines and, for
// each, the list row it shows (-1 for none).
func (p *mappingPane) layoutMapping(m engine.MappingView, status, top []string, tags map[string]string, cursor bool, hint string) ([]string, []int) {
	st := p.c.Styles
	table := mappingTable(st, m)
	list, rows := mappingList(st, m, p.sel, cursor, tags, p.w >= mappingWide)
	var note []string
	if m.Note != "" {
		wrapped := lipgloss.NewStyle().Width(max(p.w, 10)).Render(m.Note)
		for l := range strings.SplitSeq(wrapped, "\n") {
			note = append(note, st.Muted.Render(strings.TrimRight(l, " ")))
		}
	}

	// Priority when short of room: the status, the choice and its speedups,
	// the mapping list, the table, then DSE's note (before the table when
	// the choice is a tie: the note says how it was broken).
	out := make([]string, 0, p.h)
	out = append(out, status...)
	out = append(out, top...)
	listNeed := 0
	if len(rows) > 0 {
		listNeed = 1 + len(rows)
	}
	tie := len(m.Ties()) > 0
	room := p.h - len(out) - listNeed
	if tie && room > 0 && len(note) > 0 {
		out = append(out, note[:min(room, len(note))]...)
		room -= min(room, len(note))
		note = nil
	}
	if len(table) <= room || (len(table) <= p.h-len(out)-4) {
		out = append(out, table...)
		room -= len(table)
	}
	if room > 0 && len(note) > 0 {
		out = append(out, note[:min(room, len(note))]...)
		room -= min(room, len(note))
	}
	lineRow := make([]int, len(out), p.h)
	for i := range lineRow {
		lineRow[i] = -1
	}
	room = p.h - len(out)
	if len(rows) > 0 && room >= 2 {
		out = append(out, list[0])
		lineRow = append(lineRow, -1)
		room--
		if hint != "" && room > len(rows) {
			room-- // keep a line for the hint
		} else {
			hint = ""
		}
		first := 0
		if len(rows) > room {
			first = min(max(p.sel-room/2, 0), len(rows)-room)
		}
		for i := first; i < min(first+room, len(rows)); i++ {
			out = append(out, rows[i])
			lineRow = append(lineRow, i)
		}
	}
	if hint != "" && len(out) < p.h {
		out = append(out, st.Muted.Render(fit(hint, p.w)))
		lineRow = append(lineRow, -1)
	}
	if len(out) > p.h {
		out, lineRow = out[:p.h], lineRow[:p.h]
	}
	return out, lineRow
}

// mappingSummary is the top of a mapping view: the choice with the
// model's prediction and the bound it names, the live line (live, when
// not ""), then the speedups (or the mappings it ties with) and the FPGA
// parameters. head names the choice, e.g. "auto → F-F-F". Every rate says
// whose it is: "model" (the exploration's prediction for the warm run)
// or "live" (the simulated clock now).
func mappingSummary(st *Styles, m engine.MappingView, head string, narrow bool, live string) []string {
	unit := unitOf(m)
	// The modelled power, when the platform gives it and the pane has
	// room.
	power := ""
	if !narrow && m.Watts > 0 {
		power = fmt.Sprintf(" · %s W, %s %s/W", units.SI(m.Watts), units.SI(m.GPSPerWatt), unit)
	}
	first := st.Accent.Bold(true).Render(head) + st.Text.Render(fmt.Sprintf(" · model %s %s", units.Fixed(m.PredictedGPS), unit))
	var top []string
	switch {
	case m.Bottleneck == "":
		top = []string{first + st.Text.Render(power)}
	case narrow:
		top = []string{first, st.Text.Render("model bound by ") + st.Strong.Render(m.Bottleneck)}
	default:
		top = []string{first + st.Text.Render(", bound by ") + st.Strong.Render(m.Bottleneck) + st.Text.Render(power)}
	}
	if live != "" {
		top = append(top, live)
	}
	worst := ""
	if m.Worst != "" {
		worst = fmt.Sprintf("×%s over worst %s", units.SI(m.SpeedupOverWorst), m.Worst)
	}
	var second string
	best, ok := bestMapping(m)
	switch ties := m.Ties(); {
	case len(ties) > 0:
		// Equal predictions: no rival is faster, and none is beaten.
		second = "tie with " + strings.Join(ties, ", ")
	case ok && best.Mapping != m.Chosen && m.PredictedGPS > 0:
		second = fmt.Sprintf("fastest predicted %s: ×%s this", best.Mapping, units.SI(best.GPS/m.PredictedGPS))
	case m.SecondBest != "":
		second = fmt.Sprintf("×%s over 2nd best %s", units.SI(m.SpeedupOver), m.SecondBest)
	}
	switch {
	case second == "" && worst == "":
	case narrow || second == "" || worst == "":
		for _, l := range []string{second, worst} {
			if l != "" {
				top = append(top, st.Text.Render(l))
			}
		}
	default:
		top = append(top, st.Text.Render(second+" · "+worst))
	}
	if f := m.FPGA; f.DP != 0 || f.PI != 0 || f.S != 0 {
		if narrow {
			top = append(top, st.Text.Render(fmt.Sprintf("FPGA DP %d · PI %d · S %d", f.DP, f.PI, f.S)))
		} else {
			top = append(top, st.Text.Render(fmt.Sprintf("FPGA: DP %d learner pipelines · PI %d per pipeline · S %d RMM banks", f.DP, f.PI, f.S)))
		}
	}
	return top
}

// mappingTable is the primitive-platform table: seconds per batch of the
// two primitives on each device.
func mappingTable(st *Styles, m engine.MappingView) []string {
	if len(m.Table) == 0 {
		return nil
	}
	_, second, _ := mappingLabels(m)
	table := []string{st.Muted.Render(fmt.Sprintf("%-7s", "s/batch")) + st.Strong.Render(fmt.Sprintf(" %9s %9s", "learner", second))}
	for _, d := range m.Table {
		table = append(table, st.Text.Render(fmt.Sprintf("%-7s %9s %9s", d.Device, stepTime(d.LearnerSec), stepTime(d.RMMSec))))
	}
	return table
}

// mappingList is the list of every mapping with its prediction and the
// model's bound: its header line, then one line per mapping of m.All.
// sel is the selected row, drawn with a cursor when cursor; tags marks
// rows by mapping (the running one, "◀ now"); wide adds the efficiency
// column (GPS/W) when the platform models power.
func mappingList(st *Styles, m engine.MappingView, sel int, cursor bool, tags map[string]string, wide bool) (head []string, rows []string) {
	if len(m.All) == 0 {
		return nil, nil
	}
	unit, _, letters := mappingLabels(m)
	perWatt := wide && m.Watts > 0
	// The bound column is as wide as its longest entry, so that a narrow
	// pane keeps room for the running mapping's live rate.
	const boundHead = "bound by"
	boundW := len(boundHead)
	for _, mg := range m.All {
		boundW = max(boundW, len(mg.Bottleneck))
	}
	h := fmt.Sprintf("  %-5s %7s  %-*s", letters, "model", boundW, boundHead)
	if perWatt {
		h += fmt.Sprintf(" %7s", unit+"/W")
	}
	head = []string{st.Strong.Render(h)}
	rows = make([]string, len(m.All))
	for i, mg := range m.All {
		mark := "  "
		if i == sel && cursor {
			mark = "▸ "
		}
		line := fmt.Sprintf("%s%-5s %7s  %-*s", mark, mg.Mapping, units.Fixed(mg.GPS), boundW, mg.Bottleneck)
		if perWatt {
			// 7 wide: units.SI's widest below 1, 2.1e-03.
			line += fmt.Sprintf(" %7s", units.SI(mg.GPSPerWatt))
		}
		tag := tags[mg.Mapping]
		switch {
		case i == sel && cursor:
			rows[i] = st.Selected.Render(line) + st.Accent.Render(tag)
		case mg.Mapping == m.Chosen:
			rows[i] = st.Accent.Render(line + tag)
		default:
			rows[i] = st.Text.Render(line + tag)
		}
	}
	return head, rows
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

// unitOf is the unit of a mapping view's predictions.
func unitOf(m engine.MappingView) string {
	unit, _, _ := mappingLabels(m)
	return unit
}

// liveRate is the simulated throughput in the mapping's unit.
func liveRate(s *engine.Snapshot, unit string) float64 {
	if unit == "IPS" {
		return s.Sim.IPS
	}
	return s.Sim.GPS
}
