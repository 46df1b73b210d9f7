package tui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// mappingPaneOf returns a mapping pane of w x h showing a run of cfg with
// the mapping view the engine predicts for it, focused.
func mappingPaneOf(t *testing.T, cfg engine.Config, w, h int) *mappingPane {
	t.Helper()
	v, err := engine.Predict(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshotFor(cfg, 1)
	s.Mapping = v
	p := newMappingPane(&common{Styles: NewStyles(true), Keys: DefaultKeyMap()})
	p.SetSize(w, h)
	p.SetSnapshot(s)
	p.SetFocused(true)
	return p
}

func paneText(p *mappingPane) string { return ansi.Strip(p.View()) }

// lineWith returns the first line of text holding s, "" if none.
func lineWith(text, s string) string {
	for l := range strings.SplitSeq(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestMappingPaneTells holds the pane to what the engine's view says: a
// tie reads as a tie, a mapping set by hand has its row and ◀ now, the
// model's bound and the live busiest unit are both shown, each labelled.
func TestMappingPaneTells(t *testing.T) {
	// CartPole DQN on Table IV: the actors bound F-F-F, F-C-F and F-G-F
	// alike; Algorithm 3 picks F-F-F.
	p := mappingPaneOf(t, engine.Config{Env: "CartPole-v1", Algo: "dqn"}, 80, 30)
	text := paneText(p)
	// CartPole's actors are charged the host's step time: the figures
	// are the view's, not constants.
	model := "model " + units.Fixed(p.snap.Mapping.PredictedGPS) + " GPS"
	for _, want := range []string{"auto → F-F-F · " + model + ", bound by actors", "tie with F-C-F, F-G-F",
		"live 171.3 GPS, busiest GPU learner (99% busy)", "gives the same throughput"} {
		if !strings.Contains(text, want) {
			t.Errorf("tie: the pane lacks %q:\n%s", want, text)
		}
	}
	for _, wrong := range []string{"DSE best", "fastest predicted", "over 2nd best"} {
		if strings.Contains(text, wrong) {
			t.Errorf("tie: the pane says %q:\n%s", wrong, text)
		}
	}
	if l := lineWith(text, "◀ now"); !strings.Contains(l, "F-F-F") {
		t.Errorf("tie: ◀ now is on %q, want F-F-F's row", l)
	}

	// A mapping set by hand whose storage is on a third device.
	p = mappingPaneOf(t, engine.Config{Env: "CartPole-v1", Algo: "dqn", Mapping: engine.MustMapping("F-C-G")}, 80, 30)
	text = paneText(p)
	if l := lineWith(text, "◀ now"); !strings.Contains(l, "F-C-G") {
		t.Errorf("F-C-G by hand: ◀ now is on %q:\n%s", l, text)
	}
	if p.Selected() != "F-C-G" {
		t.Errorf("F-C-G by hand: the selection follows %q", p.Selected())
	}

	// Pendulum TD3: Algorithm 3 chooses by the table and the model
	// predicts another mapping faster; the pane names it the fastest,
	// not the DSE's best.
	p = mappingPaneOf(t, engine.Config{Env: "Pendulum-v1", Algo: "td3", Batch: 256, Capacity: 1_000_000}, 100, 30)
	text = paneText(p)
	if !strings.Contains(text, "fastest predicted G-F-G: ×1.01 this") || !strings.Contains(text, "Algorithm 3 maps by the table") {
		t.Errorf("td3: the pane does not say why auto runs a slower mapping:\n%s", text)
	}

	// Narrow: the bound and the live unit on lines of their own, labelled.
	p = mappingPaneOf(t, engine.Config{Env: "CartPole-v1", Algo: "dqn"}, 38, 20)
	text = paneText(p)
	for _, want := range []string{"model bound by actors", "live 171.3 GPS · GPU learner 99% busy"} {
		if !strings.Contains(text, want) {
			t.Errorf("narrow: the pane lacks %q:\n%s", want, text)
		}
	}
}

// TestMappingPanePreview shows a configuration not running and clears it
// when the form goes back to the running one.
func TestMappingPanePreview(t *testing.T) {
	cfg := engine.Config{Env: "Hopper-workload", Algo: "ddpg", Batch: 16384, Capacity: 1 << 20}
	p := mappingPaneOf(t, cfg, 80, 30)
	other := cfg
	other.Devices = "heppo-zcu106"
	p.SetPreview(p.Preview(other)().(previewMsg))
	if text := paneText(p); !strings.Contains(text, "preview: not running · heppo-zcu106") ||
		!strings.Contains(text, "needs a cpu, a gpu, an fpga and a link") {
		t.Errorf("a preview on a platform without a CPU:\n%s", text)
	}
	other = cfg
	other.Batch = 4096
	p.SetPreview(p.Preview(other)().(previewMsg))
	text := paneText(p)
	if !strings.Contains(text, "preview: not running · table-iv") || !strings.Contains(text, "◀ would run") {
		t.Errorf("a preview of batch 4096:\n%s", text)
	}
	if want, _ := engine.Predict(other); !strings.Contains(text, "model "+units.Fixed(want.PredictedGPS)) {
		t.Errorf("the preview does not show batch 4096's prediction %g:\n%s", want.PredictedGPS, text)
	}
	// The root decides what runs: a preview of the running configuration
	// (under another name) clears the preview.
	m, st := newTestModel(t, cfg, 120, 40)
	startRun(t, m, st)
	_, cmd := m.Update(platformPreviewMsg{cfg: other})
	runCmd(m, cmd)
	if text := paneText(m.mapping); !strings.Contains(text, "preview: not running") {
		t.Fatalf("a preview of batch 4096 through the root:\n%s", text)
	}
	named := cfg
	named.Name = "hopper-ddpg-16384"
	_, cmd = m.Update(platformPreviewMsg{cfg: named})
	runCmd(m, cmd)
	if text := paneText(m.mapping); strings.Contains(text, "preview") {
		t.Errorf("the running configuration still shows as a preview:\n%s", text)
	}
}

// TestMappingPaneMouseAndHelp clicks a row of the list, scrolls, and
// lists the pane's keys for the help.
func TestMappingPaneMouseAndHelp(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	m.setFocus(paneMapping)
	p := m.mapping
	p.View()
	y := slices.Index(p.lineRow, 2)
	if y < 0 {
		t.Fatalf("no line shows row 2: %v", p.lineRow)
	}
	p.ClickRow(y)
	if got, want := p.Selected(), p.snap.Mapping.All[2].Mapping; got != want {
		t.Errorf("clicked line %d: selected %q, want %q", y, got, want)
	}
	if p.lineRow[0] >= 0 {
		t.Fatalf("line 0 shows row %d, want the summary", p.lineRow[0])
	}
	p.ClickRow(0) // the summary: nothing
	if got, want := p.Selected(), p.snap.Mapping.All[2].Mapping; got != want {
		t.Errorf("a click on the summary selected %q, want %q kept", got, want)
	}
	p.Scroll(-5)
	if got := p.Selected(); got != p.snap.Mapping.All[0].Mapping {
		t.Errorf("scrolled up: selected %q", got)
	}

	// The footer's keys that apply: the KeyMap's and the pane's own.
	help := func() []string {
		var keys []string
		seen := map[key.Help]bool{}
		for _, b := range m.shortHelp() {
			if !b.Enabled() {
				continue
			}
			if seen[b.Help()] {
				t.Errorf("the footer lists %q twice", b.Help())
			}
			seen[b.Help()] = true
			keys = append(keys, b.Help().Key)
		}
		return keys
	}
	if keys := help(); !slices.Contains(keys, "d") || !slices.Contains(keys, "enter") {
		t.Errorf("help keys %v, want the list's and d", keys)
	}
	runCmd(m, press(m, "d"))
	if !p.Editing() {
		t.Fatal("d did not open the devices editor")
	}
	if keys := help(); !slices.Contains(keys, "w") || !slices.Contains(keys, "esc/d") || slices.Contains(keys, "a") {
		t.Errorf("help keys in the editor %v", keys)
	}
	p.View()
	y = slices.Index(p.lineRow, 3)
	p.ClickRow(y)
	if p.editor.sel != 3 {
		t.Errorf("clicked line %d in the editor: parameter %d selected, want 3", y, p.editor.sel)
	}
}

// TestMappingPaneFollowsALiveSwitch: after a live switch to G-G-G the
// run's configuration is G-G-G (the snapshot's keeps the auto it started
// with): the devices editor predicts G-G-G and restarts on it, and a
// preview of the running configuration is no preview.
func TestMappingPaneFollowsALiveSwitch(t *testing.T) {
	m, _, run := focusedMappingRun(t)
	ggg := engine.MustMapping("G-G-G")
	m.Update(switchMappingMsg{ggg})
	drain(m, run)
	if m.Config().Mapping != ggg || m.snap.Config.Mapping == ggg {
		t.Fatalf("the switch: config %v, snapshot config %v; want G-G-G and the start's auto", m.Config().Mapping, m.snap.Config.Mapping)
	}

	other := m.Config()
	other.Devices = "heppo-zcu106"
	_, cmd := m.Update(platformPreviewMsg{cfg: other})
	runCmd(m, cmd)
	if m.mapping.preview == nil {
		t.Fatal("a preview of another platform did not show")
	}
	_, cmd = m.Update(platformPreviewMsg{cfg: m.Config()})
	runCmd(m, cmd)
	if text := plain(m); m.mapping.preview != nil || strings.Contains(text, "preview: not running") {
		t.Errorf("the running configuration (G-G-G) shows as a preview:\n%s", text)
	}

	runCmd(m, press(m, "d"))
	e := m.mapping.editor
	if e == nil {
		t.Fatalf("d did not open the editor: %q", m.mapping.status)
	}
	if e.cfg.Mapping != ggg || draftChosen(e) != "G-G-G" {
		t.Errorf("the editor predicts %v choosing %q, want the running G-G-G", e.cfg.Mapping, draftChosen(e))
	}
	cmd = press(m, "enter")
	if cmd == nil {
		t.Fatalf("enter asked for nothing: %q", e.note)
	}
	if msg, ok := cmd().(applyConfigMsg); !ok || msg.cfg.Mapping != ggg {
		t.Errorf("enter restarts with %#v, want the running G-G-G", msg)
	}
}

// TestPredictionsOffTheLoop: the devices editor and a preview are
// predicted by commands, so a slow first prediction (a Pong PPO trainer)
// never blocks a key; until the result comes the pane says it is
// predicting, and a result asked for before the user moved on (esc, a
// preview cleared or replaced) is dropped when it comes.
func TestPredictionsOffTheLoop(t *testing.T) {
	m, _, _ := focusedMappingRun(t)

	open := press(m, "d")
	if open == nil || m.mapping.editor != nil || !strings.Contains(plain(m), "what if: predicting the run…") {
		t.Fatalf("d: a command %v, editor open %v; want the editor on its way:\n%s", open != nil, m.mapping.editor != nil, plain(m))
	}
	press(m, "esc")
	m.Update(open())
	if m.mapping.Editing() || strings.Contains(plain(m), "predicting") {
		t.Fatalf("an editor cancelled with esc opened when its prediction came:\n%s", plain(m))
	}
	runCmd(m, press(m, "d"))
	if !m.mapping.Editing() {
		t.Fatalf("d after a cancel did not open the editor: %q", m.mapping.status)
	}
	runCmd(m, press(m, "esc"))

	other := m.Config()
	other.Batch = 4096
	_, first := m.Update(platformPreviewMsg{cfg: other})
	if !strings.Contains(plain(m), "predicting Hopper-workload ddpg on it") {
		t.Fatalf("a preview on its way does not say so:\n%s", plain(m))
	}
	m.Update(platformPreviewMsg{cfg: m.Config()}) // back to the running configuration
	m.Update(first())
	if m.mapping.preview != nil {
		t.Fatal("a preview cleared while predicted came back")
	}
	_, first = m.Update(platformPreviewMsg{cfg: other})
	third := other
	third.Devices = "heppo-zcu106"
	_, last := m.Update(platformPreviewMsg{cfg: third})
	m.Update(last())
	m.Update(first())
	if pv := m.mapping.preview; pv == nil || pv.cfg.Devices != "heppo-zcu106" || pv.err == nil {
		t.Fatalf("an older preview's result replaced the latest: %+v", pv)
	}
}

// TestPendingEditorAndPreviewAcrossKeys: an editor on its way is the
// pane's (esc in a zoomed pane cancels it, not the zoom, and it does not
// open later); a preview survives a restart, its list hidden from keys and
// clicks; a live switch does not keep a preview up when the form goes back
// to the running platform; applying ends the preview.
func TestPendingEditorAndPreviewAcrossKeys(t *testing.T) {
	m, _, _ := focusedMappingRun(t)
	press(m, "z")
	open := press(m, "d")
	press(m, "esc")
	m.Update(open())
	if !m.zoomed || m.mapping.editor != nil {
		t.Fatalf("esc with the editor on its way in a zoomed pane: zoomed %v, editor open %v; want the zoom kept and no editor", m.zoomed, m.mapping.editor != nil)
	}
	press(m, "esc")

	// A preview, then r: it is still shown, and the list under it takes no key.
	other := m.Config()
	other.Devices = engine.HostDevices
	_, cmd := m.Update(platformPreviewMsg{cfg: other})
	_, restart := m.Update(keyMsg("r"))
	m.Update(cmd())
	if restart != nil {
		if started, ok := restart().(startedMsg); ok {
			m.Update(started)
		}
	}
	if m.mapping.preview == nil {
		t.Fatal("a restart dropped the preview of the form's platform")
	}
	if c := press(m, "enter"); c != nil {
		if msg, ok := c().(switchMappingMsg); ok {
			t.Fatalf("enter under a preview switched the live run to a hidden row: %v", msg.mapping)
		}
	}

	// A live switch, then the form back on the running platform: no
	// preview left.
	if err := m.switchMapping(engine.MustMapping("G-G-G")); err != nil {
		t.Fatal(err)
	}
	m.Update(platformPreviewMsg{cfg: hopperConfig(), running: true})
	if m.mapping.preview != nil {
		t.Fatal("back on the running platform after a live switch, the preview stays")
	}

	// Applying what was previewed ends the preview.
	_, cmd = m.Update(platformPreviewMsg{cfg: other})
	m.Update(cmd())
	runCmd(m, func() tea.Msg { return applyConfigMsg{other} })
	if m.mapping.preview != nil {
		t.Error("the applied configuration still shows as a preview")
	}
}
