package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap holds every key binding of the explorer. Bindings that do not apply
// in the current state (another pane has the focus, the run is not live,
// the walk cannot be stepped while running, n and p outside a walkthrough)
// are disabled, so that they neither match nor show in the help.
type KeyMap struct {
	// Global.
	NextPane key.Binding
	PrevPane key.Binding
	Zoom     key.Binding
	Pause    key.Binding
	Resume   key.Binding
	Restart  key.Binding
	Help     key.Binding
	Back     key.Binding
	Quit     key.Binding
	// Ended is space once the run is over: nothing to pause, so the
	// status says so and what restarts it.
	Ended   key.Binding
	Presets key.Binding // the preset picker
	Export  key.Binding // write the run's results

	// Walkthrough mode only: the next and the previous step.
	NextStep key.Binding
	PrevStep key.Binding

	// Config form.
	FieldUp   key.Binding
	FieldDown key.Binding
	Cycle     key.Binding // choose the previous/next option of a list field
	CyclePrev key.Binding
	Pick      key.Binding // open the list of a choice field
	Apply     key.Binding
	Revert    key.Binding
	StepUp    key.Binding // + : a larger number, the next option
	StepDown  key.Binding // - : a smaller number, the previous option

	// Sum tree (when the walk is frozen: paused or over).
	WalkPrev key.Binding
	WalkNext key.Binding

	// Pipeline and walkthrough narrative.
	ScrollUp   key.Binding
	ScrollDown key.Binding

	// Mapping.
	MapUp     key.Binding
	MapDown   key.Binding
	MapSwitch key.Binding
	MapAuto   key.Binding
}

// DefaultKeyMap returns the explorer's key bindings.
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return &KeyMap{
		NextPane: b([]string{"tab"}, "tab", "next pane"),
		PrevPane: b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Zoom:     b([]string{"z"}, "z", "zoom pane"),
		Pause:    b([]string{"space"}, "space", "pause"),
		Resume:   b([]string{"space"}, "space", "resume"),
		Ended:    b([]string{"space"}, "space", "the run is over"),
		Restart:  b([]string{"r"}, "r", "restart run"),
		Help:     b([]string{"?"}, "?", "help"),
		Back:     b([]string{"esc"}, "esc", "back"),
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),
		Presets:  b([]string{"/"}, "/", "presets"),
		Export:   b([]string{"e"}, "e", "export results"),

		NextStep: b([]string{"n"}, "n", "next step"),
		PrevStep: b([]string{"p"}, "p", "previous step"),

		FieldUp:   b([]string{"up", "ctrl+p"}, "↑", "previous field"),
		FieldDown: b([]string{"down", "ctrl+n"}, "↓", "next field"),
		Cycle:     b([]string{"right"}, "→", "next option"),
		CyclePrev: b([]string{"left"}, "←", "previous option"),
		Pick:      b([]string{"enter"}, "enter", "choose from list"),
		Apply:     b([]string{"enter", "ctrl+s"}, "enter", "apply and restart"),
		Revert:    b([]string{"esc"}, "esc", "revert edits"),
		StepUp:    b([]string{"+"}, "+", "step up"),
		StepDown:  b([]string{"-"}, "-", "step down"),

		WalkPrev: b([]string{"left", "h"}, "←/h", "walk level up"),
		WalkNext: b([]string{"right", "l"}, "→/l", "walk level down"),

		ScrollUp:   b([]string{"up", "k"}, "↑/k", "scroll up"),
		ScrollDown: b([]string{"down", "j"}, "↓/j", "scroll down"),

		MapUp:     b([]string{"up", "k"}, "↑/k", "select mapping"),
		MapDown:   b([]string{"down", "j"}, "↓/j", "select mapping"),
		MapSwitch: b([]string{"enter"}, "enter", "run this mapping"),
		MapAuto:   b([]string{"a"}, "a", "back to auto"),
	}
}

// ShortHelp is the one-line help: ? and q, the enabled bindings of the
// focused pane, then the global ones.
func (k *KeyMap) ShortHelp() []key.Binding {
	// Help and quit first: the line is cut at the terminal's width, and
	// those two must always show.
	return []key.Binding{
		k.Help, k.Quit,
		k.FieldUp, k.FieldDown, k.CyclePrev, k.StepUp, k.StepDown, k.Pick, k.Apply, k.Revert,
		k.WalkPrev, k.WalkNext,
		k.ScrollUp, k.ScrollDown,
		k.MapDown, k.MapSwitch, k.MapAuto,
		k.NextStep, k.PrevStep,
		k.Pause, k.Resume, k.Presets, k.NextPane, k.Zoom, k.Restart, k.Export,
	}
}

// keyState is what decides which bindings apply.
type keyState struct {
	focus    paneID
	live     bool // a run exists and has not ended
	paused   bool
	frozen   bool // the walk is steppable: paused, or the run is over
	picking  bool // a list picker is open in the config form
	onChoice bool // the form cursor is on a choice field
	onApply  bool // the form cursor is on a field that applies with enter
	dirty    bool // the form differs from the running config
	typing   bool // the form cursor is in a field that takes typed text (q types there)
	canStep  bool // + and - step the form row under the cursor
	inText   bool // the form cursor is in a free-text field (a path): every printable key types there
	zoomed   bool
	helpOpen bool
	mapping  bool // the mapping pane has mappings to choose from
	steps    bool // walkthrough mode: there are steps to move between
	run      bool // a run exists (live or over): there are results to export
	editing  bool // the mapping pane's devices editor is open: its keys are its own
}

// sync enables exactly the bindings that apply in st.
func (k *KeyMap) sync(st keyState) {
	form := st.focus == paneConfig && !st.helpOpen
	picking := form && st.picking
	form = form && !picking

	k.NextPane.SetEnabled(!picking)
	k.PrevPane.SetEnabled(!picking)
	// In a picker, and in a free-text field where every printable key
	// types, the one-key bindings are off.
	letters := !picking && !(form && st.inText)
	k.Zoom.SetEnabled(letters && !st.helpOpen)
	k.Pause.SetEnabled(st.live && !st.paused && letters)
	k.Resume.SetEnabled(st.live && st.paused && letters)
	k.Ended.SetEnabled(st.run && !st.live && letters)
	k.Restart.SetEnabled(letters)
	k.Help.SetEnabled(letters)
	k.Presets.SetEnabled(letters && !st.helpOpen)
	k.Export.SetEnabled(letters && !st.helpOpen && st.run)
	// n and p move between steps from any pane, also under the help (which
	// lists them); never where keys type.
	k.NextStep.SetEnabled(st.steps && letters)
	k.PrevStep.SetEnabled(st.steps && letters)
	// esc leaves the help, the form's list and the zoom, in that order,
	// but in the open devices editor it closes the editor first (its
	// Close key): the zoom is left with the next esc.
	k.Back.SetEnabled((st.zoomed && !(st.focus == paneMapping && st.editing)) || st.helpOpen || picking)
	k.Quit.SetEnabled(true)
	if picking || (form && st.typing) {
		// In the picker and in a field being typed into, q is not a
		// quit key; ctrl+c still is.
		k.Quit.SetKeys("ctrl+c")
		k.Quit.SetHelp("ctrl+c", "quit")
	} else {
		k.Quit.SetKeys("q", "ctrl+c")
		k.Quit.SetHelp("q", "quit")
	}

	k.FieldUp.SetEnabled(form || picking)
	k.FieldDown.SetEnabled(form || picking)
	k.Cycle.SetEnabled(form && st.onChoice)
	k.CyclePrev.SetEnabled(form && st.onChoice)
	k.Pick.SetEnabled((form && st.onChoice) || picking)
	if picking {
		k.Pick.SetHelp("enter", "select")
	} else {
		k.Pick.SetHelp("enter", "choose from list")
	}
	k.Apply.SetEnabled(form && st.onApply)
	k.Revert.SetEnabled(form && st.dirty)
	k.StepUp.SetEnabled(form && st.canStep)
	k.StepDown.SetEnabled(form && st.canStep)

	// The walk steps from the tree and from a walkthrough's narrative,
	// whose steps tell the user to step it (the narrative scrolls with
	// ↑/↓ only, so ←/→ are free there).
	tree := (st.focus == paneTree || st.focus == paneNarrative) && !st.helpOpen
	k.WalkPrev.SetEnabled(tree && st.frozen)
	k.WalkNext.SetEnabled(tree && st.frozen)

	// ↑/↓ scroll the pipeline, the narrative and the help over the panes.
	pipe := (st.focus == panePipeline || st.focus == paneNarrative) || st.helpOpen
	k.ScrollUp.SetEnabled(pipe)
	k.ScrollDown.SetEnabled(pipe)

	mp := st.focus == paneMapping && !st.helpOpen && st.mapping && !st.editing
	k.MapUp.SetEnabled(mp)
	k.MapDown.SetEnabled(mp)
	k.MapSwitch.SetEnabled(mp && st.live)
	k.MapAuto.SetEnabled(mp && st.live)
}

// scrollDelta is how far a key scrolls: -1 for up, +1 for down, 0 for
// any other key. Every scrolling pane's keys and the help's go through it
// to the pane's Scroll, which the mouse wheel calls too.
func scrollDelta(msg tea.KeyPressMsg, up, down key.Binding) int {
	switch {
	case key.Matches(msg, up):
		return -1
	case key.Matches(msg, down):
		return 1
	}
	return 0
}

// scrolled is offset moved d lines, kept so that a pane of h rows showing
// lines lines never scrolls past its end.
func scrolled(offset, d, lines, h int) int { return min(max(offset+d, 0), max(lines-h, 0)) }
