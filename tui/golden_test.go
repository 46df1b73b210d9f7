package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/rlxdev/rlx/engine"
)

var goldenSizes = []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}}

// checkFrame asserts what every frame must satisfy: exactly h lines of
// exactly w cells.
func checkFrame(t *testing.T, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		t.Fatalf("view has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

// TestGoldenHopper is the run the issue asks to show, Hopper DDPG at batch
// 16384 with the auto mapping, at each size, two walk levels into the
// animation.
func TestGoldenHopper(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, st := newTestModel(t, hopperConfig(), sz.w, sz.h)
			startRun(t, m, st)
			m.Update(tickMsg{})
			m.Update(tickMsg{})
			out := content(m)
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

// TestGoldenPanesZoomed draws every pane zoomed at 120x40, where each shows
// all it has.
func TestGoldenPanesZoomed(t *testing.T) {
	for _, p := range basePanes {
		t.Run(paneShort[p], func(t *testing.T) {
			m, st := newTestModel(t, hopperConfig(), 120, 40)
			startRun(t, m, st)
			m.setFocus(p)
			press(m, "z")
			out := content(m)
			checkFrame(t, out, 120, 40)
			golden.RequireEqual(t, out)
		})
	}
}

// TestGoldenCartPoleDQN shows a learning task whose returns mean something.
func TestGoldenCartPoleDQN(t *testing.T) {
	m, st := newTestModel(t, engine.Config{Env: "CartPole-v1", Algo: "dqn"}, 120, 40)
	startRun(t, m, st)
	out := content(m)
	checkFrame(t, out, 120, 40)
	if strings.Contains(ansi.Strip(out), "RETURNS MEAN NOTHING") {
		t.Error("CartPole's returns are meaningful, but the view says they are not")
	}
	golden.RequireEqual(t, out)
}

// TestGoldenPPO shows a PPO run: IPS instead of GPS, no sum tree.
func TestGoldenPPO(t *testing.T) {
	m, st := newTestModel(t, engine.Config{Env: "CartPole-v1", Algo: "ppo"}, 120, 40)
	startRun(t, m, st)
	out := content(m)
	checkFrame(t, out, 120, 40)
	for _, want := range []string{"IPS", "No sum tree in a PPO run"} {
		if !strings.Contains(ansi.Strip(out), want) {
			t.Errorf("PPO view lacks %q", want)
		}
	}
	golden.RequireEqual(t, out)
}

// TestGoldenHelp shows the full help over the body.
func TestGoldenHelp(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, st := newTestModel(t, hopperConfig(), sz.w, sz.h)
			startRun(t, m, st)
			press(m, "?")
			out := content(m)
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

// TestGoldenPicker draws the preset picker (/) at each size, the
// walkthrough under the cursor with its description.
func TestGoldenPicker(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, st := newTestModel(t, hopperConfig(), sz.w, sz.h, WithPresets(pickerPresets(t)))
			startRun(t, m, st)
			press(m, "/")
			press(m, "down")
			out := content(m)
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

// TestGoldenInvalidConfig opens on a config Validate refuses: nothing runs,
// the form has the focus and says what is wrong.
func TestGoldenInvalidConfig(t *testing.T) {
	cfg := hopperConfig()
	cfg.Batch = 1 << 21 // above the capacity, and above 65536
	m, st := newTestModel(t, cfg, 80, 24)
	if cmd := m.Init(); cmd == nil {
		t.Fatal("Init returned no command")
	}
	if _, cfgs := st.last(); len(cfgs) != 0 {
		t.Fatalf("an invalid config was started: %+v", cfgs)
	}
	out := content(m)
	checkFrame(t, out, 80, 24)
	if !strings.Contains(ansi.Strip(out), "batch 2097152 is not allowed") {
		t.Errorf("the form does not say why the batch is refused")
	}
	golden.RequireEqual(t, out)
}

// TestTooSmall says which size is needed, at any size below it.
func TestTooSmall(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{79, 24}, {80, 23}, {40, 10}, {1, 1}} {
		m, st := newTestModel(t, hopperConfig(), sz.w, sz.h)
		startRun(t, m, st)
		out := content(m)
		checkFrame(t, out, sz.w, sz.h)
		if sz.w >= 60 && !strings.Contains(ansi.Strip(out), "at least 80x24") {
			t.Errorf("%dx%d: does not say the size it needs:\n%s", sz.w, sz.h, out)
		}
	}
}

// TestFirstFrame renders before any size is known and before any run.
func TestFirstFrame(t *testing.T) {
	st := &scriptedStarter{}
	m := New(t.Context(), st.start, hopperConfig())
	v := m.View()
	if v.Content != "" {
		t.Errorf("0x0 frame has content %q", v.Content)
	}
	if !v.AltScreen || v.MouseMode != tea.MouseModeCellMotion || !strings.Contains(v.WindowTitle, "Hopper-workload") {
		t.Errorf("view settings: alt %v mouse %v title %q", v.AltScreen, v.MouseMode, v.WindowTitle)
	}
	// Sizes between 0 and the minimum, and a run whose first snapshot is
	// all zero, never panic.
	startRun(t, m, st)
	r, _ := st.last()
	r.latest.Store(&engine.Snapshot{Seq: 99})
	m.Update(tickMsg{})
	for _, sz := range []struct{ w, h int }{{0, 0}, {0, 30}, {30, 0}, {80, 24}, {120, 40}} {
		m.Update(tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
		out := content(m)
		if sz.w > 0 && sz.h > 0 {
			checkFrame(t, out, sz.w, sz.h)
		}
	}
}
