package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// walkthrough is the state of walkthrough mode: the preset, the
// configuration of each of its steps (the command line's overrides
// applied) and the step shown.
type walkthrough struct {
	preset  engine.Preset
	cfgs    []engine.Config // step i's configuration, defaults filled in
	changes []string        // what step i changes from the step before (step 0: from the preset's run)
	step    int
}

// newWalkthrough returns the walkthrough of p, or nil when p has no steps
// to walk through (a preset of kind run, or none). override changes each
// step's configuration (the budget and seed flags); nil leaves it as is.
func newWalkthrough(p engine.Preset, override func(engine.Config) engine.Config) *walkthrough {
	if (p.Kind != engine.KindWalkthrough && p.Kind != engine.KindExperiment) || len(p.Steps) == 0 {
		return nil
	}
	if override == nil {
		override = func(c engine.Config) engine.Config { return c }
	}
	w := &walkthrough{preset: p}
	all := p.StepConfigs() // one pass over the steps, not one per step
	prev := override(all[0]).Defaults()
	for i := range p.Steps {
		cfg := override(all[i+1]).Defaults()
		w.cfgs = append(w.cfgs, cfg)
		w.changes = append(w.changes, joinChanges(configChanges(prev, cfg)))
		prev = cfg
	}
	return w
}

// label is "step i of n" for the step shown.
func (w *walkthrough) label() string { return fmt.Sprintf("step %d of %d", w.step+1, len(w.cfgs)) }

// Step returns the index of the walkthrough step shown, or -1 outside
// walkthrough mode.
func (m *Model) Step() int {
	if m.wt == nil {
		return -1
	}
	return m.wt.step
}

// moveStep moves to the step delta away, clamped at the ends, and makes the
// run follow it: a step that changes only the mapping switches the live
// run's mapping, one that changes nothing keeps the run, any other
// restarts it with the step's configuration (as the config form's apply
// does).
func (m *Model) moveStep(delta int) tea.Cmd {
	wt := m.wt
	n := len(wt.cfgs)
	i := wt.step + delta
	switch {
	case i < 0:
		m.setStatus(fmt.Sprintf("first step (1 of %d): n goes on", n), false)
		return nil
	case i >= n:
		m.setStatus(fmt.Sprintf("last step (%d of %d): p goes back", n, n), false)
		return nil
	}
	wt.step = i
	m.showStep()

	next, label := wt.cfgs[i], wt.label()
	if err := next.Validate(); err != nil {
		// The rlx command checks every step before it opens the explorer;
		// a preset handed in unchecked says what is wrong in the form,
		// where it can be fixed, and the run goes on.
		m.setConfig(next)
		m.setStatus(label+" cannot run: "+err.Error(), true)
		return nil
	}
	changes := configChanges(m.cfg, next)
	switch {
	case len(changes) == 0:
		// Nothing the run uses differs: no reason to lose its history.
		m.setConfig(next)
		m.setStatus(label+": the same run goes on", false)
		return nil
	case len(changes) == 1 && changes[0].field == "mapping" && m.live():
		// Only the mapping: the engine switches it from the next gradient
		// step, so the charts show the change in one run.
		if m.switchMapping(next.Mapping) == nil {
			m.setConfig(next) // the step's form, edits or not
			m.setStatus(label+": mapping → "+next.Mapping.String()+" without a restart", false)
			return nil
		}
	}
	return m.applyConfig(next, label+": restarting the run",
		label+": restarting with "+joinChanges(changes))
}

// showStep hands the narrative the step shown and marks the panes it is
// about.
func (m *Model) showStep() {
	wt := m.wt
	s := wt.preset.Steps[wt.step]
	m.marked = [numPanes]bool{}
	for _, name := range s.Panes {
		if p, ok := paneByName[name]; ok {
			m.marked[p] = true
		}
	}
	var names []string
	for _, p := range basePanes {
		if m.marked[p] {
			names = append(names, markGlyph+" "+paneShort[p])
		}
	}
	m.narr.SetStep(wt.label(), s, wt.changes[wt.step], strings.Join(names, "  "))
	m.relayout()
}

// syncDeparture tells the narrative whether, and how, the run's
// configuration departs from the step's (edited in the form, or a mapping
// switched by hand).
func (m *Model) syncDeparture() {
	if m.wt == nil {
		return
	}
	m.narr.SetDeparted(joinChanges(configChanges(m.wt.cfgs[m.wt.step], m.cfg)))
}

// configChange is one field that differs between two configurations.
type configChange struct{ field, from, to string }

func (c configChange) String() string { return c.field + " " + c.from + " → " + c.to }

// configChanges lists the fields that differ from a to b (both with their
// defaults filled in), leaving out the fields neither one's algorithm
// uses. It allocates nothing when they are equal.
func configChanges(a, b engine.Config) []configChange {
	if a == b {
		return nil
	}
	var out []configChange
	for _, f := range engine.Fields() {
		if f.LabelOnly || !f.UsedBy(a.Algo) && !f.UsedBy(b.Algo) {
			continue
		}
		if x, y := a.Get(f.Name), b.Get(f.Name); x != y {
			out = append(out, configChange{f.Name, x, y})
		}
	}
	return out
}

// joinChanges is "batch 16384 → 4096 · mapping auto → G-G-G".
func joinChanges(cs []configChange) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, " · ")
}
