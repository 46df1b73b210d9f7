package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/testenv"
)

// userDevicesIn gives the test a user configuration directory of its own,
// so that edited platforms are saved there, and returns where they go.
func userDevicesIn(t *testing.T) string {
	t.Helper()
	testenv.UserConfig(t)
	return engine.UserDevicesDir()
}

// focusedMappingRun starts a scripted Hopper run at 120x40, with a user
// configuration directory of the test's own, the mapping pane focused.
func focusedMappingRun(t *testing.T) (*Model, *scriptedStarter, *scriptedRun) {
	t.Helper()
	userDevicesIn(t)
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	run := startRun(t, m, st)
	m.setFocus(paneMapping)
	return m, st, run
}

// TestDevicesEditor edits the running platform in the mapping pane: the
// prediction follows, the live run is not touched, w saves, enter saves
// and asks for a restart on the saved file, esc closes.
func TestDevicesEditor(t *testing.T) {
	m, st, run := focusedMappingRun(t)
	dir := engine.UserDevicesDir()
	runCmd(m, press(m, "d"))
	p := m.mapping
	if !p.Editing() {
		t.Fatalf("d did not open the editor: %q", p.status)
	}
	if text := plain(m); !strings.Contains(text, "what if · table-iv") || !strings.Contains(text, "PCIe bandwidth") {
		t.Fatalf("the editor is not drawn:\n%s", text)
	}
	if got := selectedKey(p.editor); got != "link.gbs" {
		t.Fatalf("the first parameter is %s", got)
	}

	press(m, "-")
	if v, _ := valueOf(p.editor, "link.gbs"); v != 12.5 {
		t.Errorf("- took the bandwidth to %g, want 12.5", v)
	}
	if text := plain(m); !strings.Contains(text, "PCIe bandwidth     12.5 GB/s*") {
		t.Errorf("the edited value is not marked:\n%s", text)
	}
	press(m, "z")
	if text := plain(m); !strings.Contains(text, "12.5 GB/s* (file 16)") {
		t.Errorf("the edited value is not shown with the file's:\n%s", text)
	}
	press(m, "z")
	press(m, "x")
	if v, _ := valueOf(p.editor, "link.gbs"); v != 16 {
		t.Errorf("x left the bandwidth at %g, want the file's 16", v)
	}

	// The GPU's launch latency bounds the Hopper learner's step: a slower
	// launch lowers the prediction on the draft, not the live run's.
	live := m.snap.Mapping.PredictedGPS
	before := p.editor.view.PredictedGPS
	press(m, "down")
	press(m, "down")
	for range 10 {
		press(m, "+")
	}
	if v, _ := valueOf(p.editor, "gpu.launch_us"); v != 20 {
		t.Errorf("ten + took the launch latency to %g µs, want 20", v)
	}
	if after := p.editor.view.PredictedGPS; !(after < before) {
		t.Errorf("a 20 µs launch predicts %g GPS, not below the 10 µs launch's %g", after, before)
	}
	if m.snap.Mapping.PredictedGPS != live || len(st.cfgs) != 1 {
		t.Error("editing the draft changed the live run")
	}
	if _, _, mappings := run.calls(); len(mappings) != 0 {
		t.Errorf("editing the draft switched the live run's mapping: %v", mappings)
	}

	want := filepath.Join(dir, "table-iv-edited.yaml")
	press(m, "w")
	if _, err := os.Stat(want); err != nil {
		t.Fatalf("w saved nothing at %s: %v", want, err)
	}
	if !strings.Contains(p.editor.note, want) {
		t.Errorf("the note %q does not name the file", p.editor.note)
	}

	cmd := press(m, "enter")
	if cmd == nil {
		t.Fatalf("enter asked for nothing: %q", p.editor.note)
	}
	msg, ok := cmd().(applyConfigMsg)
	if !ok || msg.cfg.Devices != want {
		t.Fatalf("enter asked for %#v, want a restart on %s", msg, want)
	}
	pl, err := engine.LoadPlatform(msg.cfg.Devices)
	if err != nil || pl.GPU.LaunchUS != 20 {
		t.Fatalf("the saved platform: %v, %v", pl, err)
	}
	if c := msg.cfg; c.Env != "Hopper-workload" || c.Batch != 16384 {
		t.Errorf("the restart asks for %+v, not the running configuration", c)
	}

	press(m, "esc")
	if p.Editing() {
		t.Error("esc did not close the editor")
	}
}

// selectedKey returns the key of the parameter selected in e.
func selectedKey(e *devicesEditor) string { return e.params[e.sel].Key }

// valueOf returns e's draft value of the parameter at key.
func valueOf(e *devicesEditor, key string) (float64, bool) {
	for _, dp := range e.params {
		if dp.Key == key {
			return dp.Value, true
		}
	}
	return 0, false
}

// draftChosen returns the mapping e predicts the run would choose on the
// draft, "" when it cannot predict.
func draftChosen(e *devicesEditor) string {
	if e.err != nil {
		return ""
	}
	return e.view.Chosen
}

// whatIfConfig is the configuration of TestFlowWhatIfPCIe: Humanoid PPO,
// 128 environments of 512 steps, 16 actors, on platform (a file).
func whatIfConfig(platform string) engine.Config {
	return engine.Config{Env: "Humanoid-workload", Algo: "ppo", Envs: 128, Horizon: 512, Actors: 16,
		Devices: platform, Seed: 1}
}

// fastCPUPlatform saves Table IV with a 16-thread CPU of 1.6 TFLOPS, the
// other devices as they are, and returns the file.
func fastCPUPlatform(t *testing.T) string {
	t.Helper()
	d, err := engine.DraftPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]float64{"cpu.cores": 16, "cpu.peak_gflops": 1600} {
		if err := d.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "fast-cpu.yaml")
	if err := d.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// whatIfState is what the what-if flow waits for: the editor's state and
// the runs started.
type whatIfState struct {
	run       LiveRun
	editing   bool
	gbs       float64 // the draft's PCIe bandwidth
	draft     string  // the mapping the draft predicts
	liveChose string  // the live run's mapping
}

func (s *whatIfState) String() string {
	return fmt.Sprintf("editing %v, draft PCIe %g GB/s runs %q, live %q", s.editing, s.gbs, s.draft, s.liveChose)
}

func readWhatIf(m *Model) *whatIfState {
	s := &whatIfState{run: m.run}
	if e := m.mapping.editor; e != nil {
		s.editing, s.draft = true, draftChosen(e)
		s.gbs, _ = valueOf(e, "link.gbs")
	}
	if m.snap != nil {
		s.liveChose = m.snap.Mapping.Chosen
	}
	return s
}

// TestFlowWhatIfPCIe is the what-if: Humanoid PPO (128 x 512, 16
// actors) on Table IV with a 16-thread 1.6 TFLOPS CPU runs F-F-F. In the
// mapping pane's devices editor the user lowers the PCIe bandwidth: at
// 0.8 GB/s the rollout's trip to the FPGA costs more than the CPU learner
// loses, and the draft runs C-C-C, while the live run goes on. Enter
// saves the platform and restarts the run on the saved file.
func TestFlowWhatIfPCIe(t *testing.T) {
	dir := userDevicesIn(t)
	platform := fastCPUPlatform(t)
	st := &scriptedStarter{}
	p := newProbe(New(t.Context(), st.start, whatIfConfig(platform)), readWhatIf)
	tm := teatest.NewTestModel(t, p, teatest.WithInitialTermSize(120, 40))
	waitFor(t, "the run to start", func() bool { r, _ := st.last(); return r != nil })
	waitState(t, p, "the model to take the run", func(s *whatIfState) bool { return s.run != nil })

	// Tree, pipeline, charts, mapping; d opens the editor on the PCIe
	// bandwidth.
	for range 3 {
		tm.Send(keyCode(tea.KeyTab))
	}
	tm.Type("d")
	s := waitState(t, p, "the editor", func(s *whatIfState) bool { return s.editing && s.draft != "" })
	if s.gbs != 16 || s.draft != "F-F-F" {
		t.Fatalf("the editor opened on %v, want PCIe 16 GB/s running F-F-F", s)
	}

	// Lower the bandwidth one step at a time until the mapping changes.
	var at float64
	for range 20 {
		prev := s.gbs
		tm.Type("-")
		s = waitState(t, p, "the next bandwidth", func(s *whatIfState) bool { return s.gbs < prev })
		if s.draft != "F-F-F" {
			at = s.gbs
			break
		}
	}
	if s.draft != "C-C-C" || at != 0.8 {
		t.Fatalf("lowering the PCIe bandwidth: %v; want C-C-C from 0.8 GB/s", s)
	}
	if _, cfgs := st.last(); len(cfgs) != 1 {
		t.Fatalf("editing restarted the run: %d runs", len(cfgs))
	}
	if r, _ := st.last(); len(r.mappings) != 0 {
		t.Fatalf("editing switched the live run's mapping: %v", r.mappings)
	}

	tm.Send(keyCode(tea.KeyEnter))
	saved := filepath.Join(dir, "fast-cpu-edited.yaml")
	waitFor(t, "the restart on the saved platform", func() bool {
		_, cfgs := st.last()
		return len(cfgs) == 2
	})
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(flowWait))
	_, cfgs := st.last()
	if got := cfgs[1]; got.Devices != saved || got.Env != "Humanoid-workload" || got.Envs != 128 {
		t.Fatalf("restarted with %+v, want the run on %s", got, saved)
	}
	pl, err := engine.LoadPlatform(saved)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Link.GBs != 0.8 || pl.CPU.Cores != 16 || pl.CPU.PeakGFLOPS != 1600 {
		t.Errorf("the saved platform: PCIe %g GB/s, %d cores of %g GFLOPS", pl.Link.GBs, pl.CPU.Cores, pl.CPU.PeakGFLOPS)
	}
	if v, err := engine.Predict(cfgs[1]); err != nil || v.Chosen != "C-C-C" {
		t.Errorf("the restarted configuration predicts %q, %v; want C-C-C", v.Chosen, err)
	}
}

// TestGoldenDevices draws the devices editor at each size, the mapping
// pane focused, the PCIe bandwidth lowered one step, on the
// hopper-ddpg-16384 preset, whose live mapping view the scripted run
// shows.
func TestGoldenDevices(t *testing.T) {
	userDevicesIn(t)
	cfg := hopperConfig()
	cfg.Fanout, cfg.Actors, cfg.Depth = 2, 16, 50
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, st := newTestModel(t, cfg, sz.w, sz.h)
			startRun(t, m, st)
			m.setFocus(paneMapping)
			runCmd(m, press(m, "d"))
			press(m, "-")
			out := content(m)
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

// TestEscInTheZoomedEditor: with the mapping pane zoomed and the devices
// editor open, the first esc closes the editor and the next leaves the
// zoom, as docs/tui.md says.
func TestEscInTheZoomedEditor(t *testing.T) {
	m, _, _ := focusedMappingRun(t)
	press(m, "z")
	runCmd(m, press(m, "d"))
	if !m.zoomed || !m.mapping.Editing() {
		t.Fatalf("zoomed %v, editing %v; want both", m.zoomed, m.mapping.Editing())
	}
	press(m, "esc")
	if m.mapping.Editing() || !m.zoomed {
		t.Errorf("the first esc: editing %v, zoomed %v; want the editor closed, the zoom kept", m.mapping.Editing(), m.zoomed)
	}
	press(m, "esc")
	if m.zoomed {
		t.Error("the second esc did not leave the zoom")
	}
}
