package tui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

var errNilRun = errors.New("the starter returned no run and no error")

// Model is the explorer's root tea.Model. It owns the live run, the focus,
// the layout and the panes, reads the run's latest snapshot on a bounded
// tick while the run is live, and hands it to the panes, which render it.
// It computes nothing of the model: every figure of the run comes from
// the snapshot, and those of a configuration not running (the mapping
// pane's preview and its devices editor) from the engine's predictions
// (engine.Predictor, engine.PlatformDraft).
//
// Use it through Run; New is exported for tests and embedding.
type Model struct {
	ctx   context.Context
	start Starter
	opts  options
	com   *common
	help  help.Model

	cfg      engine.Config // the configuration of the current (or next) run
	gen      int           // bumps on every (re)start
	run      LiveRun
	snap     *engine.Snapshot // the newest snapshot shown
	starting bool             // a start is in flight
	startErr error            // why the last start failed
	ended    bool             // the run's event stream has closed
	paused   bool             // paused by the user (or the run says so)
	ticking  bool             // a tick is in flight (of this run or an earlier one)
	status   string
	bad      bool // status is an error

	focus    paneID
	order    []paneID // the panes in focus order
	zoomed   bool
	helpOpen bool
	// helpOffset is the first line of the full help shown.
	helpOffset int
	// pick is the preset picker (/), nil when closed.
	pick *presetPicker
	// hinted is set once the user has pressed a key: until then the
	// footer says how to change the run.
	hinted bool
	// origin is the run preset's own configuration, before the command
	// line's overrides (presetOrigin), or the configuration the explorer
	// was given without a preset: the header names the preset only while
	// the run is it. Walkthroughs head with their step instead.
	origin  engine.Config
	lay     layout
	headerH int

	frames [numPanes]viewCache[frameKey]

	tree    *treePane
	pipe    *pipelinePane
	charts  *chartsPane
	mapping *mappingPane
	form    *configForm

	// Walkthrough mode (nil otherwise): the steps, the narrative and the
	// panes the step shown is about.
	wt     *walkthrough
	narr   *narrativePane
	marked [numPanes]bool
}

// frameKey is what a pane's framed rendering depends on: its content, note,
// size, focus, walkthrough mark and styles.
type frameKey struct {
	content, note string
	w, h          int
	focused       bool
	marked        bool
	styles        *Styles
}

// New returns the explorer's root model for cfg; its Init starts the run
// through start (unless cfg is invalid: then the config form shows why and
// has the focus). ctx bounds every run it starts.
//
// With WithPreset and a walkthrough or experiment, cfg is the first step's
// configuration and the explorer opens on that step's narrative.
func New(ctx context.Context, start Starter, cfg engine.Config, opts ...Option) *Model {
	m := &Model{
		ctx:   ctx,
		start: start,
		opts:  newOptions(opts),
		com:   &common{Styles: NewStyles(true), Keys: DefaultKeyMap()},
		help:  help.New(),
		cfg:   cfg.Defaults(),
		focus: paneTree,
		order: basePanes,
	}
	m.help.Styles = m.com.Styles.Help
	m.form = newConfigForm(m.com, m.cfg)
	m.narr = newNarrativePane(m.com)
	m.mapping = newMappingPane(m.com)
	m.resetPanes()
	// cfg is the preset's (or its first step's) as the caller applied its
	// overrides: the explorer runs it as given.
	m.enterPreset(m.opts.preset)
	m.origin = presetOrigin(m.opts.preset, m.cfg)
	if err := m.cfg.Validate(); err != nil {
		m.startErr = err
		m.showInvalid("not started: " + err.Error())
	}
	m.syncFocus()
	return m
}

// resetPanes gives a new run fresh panes (their caches are keyed by the
// snapshot sequence, which restarts with every run). The mapping pane is
// kept and reset: it holds requests in flight and a preview of the form's
// configuration, which outlive a run.
func (m *Model) resetPanes() {
	m.tree = newTreePane(m.com)
	m.pipe = newPipelinePane(m.com)
	m.charts = newChartsPane(m.com)
	m.mapping.NewRun()
	m.relayout()
}

// Init asks for the terminal background and starts the first run.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if m.startErr == nil {
		cmds = append(cmds, m.restart())
	}
	return tea.Batch(cmds...)
}

// restart stops the current run (in a command) and starts one of m.cfg.
func (m *Model) restart() tea.Cmd {
	m.gen++
	old := m.run
	m.run, m.ended, m.paused, m.startErr = nil, false, false, nil
	m.starting = true
	return startCmd(m.ctx, m.start, m.gen, old, m.cfg, m.opts.stopWait)
}

// tickEvery is the snapshot read period.
func (m *Model) tickEvery() time.Duration { return time.Second / time.Duration(m.opts.redrawHz) }

// hasWalk reports whether the run has a sum-tree walk to step: a PPO run
// learns from its rollout, without prioritized replay.
func (m *Model) hasWalk() bool { return !m.cfg.Algo.OnPolicy() }

// live reports whether a run exists and has not ended.
func (m *Model) live() bool {
	return m.run != nil && !m.ended && (m.snap == nil || !m.snap.State.Done())
}

// armTick schedules a tick unless one is scheduled or nothing is live:
// the explorer does not tick while idle or paused.
func (m *Model) armTick() tea.Cmd {
	if m.ticking || !m.live() || m.paused {
		return nil
	}
	m.ticking = true
	return tickCmd(m.tickEvery())
}

// applySnapshot hands s to every pane.
func (m *Model) applySnapshot(s *engine.Snapshot) {
	if s == nil {
		return
	}
	m.snap = s
	if s.State == engine.Paused {
		m.paused = true
	}
	m.tree.SetFrozen(m.paused || s.State.Done())
	m.tree.SetSnapshot(s)
	m.pipe.SetSnapshot(s)
	m.charts.SetSnapshot(s)
	m.mapping.SetSnapshot(s)
}

func (m *Model) setStatus(s string, bad bool) { m.status, m.bad = s, bad }

// stopAndWait stops the live run and waits up to d for it to end.
func (m *Model) stopAndWait(d time.Duration) {
	if m.run == nil {
		return
	}
	m.run.Stop()
	select {
	case <-m.run.Done():
	case <-time.After(d):
	}
}

// Focus returns the focused pane's title (for tests and embedding).
func (m *Model) Focus() string { return m.focus.String() }

// Config returns the configuration of the current (or next) run.
func (m *Model) Config() engine.Config { return m.cfg }

// Paused reports whether the run is paused.
func (m *Model) Paused() bool { return m.paused }

// Snapshot returns the newest snapshot shown, nil before the first.
func (m *Model) Snapshot() *engine.Snapshot { return m.snap }

// Status returns the status line (the latest event or error).
func (m *Model) Status() string { return m.status }
