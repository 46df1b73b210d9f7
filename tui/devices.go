package tui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// devicesEditor is the mapping pane's devices mode, a what-if on the run's
// platform: it edits a draft of the running configuration's devices
// (engine.PlatformDraft) and predicts, after every edit, the mapping the
// run would have on them, with the primitive-platform table and the
// speedups. The live run goes on unchanged; applying saves the draft as a
// platform file and restarts the run on it.
type devicesEditor struct {
	draft  *engine.PlatformDraft
	cfg    engine.Config // the running configuration, predicted on the draft
	params []engine.DeviceParam
	sel    int
	view   engine.MappingView // the prediction on the draft
	err    error              // why the draft cannot be predicted; nil when it can
	note   string             // the outcome of the last edit or save
	bad    bool               // note is an error
}

// newDevicesEditor drafts cfg's platform and predicts cfg on it.
func newDevicesEditor(cfg engine.Config) (*devicesEditor, error) {
	d, err := engine.DraftPlatform(cfg.Devices)
	if err != nil {
		return nil, err
	}
	e := &devicesEditor{draft: d, cfg: cfg, params: d.Params()}
	if len(e.params) == 0 {
		return nil, fmt.Errorf("platform %s has no device parameter to edit", d.Source())
	}
	e.predict()
	return e, nil
}

// predict recomputes the prediction on the draft as it is now.
func (e *devicesEditor) predict() {
	e.params = e.draft.Params()
	e.view, e.err = e.draft.Predict(e.cfg)
}

// move moves the selection d parameters, kept in the list.
func (e *devicesEditor) move(d int) { e.sel = min(max(e.sel+d, 0), len(e.params)-1) }

// step moves the selected parameter one step up (dir > 0) or down.
func (e *devicesEditor) step(dir int) {
	p := e.params[e.sel]
	v, err := e.draft.Stepped(p.Key, dir)
	if err == nil && v != p.Value {
		err = e.draft.Set(p.Key, v)
	}
	e.setNote(err)
	e.predict()
}

// reset sets the selected parameter back to the file's value.
func (e *devicesEditor) reset() {
	p := e.params[e.sel]
	e.setNote(e.draft.Set(p.Key, p.Original))
	e.predict()
}

func (e *devicesEditor) setNote(err error) {
	e.note, e.bad = "", false
	if err != nil {
		e.note, e.bad = err.Error(), true
	}
}

// save writes the draft where the explorer keeps edited platforms and
// returns the file's path.
func (e *devicesEditor) save() (string, error) {
	path := e.draft.SavePath()
	if err := e.draft.Save(path); err != nil {
		return "", err
	}
	return path, nil
}

// openEditor opens the devices editor on running, the running
// configuration. Drafting the platform is quick, but the first prediction
// builds the run's networks, so the editor is made by the command this
// returns and opens when its editorOpenedMsg comes back (EditorOpened).
func (p *mappingPane) openEditor(running engine.Config) tea.Cmd {
	if p.pendingEditor != 0 {
		return nil
	}
	token := p.nextRequest()
	p.pendingEditor = token
	p.SetStatus("what if: predicting the run…", false)
	p.version++
	return func() tea.Msg {
		e, err := newDevicesEditor(running)
		return editorOpenedMsg{token, e, err}
	}
}

// editorOpenedMsg is a devices editor made off the update loop, or why it
// could not be.
type editorOpenedMsg struct {
	token  int
	editor *devicesEditor
	err    error
}

// EditorOpened opens the editor msg carries, unless the opening was
// cancelled or another was asked for since.
func (p *mappingPane) EditorOpened(msg editorOpenedMsg) {
	if msg.token != p.pendingEditor {
		return
	}
	p.pendingEditor = 0
	p.version++
	if msg.err != nil {
		p.SetStatus("what if: "+msg.err.Error(), true)
		return
	}
	p.SetStatus("", false)
	p.editor = msg.editor
}

// cancelOpening drops an editor on its way (esc or d before it opened).
func (p *mappingPane) cancelOpening() {
	p.pendingEditor = 0
	p.SetStatus("", false)
	p.version++
}

// updateEditor handles a key while the devices editor is open.
func (p *mappingPane) updateEditor(msg tea.KeyPressMsg) tea.Cmd {
	e, k := p.editor, &p.keys
	p.version++
	if d := scrollDelta(msg, k.ParamUp, k.ParamDown); d != 0 {
		p.Scroll(d)
		return nil
	}
	switch {
	case key.Matches(msg, k.Less):
		e.step(-1)
	case key.Matches(msg, k.More):
		e.step(1)
	case key.Matches(msg, k.Reset):
		e.reset()
	case key.Matches(msg, k.Save):
		path, err := e.save()
		e.setNote(err)
		if err == nil {
			e.note = "saved " + path + " (rlx --devices " + path + ")"
		}
	case key.Matches(msg, k.Apply):
		path, err := e.save()
		if err != nil {
			e.setNote(err)
			return nil
		}
		cfg := e.cfg
		cfg.Devices = path
		e.note = "saved " + path + ": restarting the run on it…"
		return func() tea.Msg { return applyConfigMsg{cfg} }
	case key.Matches(msg, k.Close):
		p.editor = nil
	}
	return nil
}

// paramLabel names a parameter in the list: "PCIe bandwidth".
func paramLabel(dp engine.DeviceParam) string { return dp.Device + " " + dp.Label }

// paramValue is a parameter's value with its unit: "16 GB/s".
func paramValue(v float64, unit string) string {
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if unit != "" {
		s += " " + unit
	}
	return s
}

// editorWide is the pane width from which the parameters and the
// prediction sit side by side.
const editorWide = 96

// render draws the editor in w x h cells for the run of snapshot s, with
// the pane's status; it returns the lines and, for each, the parameter it
// shows (-1 for none).
func (e *devicesEditor) render(st *Styles, keys *mappingKeys, w, h int, s *engine.Snapshot, status string, bad bool) ([]string, []int) {
	var head []string
	switch {
	case e.note != "":
		head = append(head, noteLine(st, e.note, e.bad, w))
	case status != "":
		head = append(head, noteLine(st, status, bad, w))
	}
	head = append(head, st.Warn.Render(fit("what if · "+e.draft.Source()+" · the run goes on unchanged", w)))
	hint := st.Muted.Render(fit(editorHint(keys), w))

	if w >= editorWide {
		leftW := min(44, w/2)
		rightW := w - leftW - 2
		body := h - len(head) - 1
		params, rows := e.paramLines(st, leftW, body)
		pred := e.predictionLines(st, rightW, body, s)
		for len(params) < body {
			params, rows = append(params, ""), append(rows, -1)
		}
		var out []string
		lineRow := make([]int, len(head))
		for i := range lineRow {
			lineRow[i] = -1
		}
		for i := range body {
			right := ""
			if i < len(pred) {
				right = pred[i]
			}
			out = append(out, fit(params[i], leftW)+"  "+right)
			lineRow = append(lineRow, rows[i])
		}
		out = append(append(head, out...), hint)
		return out, append(lineRow, -1)
	}

	// Stacked: the parameters (a window around the selection when short
	// of room), then the prediction with what is left.
	pred := e.predictionLines(st, w, h, s)
	room := h - len(head) - 1
	// The parameters, and the prediction's first lines with the top of
	// the mapping list: an edit shows its effect without scrolling.
	paramRoom := min(len(e.params)+1, max(4, room-min(len(pred), 8)))
	params, rows := e.paramLines(st, w, paramRoom)
	out := append(head, params...)
	lineRow := make([]int, len(head), h)
	for i := range lineRow {
		lineRow[i] = -1
	}
	lineRow = append(lineRow, rows...)
	if left := h - len(out) - 1; left > 0 {
		pred = pred[:min(left, len(pred))]
		out = append(out, pred...)
		for range pred {
			lineRow = append(lineRow, -1)
		}
	}
	if len(out) < h {
		out, lineRow = append(out, hint), append(lineRow, -1)
	}
	if len(out) > h {
		out, lineRow = out[:max(h, 0)], lineRow[:max(h, 0)]
	}
	return out, lineRow
}

// editorHint is the editor's line of keys, from its bindings: "←/-
// smaller · →/+ larger · x reset · ...".
func editorHint(k *mappingKeys) string {
	bs := []key.Binding{k.Less, k.More, k.Reset, k.Apply, k.Save, k.Close}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.Help().Key + " " + b.Help().Desc
	}
	return strings.Join(parts, " · ")
}

// noteLine draws an outcome: an error with ✗, else plain.
func noteLine(st *Styles, text string, bad bool, w int) string {
	if bad {
		return st.Error.Render(fit("✗ "+text, w))
	}
	return st.Good.Render(fit(text, w))
}

// paramLines lists the parameters in at most h lines, w cells wide, the
// selected one with a cursor and its range below, an edited one marked
// with its file's value; a window around the selection when they do not
// all fit. It returns the lines and the parameter of each (-1 for none).
func (e *devicesEditor) paramLines(st *Styles, w, h int) ([]string, []int) {
	if h <= 0 {
		return nil, nil
	}
	labelW := 0
	for _, dp := range e.params {
		labelW = max(labelW, len(paramLabel(dp)))
	}
	rangeLine := 1
	if h < 3 {
		rangeLine = 0
	}
	n := min(len(e.params), h-rangeLine)
	first := min(max(e.sel-n/2, 0), len(e.params)-n)
	var lines []string
	var rows []int
	for i := first; i < first+n; i++ {
		dp := e.params[i]
		mark := "  "
		if i == e.sel {
			mark = "▸ "
		}
		line := fmt.Sprintf("%s%-*s %s", mark, labelW, paramLabel(dp), paramValue(dp.Value, dp.Unit))
		// An edited value is marked *, and its file's value follows
		// where there is room.
		was := ""
		if dp.Value != dp.Original {
			line += "*"
			was = " (file " + strconv.FormatFloat(dp.Original, 'f', -1, 64) + ")"
		}
		switch {
		case i == e.sel:
			lines = append(lines, st.Selected.Render(line)+st.Muted.Render(was))
		case was != "":
			lines = append(lines, st.Accent.Render(line)+st.Muted.Render(was))
		default:
			lines = append(lines, st.Text.Render(line))
		}
		rows = append(rows, i)
	}
	if rangeLine == 1 {
		dp := e.params[e.sel]
		lines = append(lines, st.Muted.Render(fit(fmt.Sprintf("  %g..%g %s: %s", dp.Min, dp.Max, dp.Unit, dp.Range), w)))
		rows = append(rows, -1)
	}
	return lines, rows
}

// predictionLines is the prediction on the draft in at most h lines, w
// cells wide: the mapping the run would choose with the model's rate and
// bound, its speedups or ties, the running mapping for comparison, the
// mapping list and the primitive-platform table.
func (e *devicesEditor) predictionLines(st *Styles, w, h int, s *engine.Snapshot) []string {
	if e.err != nil {
		return []string{st.Error.Render(fit("✗ on this draft: "+e.err.Error(), w))}
	}
	m := e.view
	narrow := w < mappingWide
	out := mappingSummary(st, m, "draft: "+mappingText(m.Requested, m.Requested, m.Chosen), narrow, "")
	if run := s.Mapping; run.Chosen != "" {
		unit := unitOf(run)
		out = append(out, st.Muted.Render(fit(fmt.Sprintf("the live run: %s, model %s %s", run.Chosen, units.Fixed(run.PredictedGPS), unit), w)))
	}
	tags := map[string]string{m.Chosen: " ◀ draft"}
	if run := s.Mapping.Chosen; run != m.Chosen {
		tags[run] = " · live run"
	}
	head, rows := mappingList(st, m, -1, false, tags, !narrow)
	if room := h - len(out) - len(head); room > 0 && len(rows) > 0 {
		out = append(out, head...)
		out = append(out, rows[:min(room, len(rows))]...)
	}
	if table := mappingTable(st, m); h-len(out) >= len(table) {
		out = append(out, table...)
	}
	return out
}
