package tui

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
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

// poll reports whether cond held within flowWait, checking every 5 ms.
func poll(cond func() bool) bool {
	deadline := time.Now().Add(flowWait)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// waitFor waits until cond holds (state outside the program: the scripted
// starter and runs, which lock).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// probeOf wraps the root model in a flow and publishes, after every
// message, what the flow asserts on (read from the model), so that a flow
// waits for the model to reach a state (never for time) before its next
// key.
type probeOf[S any] struct {
	*Model
	read func(*Model) *S
	seen atomic.Pointer[S]
}

func newProbe[S any](m *Model, read func(*Model) *S) *probeOf[S] {
	p := &probeOf[S]{Model: m, read: read}
	p.seen.Store(read(m))
	return p
}

func (p *probeOf[S]) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.Model.Update(msg)
	p.seen.Store(p.read(p.Model))
	return p, cmd
}

// waitState waits until the published state satisfies cond; on a time-out
// it says what it waited for and the last state seen, in one line.
func waitState[S any](t *testing.T, p *probeOf[S], what string, cond func(*S) bool) *S {
	t.Helper()
	var s *S
	if !poll(func() bool { s = p.seen.Load(); return s != nil && cond(s) }) {
		t.Fatalf("timed out waiting for %s; the model shows %v", what, s)
	}
	return s
}

// probed is the flows' probe: the run, the snapshot, pause, focus, step.
type probed = probeOf[modelState]

// modelState is what a flow can see of the model between two messages.
type modelState struct {
	run     LiveRun
	seq     uint64 // of the snapshot shown; 0 before the first
	state   engine.State
	chosen  string // the mapping the snapshot runs
	paused  bool
	focus   string
	starts  int // runs started (the generation)
	walkStp int
}

func (s *modelState) String() string {
	return fmt.Sprintf("run %d, snapshot %d (%s, mapping %q), paused %v, focus %q, step %d",
		s.starts, s.seq, s.state, s.chosen, s.paused, s.focus, s.walkStp)
}

func probe(m *Model) *probed {
	return newProbe(m, func(m *Model) *modelState {
		s := &modelState{run: m.run, paused: m.paused, focus: m.Focus(), starts: m.gen, walkStp: m.Step()}
		if m.snap != nil {
			s.seq, s.state, s.chosen = m.snap.Seq, m.snap.State, m.snap.Mapping.Chosen
		}
		return s
	})
}

// waitLive waits until the starter has started n runs and the model runs
// the last one.
func waitLive(t *testing.T, p *probed, st *scriptedStarter, n int) *scriptedRun {
	t.Helper()
	var run *scriptedRun
	waitFor(t, fmt.Sprintf("run %d to start", n), func() bool {
		r, cfgs := st.last()
		run = r
		return len(cfgs) == n && r != nil
	})
	waitState(t, p, fmt.Sprintf("the model to take run %d", n), func(s *modelState) bool { return s.run == LiveRun(run) })
	return run
}

// applyBatch types batch into the config form and applies it, as a user
// does from the tree pane: shift+tab wraps to the form; env, algo, batch;
// clear the field, type, enter.
func applyBatch(tm *teatest.TestModel, batch string) {
	tm.Send(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	tm.Send(keyCode(tea.KeyDown))
	tm.Send(keyCode(tea.KeyDown))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	tm.Type(batch)
	tm.Send(keyCode(tea.KeyEnter))
}

func finalModel(t *testing.T, tm *teatest.TestModel) *Model {
	t.Helper()
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(flowWait)).(*probed)
	if !ok {
		t.Fatal("the final model is not the probed *Model")
	}
	return fm.Model
}

// TestFlowStartEditSwitchPauseQuit is the flow: start, change the
// batch size in the config form, switch the mapping, pause, quit.
func TestFlowStartEditSwitchPauseQuit(t *testing.T) {
	st := &scriptedStarter{}
	p := probe(New(t.Context(), st.start, hopperConfig()))
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(120, 40))

	// Start: the run is started at once and drawn.
	waitOutput(t, tm, "running")
	waitLive(t, p, st, 1)
	if _, cfgs := st.last(); len(cfgs) != 1 || cfgs[0].Batch != 16384 {
		t.Fatalf("started %+v", cfgs)
	}

	applyBatch(tm, "4096")
	run := waitLive(t, p, st, 2)
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
	waitState(t, p, "the switch to G-G-G", func(s *modelState) bool { return s.chosen == "G-G-G" })

	// Pause: the model has seen the run's paused snapshot before q.
	tm.Send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	waitState(t, p, "the paused snapshot", func(s *modelState) bool { return s.paused && s.state == engine.Paused })

	tm.Type("q")
	m := finalModel(t, tm)
	if c := m.Config(); c.Batch != 4096 || c.Mapping.String() != "G-G-G" || c.Env != "Hopper-workload" {
		t.Errorf("final config: batch %d, mapping %q, env %q; want 4096, G-G-G, Hopper-workload", c.Batch, c.Mapping, c.Env)
	}
	if !m.Paused() || m.Focus() != paneTitles[paneMapping] {
		t.Errorf("final model: paused %v, focus %q", m.Paused(), m.Focus())
	}
	if s := m.Snapshot(); s == nil || s.State != engine.Paused || s.Mapping.Chosen != "G-G-G" {
		t.Errorf("final snapshot: %v, want paused on G-G-G", p.seen.Load())
	}
	if p, r, _ := run.calls(); p != 1 || r != 0 {
		t.Errorf("run got %d Pause and %d Resume calls", p, r)
	}
}

// TestFlowResumeRestart pauses and resumes, restarts with r, and quits with
// ctrl+c.
func TestFlowResumeRestart(t *testing.T) {
	st := &scriptedStarter{}
	p := probe(New(t.Context(), st.start, engine.Config{Env: "CartPole-v1", Algo: "ppo"}))
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(80, 24))
	waitOutput(t, tm, "running")
	run := waitLive(t, p, st, 1)
	space := tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	tm.Send(space)
	waitState(t, p, "the paused snapshot", func(s *modelState) bool { return s.paused && s.state == engine.Paused })
	tm.Send(space)
	waitState(t, p, "the resumed snapshot", func(s *modelState) bool { return !s.paused && s.state == engine.Running })
	tm.Type("r")
	second := waitLive(t, p, st, 2)
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	m := finalModel(t, tm)
	if _, cfgs := st.last(); cfgs[1].Algo != "ppo" || m.Paused() || m.run != LiveRun(second) {
		t.Errorf("after restart: algo %q, paused %v, runs the second run %v", cfgs[1].Algo, m.Paused(), m.run == LiveRun(second))
	}
	if !isClosed(run.done) {
		t.Error("r did not stop the first run")
	}
	if p, r, _ := run.calls(); p != 1 || r != 1 {
		t.Errorf("the first run got %d Pause and %d Resume calls, want 1 and 1", p, r)
	}
}

// TestFlowRestartKeepsReading restarts a live run in each way a user can
// (r, the config form's apply, a walkthrough step that needs a new run) and
// requires the explorer to go on reading the new run's snapshots. The runs
// advance on every read, so a tick is nearly always in flight when the
// restart comes: the case where the explorer used to stop ticking for good.
func TestFlowRestartKeepsReading(t *testing.T) {
	tour := tourPreset(t)
	for _, tc := range []struct {
		name    string
		cfg     engine.Config
		opts    []Option
		restart func(tm *teatest.TestModel)
		want    func(engine.Config) bool // the restarted run's configuration
	}{
		{
			name:    "key r",
			cfg:     hopperConfig(),
			restart: func(tm *teatest.TestModel) { tm.Type("r") },
			want:    func(c engine.Config) bool { return c.Batch == 16384 },
		},
		{
			name:    "form apply",
			cfg:     hopperConfig(),
			restart: func(tm *teatest.TestModel) { applyBatch(tm, "4096") },
			want:    func(c engine.Config) bool { return c.Batch == 4096 },
		},
		{
			name: "walkthrough step",
			cfg:  tourBudget(tour.StepConfig(0)),
			opts: []Option{WithPreset(tour, tourBudget)},
			// Step 2 switches the mapping of the live run; step 3 changes
			// the batch, which needs a new run.
			restart: func(tm *teatest.TestModel) { tm.Type("nn") },
			want:    func(c engine.Config) bool { return c.Batch == 4096 && c.Mapping.String() == "G-G-G" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &scriptedStarter{advancing: true}
			p := probe(New(t.Context(), st.start, tc.cfg, append(tc.opts, WithRedrawRate(30))...))
			tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(120, 40))
			first := waitLive(t, p, st, 1)
			waitState(t, p, "the first run's snapshots to advance", func(s *modelState) bool { return s.seq >= 4 })

			tc.restart(tm)
			second := waitLive(t, p, st, 2)
			if _, cfgs := st.last(); !tc.want(cfgs[1]) {
				t.Errorf("restarted with batch %d, mapping %q", cfgs[1].Batch, cfgs[1].Mapping)
			}
			if !isClosed(first.done) {
				t.Error("the first run was not stopped")
			}
			// A new run's snapshots start again from 1: reading it three
			// more times proves the explorer ticks on the new run.
			waitState(t, p, "the new run's snapshots to advance", func(s *modelState) bool {
				return s.run == LiveRun(second) && s.seq >= 4
			})
			// The form may still have the focus, where q types.
			tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
			finalModel(t, tm)
		})
	}
}

// TestRunQuitStopsTheRun drives Run, the explorer's entry point, over a
// pipe: q quits, Run returns nil, and the live run is stopped before it
// returns.
func TestRunQuitStopsTheRun(t *testing.T) {
	st := &scriptedStarter{}
	in, typed := io.Pipe()
	var out safeBuffer
	done := make(chan error, 1)
	go func() { done <- Run(t.Context(), st.start, hopperConfig(), WithInput(in), WithOutput(&out)) }()
	waitFor(t, "the run to start", func() bool { r, _ := st.last(); return r != nil })
	if _, err := typed.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v after q", err)
		}
	case <-time.After(flowWait):
		t.Fatal("Run did not return after q")
	}
	if r, _ := st.last(); !isClosed(r.done) {
		t.Error("Run returned with the run still live")
	}
	if !bytes.Contains(out.Bytes(), []byte("Hopper-workload")) {
		t.Error("Run drew nothing on its output")
	}
}

// safeBuffer is a bytes.Buffer the program writes while the test reads.
type safeBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *safeBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *safeBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}

// TestFlowPickWalkthrough picks a walkthrough from the picker in the
// running program: / opens it, typing filters, enter starts the
// walkthrough's first step without leaving the explorer.
func TestFlowPickWalkthrough(t *testing.T) {
	st := &scriptedStarter{}
	p := probe(New(t.Context(), st.start, hopperConfig(), WithPresets(pickerPresets(t))))
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(120, 40))
	waitOutput(t, tm, "running")
	waitLive(t, p, st, 1)

	tm.Type("/")
	tm.Type("tour")
	tm.Send(keyCode(tea.KeyEnter))
	waitLive(t, p, st, 2)
	waitState(t, p, "the walkthrough's first step", func(s *modelState) bool {
		return s.walkStp == 0 && s.focus == paneTitles[paneNarrative]
	})
	if _, cfgs := st.last(); cfgs[1] != tourPreset(t).StepConfig(0).Defaults() {
		t.Errorf("started %+v, want the tour's first step", cfgs[1])
	}
	tm.Type("n")
	waitState(t, p, "step 2", func(s *modelState) bool { return s.walkStp == 1 })
	tm.Type("q")
	if m := finalModel(t, tm); m.wt == nil || m.wt.preset.Name != "hopper-dse-tour" {
		t.Errorf("the explorer did not end in the tour walkthrough")
	}
}
