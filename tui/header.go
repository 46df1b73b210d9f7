package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// headerWide is the width from which the header fits on one line.
const headerWide = 240

// headerHeight is the header's height at width w: one line when wide, two
// otherwise (fixed per width so the layout does not jump as numbers grow).
func headerHeight(w int) int {
	if w >= headerWide {
		return 1
	}
	return 2
}

// header renders the header: the walkthrough and its step (in walkthrough
// mode), the workload and its sizes, the mapping (requested → chosen), the
// throughput on both clocks and the run state.
func (m *Model) header() []string {
	st := m.com.Styles
	w := m.com.Width
	cfg := m.cfg
	s := m.snap
	if s != nil && m.run != nil {
		cfg = s.Config.Defaults()
	}
	sep := st.Muted.Render(" · ")

	what := []string{st.App.Render("rlx")}
	if m.wt != nil {
		// First, so that a narrow header keeps it: where the walkthrough is.
		p := &m.wt.preset
		what = append(what, st.Muted.Render(p.Kind+" ")+st.Strong.Render(p.Name),
			st.Accent.Bold(true).Render(fmt.Sprintf("step %d/%d", m.wt.step+1, len(m.wt.cfgs))))
	}
	what = append(what, st.Strong.Render(cfg.Env+" "+string(cfg.Algo)))
	mapping := "mapping " + cfg.Mapping.String()
	if s != nil && s.Mapping.Chosen != "" {
		mapping = "mapping " + mappingText(s.Mapping.Requested, cfg.Mapping.String(), s.Mapping.Chosen)
	}
	what = append(what, st.Accent.Render(mapping))
	if cfg.Algo.OnPolicy() {
		what = append(what, st.Text.Render(fmt.Sprintf("N %d · T %d · %d epochs × %d minibatches",
			cfg.Envs, cfg.Horizon, cfg.Epochs, cfg.Minibatches)))
	} else {
		what = append(what, st.Text.Render(fmt.Sprintf("B %d · K %d · D %d · %d actor(s)",
			cfg.Batch, cfg.Fanout, cfg.Depth, cfg.Actors)))
	}
	if platformName(cfg.Devices) != engine.DefaultDevices {
		// The default Table IV platform goes unsaid; any other is part of
		// what runs (the figures are on its clock).
		what = append(what, st.Muted.Render("on ")+st.Text.Render(filepath.Base(cfg.Devices)))
	}
	if cfg.Name != "" && m.wt == nil {
		// The name is the preset's only while the run is the preset's:
		// once the form or a mapping switch changed it, say so. m.cfg,
		// not the snapshot's configuration, follows a live switch.
		if sameRun(m.origin, m.cfg) {
			what = append(what, st.Muted.Render("preset ")+st.Text.Render(cfg.Name))
		} else {
			what = append(what, st.Warn.Render("edited")+st.Muted.Render(" from preset ")+st.Text.Render(cfg.Name))
		}
	}

	how := []string{m.stateBadge()}
	if s != nil {
		rn := rateName(s)
		simRate, hostRate := s.Sim.GPS, s.Host.GPS
		if rn == "IPS" {
			simRate, hostRate = s.Sim.IPS, s.Host.IPS
		}
		how = append(how,
			st.Text.Render("sim ")+st.Strong.Render(units.SI(simRate)+" "+rn),
			st.Text.Render("host ")+st.Strong.Render(units.SI(hostRate)+" "+rn),
			st.Muted.Render(fmt.Sprintf("%s host · %s sim", units.Duration(s.HostElapsed), units.Seconds(s.SimElapsed))),
			st.Muted.Render(fmt.Sprintf("env steps %s · grad steps %s · episodes %s",
				units.Count(s.Counters.EnvSteps), units.Count(s.Counters.GradSteps), units.Count(s.Counters.Episodes))),
		)
	}

	line1 := strings.Join(what, sep)
	line2 := strings.Join(how, sep)
	if m.headerH == 1 {
		return []string{fit(line1+st.Muted.Render("  │  ")+line2, w)}
	}
	return []string{fit(line1, w), fit(line2, w)}
}

// mappingText is "auto → G-F-G" for a DSE choice, "G-G-G (by hand)" for a
// mapping asked for by name.
func mappingText(requested, configured, chosen string) string {
	if requested == "" {
		requested = configured
	}
	if requested == chosen {
		return chosen + " (by hand)"
	}
	return requested + " → " + chosen
}

// stateBadge says what the run is doing, with a glyph that reads without
// colour.
func (m *Model) stateBadge() string {
	st := m.com.Styles
	switch {
	case m.starting:
		return st.Warn.Render("… starting")
	case m.run == nil && m.startErr != nil:
		return st.Error.Render("✗ not running")
	case m.run == nil:
		return st.Muted.Render("■ no run")
	}
	state := engine.Running
	if m.snap != nil {
		state = m.snap.State
	}
	switch {
	case m.paused && state == engine.Running:
		return st.Warn.Render("‖ pausing…")
	case !m.paused && state == engine.Paused:
		return st.Warn.Render("▶ resuming…")
	}
	switch state {
	case engine.Starting:
		return st.Warn.Render("… starting")
	case engine.Running:
		return st.Good.Render("▶ running")
	case engine.Paused:
		return st.Warn.Render("‖ paused")
	case engine.Finished:
		return st.Good.Render("✓ finished")
	case engine.Stopped:
		return st.Muted.Render("■ stopped")
	case engine.Failed:
		return st.Error.Render("✗ failed")
	}
	return st.Muted.Render(state.String())
}

// tabBar renders the compact layout's pane tabs, the focused one marked.
func (m *Model) tabBar() string {
	st := m.com.Styles
	var b strings.Builder
	for i, p := range m.order {
		if i > 0 {
			b.WriteString(st.Muted.Render("│"))
		}
		label := tabLabel(p, m.marked[p])
		if p == m.focus {
			b.WriteString(st.TabActive.Render(label))
		} else {
			b.WriteString(st.TabIdle.Render(label))
		}
	}
	hint := "tab/shift+tab or click to switch"
	if m.zoomed && !m.lay.compact {
		hint = "zoomed · z or esc to return"
	}
	line := b.String()
	if cellWidth(line)+len(hint)+2 <= m.com.Width {
		line += "  " + st.Muted.Render(hint)
	}
	return fit(line, m.com.Width)
}
