package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
)

// pipelinePane draws each simulated device's stages (learner pipeline
// stages, RMM sampler/updater banks, systolic array, GAE PEs, PCIe links)
// busy or idle over the recent window of simulated time, with each stage's
// utilisation, and the bounded queues between processing units.
type pipelinePane struct {
	c    *common
	w, h int

	snap   *engine.Snapshot
	offset int // first content line shown

	view  viewCache[pipeKey]
	lines int // content lines of the last render, for scrolling
}

type pipeKey struct {
	seq          uint64
	w, h, offset int
	dark         bool
}

func newPipelinePane(c *common) *pipelinePane { return &pipelinePane{c: c} }

// SetSize sets the inner size of the pane.
func (p *pipelinePane) SetSize(w, h int) { p.w, p.h = w, h }

// SetSnapshot hands the pane the newest snapshot.
func (p *pipelinePane) SetSnapshot(s *engine.Snapshot) { p.snap = s }

// Update scrolls the stages.
func (p *pipelinePane) Update(msg tea.KeyPressMsg) tea.Cmd {
	p.offset = p.c.Keys.scrolled(msg, p.offset, p.lines, p.h)
	return nil
}

// View renders the pane's inner w x h cells, cached by snapshot and size.
func (p *pipelinePane) View() string {
	k := pipeKey{w: p.w, h: p.h, offset: p.offset, dark: p.c.Styles.Dark}
	if p.snap != nil {
		k.seq = p.snap.Seq + 1
	}
	return p.view.get(k, p.render)
}

// Occupancy glyphs by busy fraction of a cell: idle, then rising shades.
const (
	occIdle = iota
	occLow
	occMid
	occHigh
	occFull
	numOcc
)

var occGlyphs = [numOcc]string{"·", "░", "▒", "▓", "█"}

func occKind(f float64) uint8 {
	switch {
	case !(f > 0.005):
		return occIdle
	case f < 0.34:
		return occLow
	case f < 0.67:
		return occMid
	case f < 0.995:
		return occHigh
	}
	return occFull
}

func (p *pipelinePane) render() string {
	st := p.c.Styles
	if p.w <= 0 || p.h <= 0 {
		return ""
	}
	s := p.snap
	if s == nil || len(s.Devices) == 0 {
		p.lines = 0
		return st.Muted.Render("No device activity yet.")
	}

	// Device headers above their stages when there is room, else the
	// device named on each stage's line.
	stages := 0
	for _, d := range s.Devices {
		stages += len(d.Stages)
	}
	grouped := stages+len(s.Devices) <= p.h
	d0 := s.Devices[0]
	// A view on another window than the first, such as the cycle-level
	// pipeline of one batch, always gets its header: its stages are on
	// another clock than the live devices above it.
	ownWindow := func(d engine.DeviceView) bool { return d.From != d0.From || d.To != d0.To }
	headed := func(d engine.DeviceView) bool { return grouped || ownWindow(d) }
	label := func(d engine.DeviceView, sv engine.StageView) string {
		if headed(d) {
			return "  " + sv.Name
		}
		return d.Name + " " + sv.Name
	}
	nameW := 4
	for _, d := range s.Devices {
		for _, sv := range d.Stages {
			nameW = max(nameW, len([]rune(label(d, sv)))+1)
		}
	}
	nameW = min(nameW, max(p.w/3, 8))
	const pctW = 5
	cellsW := p.w - nameW - pctW - 2
	pt := &st.paint
	styles := [numOcc]paint{pt.idle, pt.busy, pt.busy, pt.busy, pt.busy}

	var lines []string
	bins := make([]float64, max(cellsW, 0))
	kinds := make([]uint8, max(cellsW, 0))
	for _, d := range s.Devices {
		if headed(d) {
			head := st.Strong.Render(d.Name)
			if ownWindow(d) {
				head += st.Muted.Render(fmt.Sprintf("  %s … %s", units.Seconds(d.From), units.Seconds(d.To)))
			}
			lines = append(lines, head)
		}
		for _, sv := range d.Stages {
			var b strings.Builder
			b.WriteString(st.Text.Render(fit(label(d, sv), nameW)))
			if cellsW > 0 {
				pt.muted.add(&b, "▕")
				busyBins(bins, sv.Busy, d.From, d.To)
				for i, f := range bins {
					kinds[i] = occKind(f)
				}
				renderOcc(&b, kinds, styles)
				pt.muted.add(&b, "▏")
			}
			b.WriteString(st.Text.Render(fmt.Sprintf("%*s", pctW, units.Percent(sv.Utilization, 0))))
			lines = append(lines, b.String())
		}
	}
	lines = append(lines, st.Muted.Render(fmt.Sprintf("window %s … %s of sim time · █▓▒░ busy share of a cell · idle",
		units.Seconds(d0.From), units.Seconds(d0.To))))
	if len(s.Queues) > 0 {
		lines = append(lines, st.Strong.Render("Queues")+st.Muted.Render(" (host rates)"))
		for _, q := range s.Queues {
			lines = append(lines, st.Text.Render(fmt.Sprintf("  %s  %d/%d  in %s/s  out %s/s",
				q.Name, q.Len, q.Cap, units.SI(q.InPerSec), units.SI(q.OutPerSec))))
		}
	}

	p.lines = len(lines)
	p.offset = min(p.offset, max(len(lines)-p.h, 0))
	end := min(p.offset+p.h, len(lines))
	return strings.Join(lines[p.offset:end], "\n")
}

// Note is the frame note: the clock and the window.
func (p *pipelinePane) Note() string {
	if p.snap == nil || len(p.snap.Devices) == 0 {
		return "sim clock"
	}
	d := p.snap.Devices[0]
	note := "sim clock, last " + units.Seconds(d.To-d.From)
	if below := p.lines - p.offset - p.h; below > 0 {
		note += fmt.Sprintf(" · ↓ %d more", below)
	}
	if p.offset > 0 {
		note += fmt.Sprintf(" · ↑ %d", p.offset)
	}
	return note
}

// busyBins fills dst with the busy fraction of len(dst) equal bins over the
// window [from, to), from sorted, disjoint intervals. O(len(dst) + len(busy)).
func busyBins(dst []float64, busy []engine.Interval, from, to float64) {
	clear(dst)
	n := len(dst)
	if n == 0 || !(to > from) {
		return
	}
	width := (to - from) / float64(n)
	for _, iv := range busy {
		s, e := max(iv.Start, from), min(iv.End, to)
		if !(e > s) {
			continue
		}
		first := min(int((s-from)/width), n-1)
		last := min(int((e-from)/width), n-1)
		for b := first; b <= last; b++ {
			lo := from + float64(b)*width
			hi := lo + width
			if ov := min(e, hi) - max(s, lo); ov > 0 {
				dst[b] += ov / width
			}
		}
	}
	for i := range dst {
		dst[i] = min(dst[i], 1)
	}
}

// renderOcc writes occupancy cells, one painted run per stretch of busy or
// of idle cells.
func renderOcc(b *strings.Builder, kinds []uint8, paints [numOcc]paint) {
	for i := 0; i < len(kinds); {
		j := i
		// All busy shades share one paint: one run for them all.
		for j < len(kinds) && (kinds[j] == kinds[i] || (kinds[j] != occIdle && kinds[i] != occIdle)) {
			j++
		}
		var run strings.Builder
		for _, k := range kinds[i:j] {
			run.WriteString(occGlyphs[k])
		}
		paints[kinds[i]].add(b, run.String())
		i = j
	}
}
