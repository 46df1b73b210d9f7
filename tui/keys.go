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
		Restart:  b([]string{"r"}, "r", "restart run"),
		Help:     b([]string{"?"}, "?", "help"),
		Back:     b([]string{"esc"}, "esc", "back"),
		Quit:     b([]string{"q", "ctrl+c"}, "q", "quit"),

		NextStep: b([]string{"n"}, "n", "next step"),
		PrevStep: b([]string{"p"}, "p", "previous step"),

		FieldUp:   b([]string{"up", "ctrl+p"}, "↑", "previous field"),
		FieldDown: b([]string{"down", "ctrl+n"}, "↓", "next field"),
		Cycle:     b([]string{"right"}, "→", "next option"),
		CyclePrev: b([]string{"left"}, "←", "previous option"),
		Pick:      b([]string{"enter"}, "enter", "choose from list"),
		Apply:     b([]string{"enter", "ctrl+s"}, "enter", "apply and restart"),
		Revert:    b([]string{"esc"}, "esc", "revert edits"),

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

// ShortHelp is the one-line help: the enabled bindings of the focused pane
// first, then the global ones.
func (k *KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.FieldUp, k.FieldDown, k.CyclePrev, k.Pick, k.Apply, k.Revert,
		k.WalkPrev, k.WalkNext,
		k.ScrollUp, k.ScrollDown,
		k.MapDown, k.MapSwitch, k.MapAuto,
		k.NextStep, k.PrevStep,
		k.Pause, k.Resume, k.NextPane, k.Zoom, k.Restart, k.Help, k.Quit,
	}
}

// FullHelp is the full help (?): one column per concern. Disabled bindings
// are left out.
func (k *KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.NextPane, k.PrevPane, k.Zoom, k.Back, k.Help, k.Quit},
		{k.NextStep, k.PrevStep, k.Pause, k.Resume, k.Restart},
		{k.FieldUp, k.FieldDown, k.CyclePrev, k.Cycle, k.Pick, k.Apply, k.Revert},
		{k.WalkPrev, k.WalkNext, k.ScrollUp, k.ScrollDown},
		{k.MapUp, k.MapDown, k.MapSwitch, k.MapAuto},
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
	zoomed   bool
	helpOpen bool
	mapping  bool // the mapping pane has mappings to choose from
	steps    bool // walkthrough mode: there are steps to move between
}

// sync enables exactly the bindings that apply in st.
func (k *KeyMap) sync(st keyState) {
	form := st.focus == paneConfig && !st.helpOpen
	picking := form && st.picking
	form = form && !picking

	k.NextPane.SetEnabled(!picking)
	k.PrevPane.SetEnabled(!picking)
	k.Zoom.SetEnabled(!picking && !st.helpOpen)
	k.Pause.SetEnabled(st.live && !st.paused && !picking)
	k.Resume.SetEnabled(st.live && st.paused && !picking)
	k.Restart.SetEnabled(!picking)
	k.Help.SetEnabled(!picking)
	// n and p move between steps from any pane, also under the help (which
	// lists them); never in a picker, where keys belong to the list.
	k.NextStep.SetEnabled(st.steps && !picking)
	k.PrevStep.SetEnabled(st.steps && !picking)
	k.Back.SetEnabled(st.zoomed || st.helpOpen || picking)
	k.Quit.SetEnabled(true)
	if picking {
		// In the picker, q is not a quit key; ctrl+c still is.
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

	tree := st.focus == paneTree && !st.helpOpen
	k.WalkPrev.SetEnabled(tree && st.frozen)
	k.WalkNext.SetEnabled(tree && st.frozen)

	pipe := (st.focus == panePipeline || st.focus == paneNarrative) && !st.helpOpen
	k.ScrollUp.SetEnabled(pipe)
	k.ScrollDown.SetEnabled(pipe)

	mp := st.focus == paneMapping && !st.helpOpen && st.mapping
	k.MapUp.SetEnabled(mp)
	k.MapDown.SetEnabled(mp)
	k.MapSwitch.SetEnabled(mp && st.live)
	k.MapAuto.SetEnabled(mp && st.live)
}

// scrolled returns offset moved one line by a scroll key in msg, kept so
// that a pane of h rows showing lines lines never scrolls past its end.
func (k *KeyMap) scrolled(msg tea.KeyPressMsg, offset, lines, h int) int {
	switch {
	case key.Matches(msg, k.ScrollUp):
		return max(offset-1, 0)
	case key.Matches(msg, k.ScrollDown):
		return min(offset+1, max(lines-h, 0))
	}
	return offset
}
