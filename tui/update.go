package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// Update handles one message. It never blocks: starting and stopping runs
// happen in commands; Pause, Resume and SetMapping only signal the run.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.com.Width, m.com.Height = msg.Width, msg.Height
		m.relayout()
	case tea.BackgroundColorMsg:
		m.com.Styles = NewStyles(msg.IsDark())
		m.help.Styles = m.com.Styles.Help
		m.form.Restyle()
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case tea.MouseClickMsg:
		m.handleClick(msg.Mouse())
	case tea.MouseWheelMsg:
		m.handleWheel(msg.Mouse())
	case exportedMsg:
		m.handleExported(msg)
	case tickMsg:
		cmd = m.handleTick()
	case eventMsg:
		cmd = m.handleEvent(msg)
	case startedMsg:
		cmd = m.handleStarted(msg)
	case applyConfigMsg:
		cmd = m.applyConfig(msg.cfg, "applied: restarting the run", "restarting with the new configuration…")
	case platformPreviewMsg:
		// The form is back on the running configuration: no preview.
		if msg.running || sameRun(msg.cfg, m.cfg) {
			m.mapping.ClearPreview()
		} else {
			cmd = m.mapping.Preview(msg.cfg)
		}
	case previewMsg:
		m.mapping.SetPreview(msg)
	case editorOpenedMsg:
		m.mapping.EditorOpened(msg)
	case tea.PasteMsg:
		if m.focus == paneConfig && !m.helpOpen && m.pick == nil {
			cmd = m.form.Paste(msg.Content)
		}
	case switchMappingMsg:
		if err := m.switchMapping(msg.mapping); err != nil {
			m.mapping.SetStatus(err.Error(), true)
		}
	}
	m.syncFocus()
	return m, cmd
}

// applyConfig loads cfg into the form and restarts the run with it: the
// config form's apply, and a walkthrough step that needs a new run. note
// shows beside the form's apply button, status in the footer.
func (m *Model) applyConfig(cfg engine.Config, note, status string) tea.Cmd {
	m.setConfig(cfg.Defaults())
	m.form.SetApplied(note)
	m.setStatus(status, false)
	return m.restart()
}

// handleTick reads the current run's latest snapshot and schedules the next
// tick while the run is live. Every tick clears ticking, whichever run was
// current when it was scheduled: a tick dropped without clearing it would
// stop the explorer reading any later run.
func (m *Model) handleTick() tea.Cmd {
	m.ticking = false
	if m.run == nil {
		return nil
	}
	if s := m.run.Latest(); s != nil && s != m.snap {
		m.applySnapshot(s)
	}
	m.tree.Tick()
	return m.armTick()
}

func (m *Model) handleEvent(msg eventMsg) tea.Cmd {
	if msg.gen != m.gen {
		// A replaced run: keep draining until it closes its channel.
		if msg.closed {
			return nil
		}
		return waitEventCmd(msg.gen, msg.events)
	}
	if msg.closed {
		m.ended = true
		if m.run != nil {
			m.applySnapshot(m.run.Latest())
		}
		m.tree.SetFrozen(true)
		return nil
	}
	ev := msg.ev
	m.applySnapshot(ev.Snapshot)
	step := ""
	if ev.Snapshot != nil {
		step = fmt.Sprintf(" at step %s", units.Count(ev.Snapshot.Counters.GradSteps))
	}
	var cmd tea.Cmd
	switch ev.Kind {
	case engine.EventStarted:
		chosen := ""
		if ev.Snapshot != nil {
			chosen = ev.Snapshot.Mapping.Chosen
		}
		m.setStatus("started: mapping "+chosen, false)
	case engine.EventPaused:
		m.paused = true
		m.tree.SetFrozen(true)
		// ←/→ step the walk from the tree and the narrative only: say
		// how to get there from anywhere else.
		hint := ": ←/→ step the walk in the sum tree"
		switch {
		case !m.hasWalk():
			hint = ""
		case m.focus != paneTree && m.focus != paneNarrative:
			hint = ": click the sum tree (or tab to it), then ←/→ step the walk"
		}
		m.setStatus("paused"+step+hint, false)
	case engine.EventResumed:
		m.paused = false
		m.tree.SetFrozen(false)
		m.setStatus("resumed", false)
		cmd = m.armTick()
	case engine.EventMappingChanged:
		text := ev.Text
		if text == "" && ev.Snapshot != nil {
			text = ev.Snapshot.Mapping.Chosen
		}
		note := "mapping → " + text + step + " (watch the sim rate)"
		m.charts.SetNote(note)
		m.mapping.SetStatus("now running "+text+step, false)
		m.setStatus(note, false)
	case engine.EventFinished:
		m.setStatus("finished"+step, false)
	case engine.EventStopped:
		m.setStatus("stopped"+step, false)
	case engine.EventFailed:
		why := ev.Text
		if ev.Err != nil {
			why = ev.Err.Error()
		}
		m.setStatus("failed: "+why, true)
	}
	return tea.Batch(cmd, waitEventCmd(msg.gen, msg.events))
}

func (m *Model) handleStarted(msg startedMsg) tea.Cmd {
	if msg.gen != m.gen {
		// Superseded while starting: stop the orphan.
		if msg.run != nil {
			r := msg.run
			return func() tea.Msg { r.Stop(); return nil }
		}
		return nil
	}
	m.starting = false
	if msg.err != nil {
		m.startErr = msg.err
		m.setStatus("not started: "+msg.err.Error(), true)
		return nil
	}
	m.run = msg.run
	m.resetPanes()
	m.snap = nil
	m.applySnapshot(m.run.Latest())
	m.setStatus("running "+msg.cfg.Env+" "+string(msg.cfg.Algo), false)
	return tea.Batch(waitEventCmd(m.gen, m.run.Events()), m.armTick())
}

// setConfig makes cfg the configuration of the run, shows it in the form
// and tells the narrative how it departs from the walkthrough step's. Every
// change of m.cfg goes through here or switchMapping.
func (m *Model) setConfig(cfg engine.Config) {
	m.cfg = cfg
	m.form.Reset(cfg)
	// The form now shows what runs: no configuration left to preview.
	m.mapping.ClearPreview()
	m.syncDeparture()
}

// switchMapping asks the live run to switch to mapping, from the next
// gradient step, and makes the configuration follow. A form with edits
// not applied keeps them.
func (m *Model) switchMapping(mapping engine.Mapping) error {
	if !m.live() {
		return errors.New("no live run to switch")
	}
	m.run.SetMapping(mapping)
	m.mapping.SetStatus("switching to "+mapping.String()+" from the next gradient step…", false)
	m.cfg.Mapping = mapping
	if m.form.Dirty() {
		m.syncDeparture()
	} else {
		m.setConfig(m.cfg)
	}
	return nil
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.com.Keys
	m.hinted = true
	if m.pick != nil {
		return m.pickerKey(msg)
	}
	if d := scrollDelta(msg, k.ScrollUp, k.ScrollDown); m.helpOpen && d != 0 {
		m.scrollHelp(d)
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.helpOpen = !m.helpOpen
		m.helpOffset = 0
		return nil
	case key.Matches(msg, k.Presets):
		m.pick = newPresetPicker(m.com, m.opts.presets, m.presetName())
		return nil
	case key.Matches(msg, k.Export):
		return m.export()
	case key.Matches(msg, k.Back) && (m.helpOpen || m.zoomed):
		if m.helpOpen {
			m.helpOpen = false
		} else {
			m.zoomed = false
			m.relayout()
		}
		return nil
	case key.Matches(msg, k.NextPane):
		m.setFocus(m.paneAfter(1))
		return nil
	case key.Matches(msg, k.PrevPane):
		m.setFocus(m.paneAfter(-1))
		return nil
	case key.Matches(msg, k.NextStep):
		return m.moveStep(1)
	case key.Matches(msg, k.PrevStep):
		return m.moveStep(-1)
	case key.Matches(msg, k.Zoom):
		m.zoomed = !m.zoomed
		m.relayout()
		return nil
	case key.Matches(msg, k.Pause):
		m.run.Pause()
		m.paused = true
		m.tree.SetFrozen(true)
		m.setStatus("pausing…", false)
		return nil
	case key.Matches(msg, k.Resume):
		m.run.Resume()
		m.paused = false
		m.tree.SetFrozen(false)
		m.setStatus("resuming…", false)
		return m.armTick()
	case key.Matches(msg, k.Ended):
		m.setStatus("the run has ended: r runs it again", false)
		return nil
	case key.Matches(msg, k.Restart):
		if err := m.cfg.Validate(); err != nil {
			m.setStatus("cannot restart: "+err.Error()+" (fix it in the config pane)", true)
			return nil
		}
		m.setStatus("restarting…", false)
		return m.restart()
	}
	if m.helpOpen {
		return nil
	}
	switch m.focus {
	case paneConfig:
		return m.form.Update(msg)
	case paneTree:
		return m.tree.Update(msg)
	case panePipeline:
		return m.pipe.Update(msg)
	case paneMapping:
		return m.mapping.Update(msg, m.cfg)
	case paneNarrative:
		if key.Matches(msg, k.WalkPrev) || key.Matches(msg, k.WalkNext) {
			// The steps tell the user to step the walk: it steps from
			// here, and the tree pane shows it.
			return m.tree.Update(msg)
		}
		return m.narr.Update(msg)
	}
	return nil
}

// scrollHelp scrolls the full help d lines; fullHelp keeps it from
// scrolling past its end, which only drawing it knows.
func (m *Model) scrollHelp(d int) { m.helpOffset = max(m.helpOffset+d, 0) }

// pickerKey hands a key to the open preset picker; ctrl+c still quits.
func (m *Model) pickerKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.pick.keys.Quit) {
		return tea.Quit
	}
	switch m.pick.Update(msg) {
	case pickerClosed:
		m.pick = nil
	case pickerChosen:
		p, _ := m.pick.Selected()
		m.pick = nil
		return m.startPreset(p)
	}
	return nil
}

// presetName is the name of the preset the explorer runs, "" for none.
func (m *Model) presetName() string {
	if m.opts.preset != nil {
		return m.opts.preset.Name
	}
	return ""
}

// startPreset makes p the explorer's preset and starts it, as if rlx had
// been started with --preset p (the command line's overrides applied): a
// run preset's configuration, or a walkthrough's or an experiment's first
// step with its narrative.
func (m *Model) startPreset(p engine.Preset) tea.Cmd {
	cfg := m.enterPreset(&p)
	m.origin = presetOrigin(&p, cfg)
	if err := cfg.Validate(); err != nil {
		// Presets are checked when loaded; one handed in unchecked says
		// what is wrong in the form, where it can be fixed.
		m.setConfig(cfg)
		m.showInvalid(p.Name + " cannot run: " + err.Error())
		return nil
	}
	return m.applyConfig(cfg, "started "+p.Name, "starting "+p.Kind+" "+p.Name+"…")
}

// presetOrigin is what the header compares the running configuration with
// to say whether it is still preset p's: p's own first configuration,
// before the command line's overrides (--set, --devices), which change
// the run as the form does. cfg is returned when there is no preset.
func presetOrigin(p *engine.Preset, cfg engine.Config) engine.Config {
	if p == nil {
		return cfg
	}
	return p.StepConfig(0).Defaults()
}

// enterPreset makes p (nil for none) the explorer's preset: walkthrough
// mode with the first step's narrative for a walkthrough or an
// experiment, the panes of a run otherwise. It returns the configuration
// p runs first, the command line's overrides applied (New runs the one it
// was given instead).
func (m *Model) enterPreset(p *engine.Preset) engine.Config {
	m.opts.preset = p
	m.wt = nil
	if p != nil {
		m.wt = newWalkthrough(*p, m.opts.override)
	}
	m.marked = [numPanes]bool{}
	m.zoomed = false
	if m.wt != nil {
		m.order, m.focus = walkthroughPanes, paneNarrative
		m.showStep()
		m.syncDeparture()
		return m.wt.cfgs[0]
	}
	m.order = basePanes
	if m.focus == paneNarrative {
		m.focus = paneTree
	}
	m.relayout()
	if p == nil {
		return engine.Config{}
	}
	cfg := p.StepConfig(0)
	if m.opts.override != nil {
		cfg = m.opts.override(cfg)
	}
	return cfg.Defaults()
}

// showInvalid says in the status why the configuration cannot run and
// puts the focus on the form's row at fault, where it can be fixed.
func (m *Model) showInvalid(status string) {
	m.setStatus(status, true)
	m.focus = paneConfig
	m.form.FocusError()
	m.relayout()
}

// exportedMsg is the outcome of an export (e).
type exportedMsg struct {
	dir   string
	files []string
	err   error
}

// export writes the run's results, if the run can (Exporter), in a
// command: drawing the plots takes a moment.
func (m *Model) export() tea.Cmd {
	ex, ok := m.run.(Exporter)
	if !ok {
		m.setStatus("this run cannot export its results (it is not an engine run)", true)
		return nil
	}
	m.setStatus("exporting…", false)
	return func() tea.Msg {
		dir, files, err := ex.Export()
		return exportedMsg{dir, files, err}
	}
}

func (m *Model) handleExported(msg exportedMsg) {
	if msg.err != nil {
		m.setStatus("export failed: "+msg.err.Error(), true)
		return
	}
	m.setStatus("wrote "+msg.dir+": "+strings.Join(msg.files, ", "), false)
}

// handleWheel scrolls the pane under the pointer (or the help over them)
// by one line per notch.
func (m *Model) handleWheel(mouse tea.Mouse) {
	d := 0
	switch mouse.Button {
	case tea.MouseWheelUp:
		d = -1
	case tea.MouseWheelDown:
		d = 1
	default:
		return
	}
	m.hinted = true
	switch {
	case m.pick != nil:
		m.pick.Move(d)
		return
	case m.helpOpen:
		m.scrollHelp(d)
		return
	}
	p, ok := m.lay.paneAt(mouse.X, mouse.Y)
	if !ok {
		return
	}
	if s, ok := m.pane(p).(scroller); ok {
		s.Scroll(d)
	}
}

// scroller is a pane the mouse wheel scrolls, by d lines.
type scroller interface{ Scroll(d int) }

// rowClicker is a pane whose rows a click selects: y is the inner line.
type rowClicker interface{ ClickRow(y int) }

// pane returns pane p's model.
func (m *Model) pane(p paneID) any {
	switch p {
	case paneTree:
		return m.tree
	case panePipeline:
		return m.pipe
	case paneCharts:
		return m.charts
	case paneMapping:
		return m.mapping
	case paneConfig:
		return m.form
	case paneNarrative:
		return m.narr
	}
	return nil
}

// paneAfter is the pane d steps from the focused one in focus order.
func (m *Model) paneAfter(d int) paneID {
	n := len(m.order)
	i := max(slices.Index(m.order, m.focus), 0)
	return m.order[((i+d)%n+n)%n]
}

// handleClick focuses the pane or tab under the pointer and, inside a
// pane whose rows can be chosen (the mapping list, the form), selects the
// row clicked; in the preset picker it selects the preset clicked.
func (m *Model) handleClick(mouse tea.Mouse) {
	if mouse.Button != tea.MouseLeft || m.helpOpen {
		return
	}
	m.hinted = true
	if m.pick != nil {
		r := m.overlayRect()
		m.pick.ClickRow(mouse.Y - r.Y - 1)
		return
	}
	p, ok := m.lay.paneAt(mouse.X, mouse.Y)
	if !ok {
		return
	}
	if p != m.focus {
		m.setFocus(p)
	}
	r := m.lay.panes[p]
	if !r.contains(mouse.X, mouse.Y) {
		return // a tab
	}
	if c, ok := m.pane(p).(rowClicker); ok {
		c.ClickRow(mouse.Y - r.Y - 1) // Update syncs the bindings after
	}
}

func (m *Model) setFocus(p paneID) {
	m.focus = p
	m.syncFocus()
	m.relayout()
}

// syncFocus tells the panes about the focus and enables the bindings that
// apply now.
func (m *Model) syncFocus() {
	m.form.SetFocused(m.focus == paneConfig)
	m.mapping.SetFocused(m.focus == paneMapping)
	f := m.form.current()
	m.com.Keys.sync(keyState{
		focus:    m.focus,
		live:     m.live(),
		paused:   m.paused,
		frozen:   (m.paused || !m.live()) && m.hasWalk(),
		picking:  m.form.Picking(),
		onChoice: f.kind == fieldChoice,
		onApply:  f.kind != fieldChoice,
		dirty:    m.form.Dirty(),
		zoomed:   m.zoomed,
		helpOpen: m.helpOpen,
		mapping:  m.mapping.HasMappings(),
		steps:    m.wt != nil,
		run:      m.run != nil,
		typing:   m.form.Typing(),
		canStep:  m.form.CanStep(),
		inText:   m.form.TypingText(),
		editing:  m.mapping.Editing(),
	})
}

// relayout recomputes the layout for the current size, focus and zoom and
// sizes the panes to their frames' insides.
func (m *Model) relayout() {
	w, h := m.com.Width, m.com.Height
	m.headerH = headerHeight(w)
	m.lay = computeLayout(w, h, layoutInput{headerH: m.headerH, focus: m.focus, zoomed: m.zoomed,
		order: m.order, marked: m.marked, narrative: m.wt != nil})
	inner := func(p paneID) (int, int) {
		r := m.lay.panes[p]
		if r.empty() {
			return 0, 0
		}
		return max(r.W-2, 0), max(r.H-2, 0)
	}
	m.tree.SetSize(inner(paneTree))
	m.pipe.SetSize(inner(panePipeline))
	m.charts.SetSize(inner(paneCharts))
	m.mapping.SetSize(inner(paneMapping))
	m.form.SetSize(inner(paneConfig))
	m.narr.SetSize(inner(paneNarrative))
	hint := "n next · p previous"
	if m.lay.shared {
		// The config is out of sight; say how to bring it back.
		hint = "shift+tab: config"
	}
	m.narr.SetHint(hint)
	m.help.SetWidth(w)
}
