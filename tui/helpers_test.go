package tui

import (
	"bytes"
	"context"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/rlxdev/rlx/engine"
)

// newTestModel returns a model over a scripted starter, sized w x h.
func newTestModel(t testing.TB, cfg engine.Config, w, h int, opts ...Option) (*Model, *scriptedStarter) {
	t.Helper()
	st := &scriptedStarter{}
	m := New(context.Background(), st.start, cfg, opts...)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m, st
}

// startRun runs the model's start command synchronously (it calls the
// scripted starter) and feeds the run's queued events to the model.
func startRun(t testing.TB, m *Model, st *scriptedStarter) *scriptedRun {
	t.Helper()
	msg := m.restart()()
	m.Update(msg)
	r, _ := st.last()
	if r == nil {
		t.Fatalf("no run started: status %q", m.Status())
	}
	drain(m, r)
	return r
}

// drain feeds the model every event the run has queued, as the re-armed
// wait command would.
func drain(m *Model, r *scriptedRun) {
	for {
		select {
		case ev, ok := <-r.events:
			m.Update(eventMsg{gen: m.gen, events: r.events, ev: ev, closed: !ok})
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// press sends one key press: a name such as "tab", "shift+tab", "space",
// "enter", "esc", "up", "ctrl+c", or a single character.
func press(m *Model, k string) tea.Cmd {
	_, cmd := m.Update(keyMsg(k))
	return cmd
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// typeText presses each character of s.
func typeText(m *Model, s string) {
	for _, r := range s {
		press(m, string(r))
	}
}

// runCmd runs cmd if it is a plain command returning one of the explorer's
// action messages, and feeds that message back (tea.Batch and timers are
// left alone: tests drive ticks and events themselves).
func runCmd(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case previewMsg, editorOpenedMsg:
		m.Update(msg)
	case applyConfigMsg, switchMappingMsg:
		_, next := m.Update(msg)
		if next != nil {
			if started, ok := next().(startedMsg); ok {
				m.Update(started)
			}
		}
	}
}

// ascii renders s as a terminal with the Ascii colour profile would: no
// colours, text attributes kept.
func ascii(s string) string {
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.Ascii}
	_, _ = w.Write([]byte(s))
	return b.String()
}

// content is the view's content in the Ascii profile.
func content(m *Model) string { return ascii(m.View().Content) }

// plain is the view's text without any styling, for substring checks.
func plain(m *Model) string { return ansi.Strip(m.View().Content) }
