package tui

import (
	"errors"
	"image/color"
	"reflect"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

func TestFocusCycles(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	seen := map[string]bool{}
	first := m.Focus()
	for range basePanes {
		seen[m.Focus()] = true
		press(m, "tab")
	}
	if len(seen) != len(basePanes) || m.Focus() != first || seen[paneTitles[paneNarrative]] {
		t.Errorf("tab visited %v and ended on %q, want the %d panes of a run and back to %q", seen, m.Focus(), len(basePanes), first)
	}
	press(m, "shift+tab")
	if m.Focus() != paneTitles[basePanes[len(basePanes)-1]] {
		t.Errorf("shift+tab from the first pane: %q, want the last", m.Focus())
	}
}

func TestClickFocuses(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	r := m.lay.panes[paneMapping]
	m.Update(tea.MouseClickMsg{X: r.X + 3, Y: r.Y + 2, Button: tea.MouseLeft})
	if m.focus != paneMapping {
		t.Errorf("click inside the mapping pane focused %v", m.focus)
	}

	// Compact: the tab bar switches panes.
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	tab := m.lay.tabHits[panePipeline]
	m.Update(tea.MouseClickMsg{X: tab.X + 1, Y: tab.Y, Button: tea.MouseLeft})
	if m.focus != panePipeline {
		t.Errorf("click on the Pipeline tab focused %v", m.focus)
	}
	if !strings.Contains(plain(m), "Pipeline occupancy") {
		t.Error("the compact view does not show the pane whose tab was clicked")
	}
}

func TestZoom(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 200, 60)
	startRun(t, m, st)
	if m.lay.compact || !m.lay.tabs.empty() {
		t.Fatal("200x60 should show every pane")
	}
	press(m, "z")
	r := m.lay.panes[m.focus]
	if r.W != 200 || r.H != 60-m.headerH-2 {
		t.Errorf("zoomed pane is %dx%d, want the whole body", r.W, r.H)
	}
	for p := range numPanes {
		if p != m.focus && !m.lay.panes[p].empty() {
			t.Errorf("pane %v still shown while zoomed", p)
		}
	}
	press(m, "esc")
	if m.zoomed || m.lay.panes[paneCharts].empty() {
		t.Error("esc did not return from the zoom")
	}
}

func TestPauseStopsTicking(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	if !m.ticking {
		t.Fatal("a live run is not being ticked")
	}
	press(m, "space")
	drain(m, r)
	if pauses, _, _ := r.calls(); pauses != 1 || !m.Paused() {
		t.Fatalf("space: %d Pause calls, paused %v", pauses, m.Paused())
	}
	// The tick in flight arrives and is not re-armed.
	_, cmd := m.Update(tickMsg{})
	if cmd != nil || m.ticking {
		t.Error("the explorer keeps ticking while paused")
	}
	if !strings.Contains(plain(m), "‖ paused") {
		t.Error("the header does not say paused")
	}
	press(m, "space")
	drain(m, r)
	if _, resumes, _ := r.calls(); resumes != 1 || m.Paused() || !m.ticking {
		t.Errorf("second space: %d Resume calls, paused %v, ticking %v", resumes, m.Paused(), m.ticking)
	}
	// A single tick chain: another resume event does not add a second one.
	if cmd := m.armTick(); cmd != nil {
		t.Error("armTick scheduled a second tick chain")
	}
}

func TestNoTickAfterEnd(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	r.Stop()
	drain(m, r)
	if m.live() {
		t.Fatal("the run is over but the model thinks it is live")
	}
	if _, cmd := m.Update(tickMsg{}); cmd != nil {
		t.Error("the explorer ticks after the run ended")
	}
	if !strings.Contains(plain(m), "■ stopped") {
		t.Error("the header does not say stopped")
	}
	if m.com.Keys.Pause.Enabled() || m.com.Keys.Resume.Enabled() {
		t.Error("pause/resume are enabled with no live run")
	}
}

func TestTickReadsLatest(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	next := r.publish(func(s *engine.Snapshot) { s.Sim.GPS = 99.5 })
	m.Update(tickMsg{})
	if m.Snapshot() != next {
		t.Fatal("the tick did not pick up the latest snapshot")
	}
	if !strings.Contains(plain(m), "sim 99.5 GPS") {
		t.Error("the header does not show the new simulated rate")
	}
}

// TestTickSurvivesRestart: the tick in flight when the run is restarted
// reads the new run and schedules the next; the restart starts no second
// tick chain beside it.
func TestTickSurvivesRestart(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	if !m.ticking {
		t.Fatal("a live run is not being ticked")
	}
	m.Update(press(m, "r")()) // the tick scheduled for the first run is still in flight
	second, _ := st.last()
	if len(st.runs) != 2 || m.run != LiveRun(second) {
		t.Fatal("r did not start a second run")
	}
	if cmd := m.armTick(); cmd != nil {
		t.Error("the restart scheduled a second tick chain beside the one in flight")
	}
	next := second.publish(func(s *engine.Snapshot) { s.Sim.GPS = 42.5 })
	if _, cmd := m.Update(tickMsg{}); cmd == nil || m.Snapshot() != next {
		t.Errorf("the tick in flight across the restart: next tick %v, read the new run %v", cmd != nil, m.Snapshot() == next)
	}
}

func TestWalkAnimatesThenSteps(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	m.setFocus(paneTree)
	levels := len(m.snap.Tree.Walk.Steps)
	press(m, "right")
	if m.tree.Step() != 0 {
		t.Error("←/→ stepped the walk while it animates")
	}
	for i := 1; i < levels; i++ {
		m.Update(tickMsg{})
		if m.tree.Step() != i {
			t.Fatalf("after %d ticks the walk is at level %d", i, m.tree.Step())
		}
	}
	press(m, "space")
	drain(m, r)
	if m.tree.Step() != 0 {
		t.Errorf("pausing shows the paused snapshot's walk from the root, got level %d", m.tree.Step())
	}
	press(m, "right")
	press(m, "right")
	if m.tree.Step() != 2 {
		t.Errorf("two → while paused: level %d, want 2", m.tree.Step())
	}
	for range levels + 3 {
		press(m, "right")
	}
	if m.tree.Step() != levels-1 {
		t.Errorf("stepping past the leaf: level %d, want %d", m.tree.Step(), levels-1)
	}
	press(m, "left")
	if m.tree.Step() != levels-2 {
		t.Errorf("← : level %d, want %d", m.tree.Step(), levels-2)
	}
	if !strings.Contains(plain(m), "frozen") {
		t.Error("the tree pane does not say the walk is frozen")
	}
}

// focusField moves the form cursor to the row with the given key.
func focusField(t *testing.T, m *Model, key string) {
	t.Helper()
	m.setFocus(paneConfig)
	for range 2 * len(m.form.fields) {
		if m.form.current().key == key {
			return
		}
		press(m, "down")
	}
	t.Fatalf("no visible form row %q", key)
}

func TestFormRefusesInline(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	focusField(t, m, "batch")
	press(m, "ctrl+u")
	typeText(m, "70000")
	out := plain(m)
	if !strings.Contains(out, "batch 70000 is not allowed") || !strings.Contains(out, "1..65536") {
		t.Errorf("out-of-range batch is not refused inline:\n%s", out)
	}
	runCmd(m, press(m, "enter"))
	if _, cfgs := st.last(); len(cfgs) != 1 {
		t.Fatalf("an invalid form was applied: %d starts", len(cfgs))
	}
	// Letters never reach a number field.
	typeText(m, "x")
	if v := m.form.value("batch"); v != "70000" {
		t.Errorf("batch field is %q after typing a letter", v)
	}

	press(m, "ctrl+u")
	typeText(m, "8192")
	if strings.Contains(plain(m), "not allowed") {
		t.Error("a valid batch is still refused")
	}
	runCmd(m, press(m, "enter"))
	r, cfgs := st.last()
	if len(cfgs) != 2 || cfgs[1].Batch != 8192 || cfgs[1].Env != "Hopper-workload" {
		t.Fatalf("apply started %+v", cfgs)
	}
	if m.Config().Batch != 8192 || m.run != r {
		t.Error("the model does not run the applied config")
	}
	if old := st.runs[0]; !isClosed(old.done) {
		t.Error("the previous run was not stopped on apply")
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestFormAlgorithmRules(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	focusField(t, m, "algo")
	// ddpg → td3 → ppo → dqn: dqn on Hopper is refused by Validate.
	for _, want := range []string{"td3", "ppo"} {
		press(m, "right")
		if got := m.form.value("algo"); got != want {
			t.Fatalf("→ on the algorithm gave %q, want %q", got, want)
		}
	}
	out := plain(m)
	if !strings.Contains(out, "horizon T") || strings.Contains(out, "capacity") {
		t.Error("PPO rows are not shown in place of the off-policy ones")
	}
	press(m, "right")
	if !strings.Contains(plain(m), "continuous actions") {
		t.Error("dqn on Hopper is not refused inline")
	}
	press(m, "esc")
	if m.form.value("algo") != "ddpg" || m.form.Dirty() {
		t.Error("esc did not revert the form to the running config")
	}
}

func TestFormPicker(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	focusField(t, m, "env")
	press(m, "enter")
	if !m.form.Picking() || !strings.Contains(plain(m), "choose environment") {
		t.Fatal("enter on the environment did not open its list")
	}
	// q does not quit inside the picker; ctrl+c still would.
	if cmd := press(m, "q"); cmd != nil {
		t.Error("q in the picker returned a command")
	}
	press(m, "down")
	press(m, "enter")
	envs := engine.Environments()
	want := envs[(indexOf(envs, "Hopper-workload")+1)%len(envs)]
	if m.form.Picking() || m.form.value("env") != want {
		t.Errorf("picked %q (picking %v), want %q", m.form.value("env"), m.form.Picking(), want)
	}
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestManualMappingInForm(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	focusField(t, m, keyMapMode)
	press(m, "right")
	focusField(t, m, keyMapRMM)
	press(m, "right") // G → F
	cfg, _, err := m.form.Config()
	if err != nil || cfg.Mapping.String() != "G-F-G" {
		t.Fatalf("manual mapping from the form: %q, %v", cfg.Mapping, err)
	}
	focusField(t, m, keyApply)
	runCmd(m, press(m, "enter"))
	if _, cfgs := st.last(); len(cfgs) != 2 || cfgs[1].Mapping.String() != "G-F-G" {
		t.Errorf("applied %+v", cfgs)
	}
}

func TestSwitchMapping(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	m.setFocus(paneMapping)
	press(m, "down")
	runCmd(m, press(m, "enter"))
	drain(m, r)
	if _, _, maps := r.calls(); len(maps) != 1 || maps[0] != "G-G-G" {
		t.Fatalf("SetMapping calls %v, want [G-G-G]", maps)
	}
	out := plain(m)
	if !strings.Contains(out, "mapping G-G-G (by hand)") {
		t.Errorf("the header does not show the new mapping:\n%s", out)
	}
	// The Table V speedups are the DSE choice's; a mapping set by hand is
	// measured against that choice.
	if !strings.Contains(out, "fastest predicted G-F-G: ×") || strings.Contains(out, "over 2nd best") {
		t.Errorf("the mapping pane does not compare G-G-G with the DSE's choice:\n%s", out)
	}
	if !strings.Contains(m.Status(), "mapping → G-G-G") {
		t.Errorf("status %q does not announce the change", m.Status())
	}
	if m.Config().Mapping.String() != "G-G-G" {
		t.Errorf("a restart would not keep the mapping: %q", m.Config().Mapping)
	}
	runCmd(m, press(m, "a"))
	if _, _, maps := r.calls(); len(maps) != 2 || maps[1] != "auto" {
		t.Errorf("a: SetMapping calls %v", maps)
	}
}

func TestRestartAndStartFailure(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	first := startRun(t, m, st)
	gen := m.gen
	cmd := press(m, "r")
	if cmd == nil || m.run != nil || !m.starting {
		t.Fatal("r did not begin a restart")
	}
	st.err = errors.New("device spec not found")
	m.Update(cmd())
	if !isClosed(first.done) {
		t.Error("restart did not stop the old run")
	}
	if m.run != nil || !strings.Contains(m.Status(), "device spec not found") {
		t.Errorf("start failure: run %v, status %q", m.run, m.Status())
	}
	if !strings.Contains(plain(m), "✗ not running") {
		t.Error("the header does not say nothing runs")
	}
	// Events of the replaced run are drained, not applied.
	if _, cmd := m.Update(eventMsg{gen: gen, events: first.events, ev: engine.Event{Kind: engine.EventFailed}}); cmd == nil {
		t.Error("a replaced run's event channel is not drained")
	}
	if strings.Contains(m.Status(), "failed") {
		t.Error("an event of a replaced run changed the status")
	}
}

func TestQuit(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m, st := newTestModel(t, hopperConfig(), 120, 40)
		startRun(t, m, st)
		cmd := press(m, k)
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s did not quit", k)
		}
	}
}

func TestBackground(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	dark := content(m)
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.com.Styles.Dark {
		t.Fatal("a white background gave dark styles")
	}
	raw := m.View().Content
	if ascii(raw) != dark {
		t.Error("the light theme changes the text, not only the colours")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if !m.com.Styles.Dark || m.View().Content == raw {
		t.Error("switching to a dark background did not change the colours")
	}
}

func TestHelpToggles(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	press(m, "?")
	out := plain(m)
	if !strings.Contains(out, "Help: every key") || !strings.Contains(out, "restart run") {
		t.Fatal("? did not open the full help")
	}
	// Every key, whichever pane has the focus: the mapping pane's, the
	// zoom, the mouse, the way to the config.
	for _, want := range []string{"run this mapping", "zoom", "wheel", "Change the run", "pick a preset", "export results"} {
		if !strings.Contains(out, want) {
			t.Errorf("the help does not list %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "Sum tree (focused)"), strings.Index(out, "Everywhere"); i < 0 || i > j {
		t.Errorf("the focused pane's keys do not come first (%d, %d)", i, j)
	}
	press(m, "esc")
	if m.helpOpen {
		t.Error("esc did not close the help")
	}
	m.setFocus(paneMapping)
	press(m, "?")
	if out := plain(m); !strings.Contains(out, "Mapping (focused)") {
		t.Errorf("the help does not mark the mapping pane focused:\n%s", out)
	}
}

// TestHelpHasEveryBinding: each section of the full help lists the keys
// of every binding that belongs to it, so a binding added to a pane and
// left out of ? fails here.
func TestHelpHasEveryBinding(t *testing.T) {
	for _, walkthrough := range []bool{false, true} {
		var m *Model
		if walkthrough {
			m, _, _ = newTourModel(t, 120, 40)
		} else {
			m, _ = newTestModel(t, hopperConfig(), 120, 40)
		}
		sections := map[string][]string{}
		for _, s := range m.helpSections() {
			title := strings.TrimSuffix(s.title, " (focused)")
			for _, e := range s.entries {
				sections[title] = append(sections[title], strings.Fields(e.keys)...)
			}
		}
		k, e := m.com.Keys, &m.mapping.keys
		want := map[string][]key.Binding{
			"Everywhere":              {k.NextPane, k.PrevPane, k.Pause, k.Restart, k.Export, k.Zoom, k.Help, k.Quit},
			"Change the run":          {k.Presets},
			paneTitles[paneTree]:      {k.WalkPrev, k.WalkNext},
			paneTitles[panePipeline]:  {k.ScrollUp, k.ScrollDown},
			paneTitles[paneCharts]:    {k.Zoom},
			paneTitles[paneMapping]:   {k.MapUp, k.MapDown, k.MapSwitch, k.MapAuto, e.Devices, e.ParamUp, e.ParamDown, e.Less, e.More, e.Reset, e.Apply, e.Save, e.Close},
			paneTitles[paneConfig]:    {k.FieldUp, k.FieldDown, k.Cycle, k.CyclePrev, k.StepUp, k.StepDown, k.Pick, k.Apply, k.Revert},
			paneTitles[paneNarrative]: nil,
		}
		if walkthrough {
			want["Everywhere"] = append(want["Everywhere"], k.NextStep, k.PrevStep)
			want[paneTitles[paneNarrative]] = []key.Binding{k.ScrollUp, k.ScrollDown, k.WalkPrev, k.WalkNext}
		}
		// Every binding of the key maps is in want, but for those that
		// share their keys and their line with one there: a binding
		// added to a pane must be placed here, and so in the help.
		listed := map[key.Help]bool{}
		for _, bs := range want {
			for _, b := range bs {
				listed[b.Help()] = true
			}
		}
		sharesALine := map[string]bool{"Back": true, "Resume": true, "Ended": true}
		for _, km := range []any{k, e} {
			v := reflect.ValueOf(km).Elem()
			for i := range v.NumField() {
				b, ok := v.Field(i).Interface().(key.Binding)
				name := v.Type().Field(i).Name
				if ok && !sharesALine[name] && !listed[b.Help()] && (walkthrough || (name != "NextStep" && name != "PrevStep")) {
					t.Errorf("walkthrough %v: binding %s (%s) is in no section of the help's test", walkthrough, name, b.Help().Key)
				}
			}
		}
		// Counted: the mapping list and the editor both use ↑/k, and
		// each needs its line.
		for title, bs := range want {
			need := map[string]int{}
			for _, b := range bs {
				for _, one := range strings.Fields(b.Help().Key) {
					need[one]++
				}
			}
			for one, n := range need {
				if got := countOf(sections[title], one); got < n {
					t.Errorf("walkthrough %v: the help's %q section lists %q %d times, want %d; it has %v", walkthrough, title, one, got, n, sections[title])
				}
			}
		}
	}
}

func countOf(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

// TestSpaceOnAnEndedRunSaysSo: space does nothing once the run has ended,
// and the status says why and what does.
func TestSpaceOnAnEndedRunSaysSo(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	// Before the first run has started, nothing has ended.
	press(m, "space")
	if s := m.Status(); strings.Contains(s, "ended") {
		t.Errorf("space while the first run starts: status %q", s)
	}
	r := startRun(t, m, st)
	r.Stop()
	drain(m, r)
	press(m, "space")
	if s := m.Status(); !strings.Contains(s, "the run has ended: r runs it again") {
		t.Errorf("space on an ended run: status %q", s)
	}
}
