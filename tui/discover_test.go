package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// TestWalkthroughArrowsStepTheWalk is why-kary's first step as a user
// does it: the narrative has the focus, the step says to pause and step
// the walk with the arrow keys, and they must.
func TestWalkthroughArrowsStepTheWalk(t *testing.T) {
	m, _, r := newTourModel(t, 120, 40)
	if m.Focus() != paneTitles[paneNarrative] {
		t.Fatalf("focus %q, want the narrative", m.Focus())
	}
	press(m, "space")
	drain(m, r)
	if !strings.Contains(m.Status(), "←/→ step the walk") {
		t.Errorf("the paused status does not say how to step the walk: %q", m.Status())
	}
	before := m.tree.Step()
	press(m, "right")
	press(m, "right")
	if got := m.tree.Step(); got != before+2 {
		t.Errorf("→ from the narrative moved the walk from level %d to %d, want %d", before, got, before+2)
	}
	press(m, "left")
	if got := m.tree.Step(); got != before+1 {
		t.Errorf("← from the narrative left the walk at level %d, want %d", got, before+1)
	}
}

// TestPausedStatusSaysHowToReachTheWalk: paused from a pane where ←/→ do
// something else, the status says how to reach the tree.
func TestPausedStatusSaysHowToReachTheWalk(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	r := startRun(t, m, st)
	m.setFocus(paneConfig)
	press(m, "space")
	drain(m, r)
	if s := m.Status(); !strings.Contains(s, "tab to it") {
		t.Errorf("paused from the config, the status does not say how to reach the walk: %q", s)
	}
	// A PPO run has no sum tree: the status does not send the user there.
	m, st = newTestModel(t, engine.Config{Env: "CartPole-v1", Algo: engine.PPO}, 120, 40)
	r = startRun(t, m, st)
	m.setFocus(paneMapping)
	press(m, "space")
	drain(m, r)
	if s := m.Status(); !strings.HasPrefix(s, "paused") || strings.Contains(s, "walk") {
		t.Errorf("a paused PPO run's status %q, want paused and no sum-tree walk", s)
	}
	m.setFocus(paneTree)
	if m.com.Keys.WalkPrev.Enabled() || m.com.Keys.WalkNext.Enabled() {
		t.Error("a paused PPO run offers ←/→ to step a walk it does not have")
	}
}

// TestFirstScreenSaysHowToChangeTheRun: before any key, the footer says
// where the run is changed; the first key replaces it with the status.
func TestFirstScreenSaysHowToChangeTheRun(t *testing.T) {
	for _, sz := range goldenSizes {
		m, st := newTestModel(t, hopperConfig(), sz.w, sz.h)
		startRun(t, m, st)
		footer := lastLine(plain(m))
		for _, want := range []string{"shift+tab → Config", "/ for a preset", "? every key"} {
			if !strings.Contains(footer, want) {
				t.Errorf("%dx%d: the first footer lacks %q: %q", sz.w, sz.h, want, footer)
			}
		}
		press(m, "tab")
		if footer := lastLine(plain(m)); strings.Contains(footer, "change the run") {
			t.Errorf("%dx%d: the hint outlived the first key: %q", sz.w, sz.h, footer)
		}
	}
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

// TestHeaderSaysWhenThePresetWasEdited: once the form changed the run,
// the header no longer names it as the preset.
func TestHeaderSaysWhenThePresetWasEdited(t *testing.T) {
	cfg := hopperConfig()
	cfg.Name = "hopper-ddpg-16384"
	m, st := newTestModel(t, cfg, 200, 60)
	startRun(t, m, st)
	if h := plain(m); !strings.Contains(h, "preset hopper-ddpg-16384") || strings.Contains(h, "edited") {
		t.Fatalf("the header does not name the preset as running:\n%s", firstLines(h, 2))
	}
	// A mapping switched by hand edits the run too.
	if err := m.switchMapping(engine.MustMapping("G-G-G")); err != nil {
		t.Fatal(err)
	}
	if h := firstLines(plain(m), 2); !strings.Contains(h, "edited from preset hopper-ddpg-16384") {
		t.Errorf("after a mapping switch, the header still reads as the preset:\n%s", h)
	}
	// The form's path, from a fresh run of the preset: the switch above
	// must not be what the header reads.
	m, st = newTestModel(t, cfg, 200, 60)
	startRun(t, m, st)
	edited := m.Config()
	edited.Env, edited.Algo = "Pendulum-v1", engine.Algorithm("ddpg")
	edited.Batch = 256
	runCmd(m, func() tea.Msg { return applyConfigMsg{edited} })
	if h := firstLines(plain(m), 2); !strings.Contains(h, "edited from preset hopper-ddpg-16384") {
		t.Errorf("after the form changed the run, the header still reads as the preset:\n%s", h)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// pickerPresets are the presets the picker tests offer: a run and the
// tour walkthrough.
func pickerPresets(t testing.TB) []engine.Preset {
	run, err := engine.ParsePreset("small.yaml", []byte(`name: small-run
summary: a small CartPole run
run: {env: CartPole-v1, algo: dqn, batch: 32, steps: 1000}
`))
	if err != nil {
		t.Fatal(err)
	}
	return []engine.Preset{run, tourPreset(t)}
}

// TestPickerStartsAWalkthrough: / opens the picker, typing filters, enter
// starts the walkthrough without leaving the explorer: its narrative, its
// first step's run.
func TestPickerStartsAWalkthrough(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40, WithPresets(pickerPresets(t)))
	startRun(t, m, st)
	press(m, "/")
	if m.pick == nil {
		t.Fatal("/ did not open the picker")
	}
	out := plain(m)
	for _, want := range []string{"small-run", "hopper-dse-tour", "2 of 2 presets"} {
		if !strings.Contains(out, want) {
			t.Errorf("the picker does not show %q:\n%s", want, out)
		}
	}
	typeText(m, "walk")
	if out := plain(m); !strings.Contains(out, "1 of 2 presets") || strings.Contains(out, "small-run") {
		t.Errorf("the filter \"walk\" does not leave the walkthrough alone:\n%s", out)
	}
	// q types into the filter; it does not quit.
	if cmd := press(m, "q"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q in the picker's filter quit the explorer")
		}
	}
	press(m, "backspace")
	cmd := press(m, "enter")
	if m.pick != nil {
		t.Fatal("enter did not close the picker")
	}
	if cmd == nil {
		t.Fatal("enter started nothing")
	}
	runCmd(m, cmd)
	r, cfgs := st.last()
	drain(m, r)
	want := tourPreset(t).StepConfig(0).Defaults()
	if got := cfgs[len(cfgs)-1]; got != want {
		t.Errorf("started %+v, want the walkthrough's first step %+v", got, want)
	}
	if m.Step() != 0 || m.Focus() != paneTitles[paneNarrative] {
		t.Errorf("walkthrough mode: step %d focus %q, want step 0 on the narrative", m.Step(), m.Focus())
	}
	if out := plain(m); !strings.Contains(out, "walkthrough hopper-dse-tour") || !strings.Contains(out, "step 1/") {
		t.Errorf("the header does not show the walkthrough:\n%s", firstLines(out, 2))
	}
	// And back to a run preset: walkthrough mode ends.
	press(m, "/")
	typeText(m, "small")
	runCmd(m, press(m, "enter"))
	if m.wt != nil || m.Config().Env != "CartPole-v1" || m.Config().Batch != 32 {
		t.Errorf("picking a run preset left walkthrough %v, config %s %d", m.wt != nil, m.Config().Env, m.Config().Batch)
	}
}

// TestPickerEscClosesAndMouseSelects: esc closes without a change, a
// click selects the row under the pointer.
func TestPickerEscClosesAndMouseSelects(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40, WithPresets(pickerPresets(t)))
	startRun(t, m, st)
	press(m, "/")
	if cmd := press(m, "esc"); m.pick != nil || cmd != nil {
		t.Fatal("esc did not just close the picker")
	}
	press(m, "/")
	r := m.overlayRect()
	// Row 0 is the frame's top, then the filter and the count; the
	// second preset is the list's second row.
	m.Update(tea.MouseClickMsg{X: 4, Y: r.Y + 1 + pickerHeadRows + 1, Button: tea.MouseLeft})
	if p, ok := m.pick.Selected(); !ok || p.Name != "hopper-dse-tour" {
		t.Errorf("the click selected %q, want hopper-dse-tour", p.Name)
	}
}

// TestWheelScrollsThePaneUnderThePointer: the wheel scrolls the pane under
// the pointer, not the focused one.
func TestWheelScrollsThePaneUnderThePointer(t *testing.T) {
	m, _, _ := newTourModel(t, 120, 40)
	m.narr.SetSize(m.narr.w, 3) // make the narrative scroll
	m.narr.View()
	m.setFocus(paneTree)
	r := m.lay.panes[paneNarrative]
	if r.empty() {
		t.Fatal("no narrative pane on screen")
	}
	m.narr.SetSize(r.W-2, 3)
	m.narr.View()
	m.Update(tea.MouseWheelMsg{X: r.X + 2, Y: r.Y + 2, Button: tea.MouseWheelDown})
	if m.narr.offset != 1 {
		t.Errorf("the wheel over the narrative scrolled it to %d, want 1", m.narr.offset)
	}
	if m.Focus() != paneTitles[paneTree] {
		t.Errorf("the wheel moved the focus to %q", m.Focus())
	}
}

// TestWheelScrollsThePipeline: the pipeline scrolls under the wheel as it
// does with ↑/↓, and no further than its last line.
func TestWheelScrollsThePipeline(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	r := m.lay.panes[panePipeline]
	if r.empty() {
		t.Fatal("no pipeline pane on screen")
	}
	m.pipe.SetSize(r.W-2, 3) // make the stages scroll
	m.pipe.View()
	if m.pipe.lines <= 3 {
		t.Fatalf("the pipeline has %d lines: nothing to scroll", m.pipe.lines)
	}
	wheel := func(b tea.MouseButton) { m.Update(tea.MouseWheelMsg{X: r.X + 2, Y: r.Y + 2, Button: b}) }
	wheel(tea.MouseWheelDown)
	if m.pipe.offset != 1 {
		t.Errorf("the wheel over the pipeline scrolled it to %d, want 1", m.pipe.offset)
	}
	for range m.pipe.lines + 5 {
		wheel(tea.MouseWheelDown)
	}
	if want := m.pipe.lines - 3; m.pipe.offset != want {
		t.Errorf("the wheel scrolled the pipeline to %d, past its end %d", m.pipe.offset, want)
	}
	wheel(tea.MouseWheelUp)
	if want := m.pipe.lines - 4; m.pipe.offset != want {
		t.Errorf("the wheel up scrolled the pipeline to %d, want %d", m.pipe.offset, want)
	}
	if m.Focus() != paneTitles[paneTree] {
		t.Errorf("the wheel moved the focus to %q", m.Focus())
	}
}

// TestHeaderNamesThePlatform: a run on another platform than the default
// says which, since its figures are on that platform's clock.
func TestHeaderNamesThePlatform(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 200, 60)
	startRun(t, m, st)
	if h := firstLines(plain(m), 1); strings.Contains(h, " on ") {
		t.Errorf("the default platform is named:\n%s", h)
	}
	// The default platform named on the command line is still the
	// default: not named, and the preset not edited.
	spelled := hopperConfig()
	spelled.Name, spelled.Devices = "hopper", engine.DefaultDevices
	p := engine.Preset{Name: "hopper", Kind: engine.KindRun, Run: hopperConfig()}
	m, st = newTestModel(t, spelled, 200, 60, WithPreset(p, func(c engine.Config) engine.Config { c.Devices = engine.DefaultDevices; return c }))
	startRun(t, m, st)
	if h := firstLines(plain(m), 1); strings.Contains(h, " on ") || strings.Contains(h, "edited") {
		t.Errorf("--devices %s reads as another platform:\n%s", engine.DefaultDevices, h)
	}
	cfg := hopperConfig()
	cfg.Devices = filepath.Join(t.TempDir(), "table-iv-edited.yaml")
	m, st = newTestModel(t, cfg, 200, 60)
	startRun(t, m, st)
	if h := firstLines(plain(m), 1); !strings.Contains(h, "on table-iv-edited.yaml") {
		t.Errorf("a run on an edited platform does not name it:\n%s", h)
	}
}

// TestHeaderCountsCommandLineOverrides: a preset changed on the command
// line (--set) is no longer the preset, as when the form changed it.
func TestHeaderCountsCommandLineOverrides(t *testing.T) {
	p := engine.Preset{Name: "hopper-ddpg-16384", Kind: engine.KindRun, Run: hopperConfig()}
	for _, tt := range []struct {
		override func(engine.Config) engine.Config
		edited   bool
	}{
		{func(c engine.Config) engine.Config { return c }, false},
		{func(c engine.Config) engine.Config { c.Steps = 5_000_000; return c }, true},
	} {
		m, st := newTestModel(t, tt.override(p.Run), 200, 60, WithPreset(p, tt.override))
		startRun(t, m, st)
		h := firstLines(plain(m), 1)
		if got := strings.Contains(h, "edited from preset hopper-ddpg-16384"); got != tt.edited || !strings.Contains(h, "preset hopper-ddpg-16384") {
			t.Errorf("override changes the run %v: header %q", tt.edited, h)
		}
	}
}
