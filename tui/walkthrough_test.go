package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/rlxdev/rlx/engine"
)

// tourYAML is a walkthrough written for these tests (presets/runs/ is
// another concern): a run the DSE maps, a step that changes only the
// mapping, one that changes the batch and one that changes the fanout.
const tourYAML = `
name: hopper-dse-tour
kind: walkthrough
summary: Where Hopper DDPG at batch 16384 should run, and what a smaller batch or a wider tree changes
description: Four steps through the device mapping of Hopper DDPG.
run:
  env: Hopper-workload
  algo: ddpg
  seed: 1
  batch: 16384
  capacity: 1048576
  fanout: 16
  mapping: auto
steps:
  - title: The mapping the DSE picks
    section: 000 §VI-B, Table V
    text: |
      The design-space exploration times the learner and the replay
      manager on each device and keeps the mapping with the most gradient
      steps per second. At batch 16384 the learner belongs on the GPU and
      sampling on the FPGA.
    expect: G-F-G marked now in the mapping list, about 173 GPS predicted, the GPU learner busy all the time.
    panes: [mapping, pipeline]
  - title: Everything on the GPU
    section: 000 §VI-B, Table V
    text: |
      The same run with the replay manager moved to the GPU, where it
      shares the device with the learner. Only the mapping changes, so the
      run goes on and the charts show the switch.

      Compare the simulated rate before and after the line that marks it.
    expect: the simulated GPS settling near 143, the second best row of the list.
    panes: [mapping, charts]
    set:
      mapping: G-G-G
  - title: A quarter of the batch
    section: 000 §VI-A3
    text: A smaller batch makes each learner step cheaper; the run restarts with the new size.
    expect: more gradient steps per second on both clocks.
    panes: [pipeline, config, charts]
    set:
      batch: 4096
  - title: A wider tree
    section: 002 §IV-C5
    text: Sixty-four children a node make the tree shallower, and each level's scan longer.
    panes: [tree]
    set:
      fanout: 64
`

// tourPreset parses tourYAML as the rlx command would read a preset.
func tourPreset(t testing.TB) engine.Preset {
	t.Helper()
	p, err := engine.ParsePreset("tour.yaml", []byte(tourYAML))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tourBudget is the command line's override in these tests: a step budget
// on every step, as --steps gives.
func tourBudget(c engine.Config) engine.Config {
	c.Steps = 500_000
	return c
}

// newTourModel opens the explorer on the walkthrough as the rlx command
// does, sized w x h, and starts its first step.
func newTourModel(t testing.TB, w, h int) (*Model, *scriptedStarter, *scriptedRun) {
	t.Helper()
	p := tourPreset(t)
	m, st := newTestModel(t, tourBudget(p.StepConfig(0)), w, h, WithPreset(p, tourBudget))
	r := startRun(t, m, st)
	return m, st, r
}

// step presses n or p and, when that restarts the run, runs the start and
// feeds the new run's events, as the program would. It returns the run
// live afterwards.
func step(t testing.TB, m *Model, st *scriptedStarter, k string) *scriptedRun {
	t.Helper()
	if cmd := press(m, k); cmd != nil {
		msg := cmd()
		if _, ok := msg.(startedMsg); !ok {
			t.Fatalf("%s returned %T, want a start", k, msg)
		}
		m.Update(msg)
	}
	r, _ := st.last()
	drain(m, r)
	return r
}

// TestWalkthroughSteps walks the tour forward and back: a step that
// changes only the mapping switches the live run, any other restarts it
// with the step's whole configuration, and the ends say so.
func TestWalkthroughSteps(t *testing.T) {
	m, st, first := newTourModel(t, 120, 40)
	if m.Step() != 0 {
		t.Fatalf("opened on step %d, want 0", m.Step())
	}
	out := plain(m)
	for _, want := range []string{"walkthrough hopper-dse-tour", "step 1/4", "Walkthrough", "step 1 of 4", "The mapping the DSE", "000 §VI-B, Table V"} {
		if !strings.Contains(out, want) {
			t.Errorf("step 1 does not show %q:\n%s", want, out)
		}
	}
	if !m.marked[paneMapping] || !m.marked[panePipeline] || m.marked[paneCharts] {
		t.Errorf("step 1 marks %v, want the mapping and pipeline panes", m.marked)
	}

	// Step 2 changes only the mapping: the same run, switched live.
	if r := step(t, m, st, "n"); r != first {
		t.Fatal("a mapping-only step restarted the run")
	}
	if _, _, maps := first.calls(); !slices.Equal(maps, []string{"G-G-G"}) {
		t.Errorf("SetMapping calls %v, want [G-G-G]", maps)
	}
	if !strings.Contains(m.Status(), "G-G-G") || !m.marked[paneCharts] {
		t.Errorf("step 2: status %q, marked %v", m.Status(), m.marked)
	}

	// Step 3 changes the batch: a restart carrying the step's mapping too.
	third := step(t, m, st, "n")
	if third == first {
		t.Fatal("a batch step did not restart the run")
	}
	_, cfgs := st.last()
	if c := cfgs[len(cfgs)-1]; c.Batch != 4096 || c.Mapping.String() != "G-G-G" || c.Fanout != 16 || c.Steps != 500_000 {
		t.Errorf("step 3 started %+v, want batch 4096, mapping G-G-G, fanout 16 and the override's budget", c)
	}
	step(t, m, st, "n")
	if _, cfgs := st.last(); cfgs[len(cfgs)-1].Fanout != 64 {
		t.Errorf("step 4 started fanout %d, want 64", cfgs[len(cfgs)-1].Fanout)
	}
	starts := len(st.cfgs)
	if press(m, "n") != nil || m.Step() != 3 || !strings.Contains(m.Status(), "last step") {
		t.Errorf("n on the last step: step %d, status %q", m.Step(), m.Status())
	}

	// Back to the start: each step restores its own configuration.
	step(t, m, st, "p")
	if _, cfgs := st.last(); cfgs[len(cfgs)-1].Fanout != 16 || cfgs[len(cfgs)-1].Batch != 4096 {
		t.Errorf("p to step 3 started %+v", cfgs[len(cfgs)-1])
	}
	step(t, m, st, "p") // batch 4096 → 16384: a restart
	second := step(t, m, st, "p")
	// Step 1 differs from step 2 in the mapping alone: switched live.
	if _, _, maps := second.calls(); !slices.Equal(maps, []string{"auto"}) {
		t.Errorf("p to step 1: SetMapping calls %v, want [auto]", maps)
	}
	if c := m.Config(); c.Batch != 16384 || c.Mapping.String() != "auto" {
		t.Errorf("p to step 1 runs %+v, want batch 16384 and mapping auto", c)
	}
	if press(m, "p") != nil || m.Step() != 0 || !strings.Contains(m.Status(), "first step") {
		t.Errorf("p on the first step: step %d, status %q", m.Step(), m.Status())
	}
	if len(st.cfgs) < starts+2 {
		t.Errorf("%d starts after walking back, want at least %d", len(st.cfgs), starts+2)
	}
}

// TestWalkthroughMappingStepRestartsAnEndedRun: a mapping switch needs a
// live run; once the run has ended the step starts a new one.
func TestWalkthroughMappingStepRestartsAnEndedRun(t *testing.T) {
	m, st, first := newTourModel(t, 120, 40)
	first.Stop()
	drain(m, first)
	if r := step(t, m, st, "n"); r == first {
		t.Fatal("the mapping step did not restart an ended run")
	}
	if _, cfgs := st.last(); cfgs[len(cfgs)-1].Mapping.String() != "G-G-G" {
		t.Errorf("the restart runs mapping %q, want G-G-G", cfgs[len(cfgs)-1].Mapping)
	}
}

// TestWalkthroughOffForRuns: a preset of kind run opens the explorer as
// before, with n and p free and no narrative.
func TestWalkthroughOffForRuns(t *testing.T) {
	p := engine.Preset{Name: "hopper", Kind: engine.KindRun, Run: hopperConfig()}
	m, st := newTestModel(t, p.Run, 120, 40, WithPreset(p, nil))
	startRun(t, m, st)
	if m.Step() != -1 || strings.Contains(plain(m), "Walkthrough") {
		t.Errorf("a run preset shows walkthrough mode (step %d)", m.Step())
	}
}

// TestPaneNamesMapToPanes checks that every pane a preset step may name
// (engine.PaneNames, which ParsePreset enforces) is one the explorer can
// mark: showStep skips names it does not know.
func TestPaneNamesMapToPanes(t *testing.T) {
	for _, name := range engine.PaneNames {
		if _, ok := paneByName[name]; !ok {
			t.Errorf("pane %q of engine.PaneNames has no pane in paneByName", name)
		}
	}
	if len(paneByName) != len(engine.PaneNames) {
		t.Errorf("paneByName has %d names, engine.PaneNames %d", len(paneByName), len(engine.PaneNames))
	}
}

// TestGoldenWalkthrough draws the tour's second step, the narrative beside
// the panes, at each size.
func TestGoldenWalkthrough(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			m, st, _ := newTourModel(t, sz.w, sz.h)
			step(t, m, st, "n")
			out := content(m)
			checkFrame(t, out, sz.w, sz.h)
			golden.RequireEqual(t, out)
		})
	}
}

// TestConfigChangesIgnoresLabels: a step that renames the run changes
// nothing it does; the fields the run's algorithm does not use are left
// out; every other difference is listed with its text form.
func TestConfigChangesIgnoresLabels(t *testing.T) {
	a := hopperConfig().Defaults()
	b := a
	b.Name = "renamed"
	b.Envs = 99 // a PPO field, not used by DDPG
	if cs := configChanges(a, b); len(cs) != 0 {
		t.Errorf("a new name and an unused field gave changes %v", cs)
	}
	b.Batch, b.Mapping = 4096, engine.MustMapping("G-G-G")
	if got := joinChanges(configChanges(a, b)); got != "batch 16384 → 4096 · mapping auto → G-G-G" {
		t.Errorf("changes %q", got)
	}
}

// A walkthrough of N steps is built in O(N): each step's configuration
// from the step before, not every step's from the start (20,000 steps
// took a minute that way). Counted in allocations, which do not depend on
// the machine: four times the steps must cost about four times as many.
func TestWalkthroughBuildIsLinear(t *testing.T) {
	preset := func(n int) engine.Preset {
		p := engine.Preset{Name: "long", Kind: engine.KindWalkthrough, Run: engine.Config{Env: "CartPole-v1", Algo: "dqn"}}
		for i := range n {
			p.Steps = append(p.Steps, engine.Step{Title: "t", Set: engine.Config{Batch: 1 + i%100}})
		}
		return p
	}
	small, large := preset(500), preset(2000)
	a := testing.AllocsPerRun(3, func() { newWalkthrough(small, nil) })
	b := testing.AllocsPerRun(3, func() { newWalkthrough(large, nil) })
	if r := b / a; r > 6 {
		t.Errorf("4x the steps took %.1fx the allocations (%.0f against %.0f): quadratic", r, b, a)
	}
}
