package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rlxdev/rlx/engine"
)

// Flows run the real Bubble Tea program on the scripted run and assert on
// what the run was asked to do and on the final model, never on the exact
// output stream (its bytes depend on timing).

const flowWait = 5 * time.Second

func keyCode(code rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code} }

// waitOutput waits until the program has drawn want. Only the first frame
// is drawn whole; later frames redraw only the cells that changed, so later
// waits are on state, not on output.
func waitOutput(t *testing.T, tm *teatest.TestModel, want string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(want)) },
		teatest.WithDuration(flowWait), teatest.WithCheckInterval(10*time.Millisecond))
}

// waitFor waits until cond holds (state outside the program: the scripted
// starter and runs, which lock).
func waitFor(t *testing.T, tm *teatest.TestModel, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(flowWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitLive waits until the starter has started n runs and the model has
// taken the last one (it has read the run's started event).
func waitLive(t *testing.T, tm *teatest.TestModel, st *scriptedStarter, n int) *scriptedRun {
	t.Helper()
	var run *scriptedRun
	waitFor(t, tm, "run to go live", func() bool {
		r, cfgs := st.last()
		run = r
		return len(cfgs) == n && r != nil && len(r.events) == 0
	})
	return run
}

func finalModel(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(flowWait)).(*Model)
	if !ok {
		t.Fatal("the final model is not a *Model")
	}
	return fm
}

// TestFlowStartEditSwitchPauseQuit is the flow: start, change the
// batch size in the config form, switch the mapping, pause, quit.
func TestFlowStartEditSwitchPauseQuit(t *testing.T) {
	st := &scriptedStarter{}
	tm := teatest.NewTestModel(t, New(t.Context(), st.start, hopperConfig()), teatest.WithInitialTermSize(120, 40))

	// Start: the run is started at once and drawn.
	waitOutput(t, tm, "running")
	waitLive(t, tm, st, 1)
	if _, cfgs := st.last(); len(cfgs) != 1 || cfgs[0].Batch != 16384 {
		t.Fatalf("started %+v", cfgs)
	}

	// Config form: shift+tab from the tree wraps to it; env, algo, batch.
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	tm.Send(keyCode(tea.KeyDown))
	tm.Send(keyCode(tea.KeyDown))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type("4096")
	tm.Send(keyCode(tea.KeyEnter))
	run := waitLive(t, tm, st, 2)
	if _, cfgs := st.last(); cfgs[1].Batch != 4096 {
		t.Fatalf("restarted with %+v, want batch 4096", cfgs[1])
	}
	first := st.runs[0]
	if !isClosed(first.done) {
		t.Error("the first run was not stopped when the config was applied")
	}

	// Mapping: from the config pane, shift+tab; the second best mapping.
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	tm.Send(keyCode(tea.KeyDown))
	tm.Send(keyCode(tea.KeyEnter))
	waitFor(t, tm, "SetMapping(G-G-G)", func() bool {
		_, _, maps := run.calls()
		return len(maps) == 1 && maps[0] == "G-G-G"
	})

	// Pause.
	tm.Send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	waitFor(t, tm, "Pause", func() bool { p, _, _ := run.calls(); return p == 1 })

	tm.Type("q")
	m := finalModel(t, tm)
	if c := m.Config(); c.Batch != 4096 || c.Mapping != "G-G-G" || c.Env != "Hopper-workload" {
		t.Errorf("final config %+v", c)
	}
	if !m.Paused() || m.Focus() != paneTitles[paneMapping] {
		t.Errorf("final model: paused %v, focus %q", m.Paused(), m.Focus())
	}
	if s := m.Snapshot(); s == nil || s.State != engine.Paused || s.Mapping.Chosen != "G-G-G" {
		t.Errorf("final snapshot %+v", s)
	}
	if p, r, _ := run.calls(); p != 1 || r != 0 {
		t.Errorf("run got %d Pause and %d Resume calls", p, r)
	}
}

// TestFlowResumeRestart pauses and resumes, restarts with r, and quits with
// ctrl+c.
func TestFlowResumeRestart(t *testing.T) {
	st := &scriptedStarter{}
	tm := teatest.NewTestModel(t, New(t.Context(), st.start, engine.Config{Env: "CartPole-v1", Algo: "ppo"}),
		teatest.WithInitialTermSize(80, 24))
	waitOutput(t, tm, "running")
	run := waitLive(t, tm, st, 1)
	space := tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	tm.Send(space)
	waitFor(t, tm, "Pause", func() bool { p, _, _ := run.calls(); return p == 1 })
	tm.Send(space)
	waitFor(t, tm, "Resume", func() bool { _, r, _ := run.calls(); return r == 1 })
	tm.Type("r")
	waitLive(t, tm, st, 2)
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	m := finalModel(t, tm)
	second, cfgs := st.last()
	if cfgs[1].Algo != "ppo" || m.Paused() || m.run != second {
		t.Errorf("after restart: configs %+v, paused %v, same run %v", cfgs, m.Paused(), m.run == second)
	}
	if !isClosed(run.done) {
		t.Error("r did not stop the first run")
	}
}
