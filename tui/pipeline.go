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
// over the recent window of simulated time, one cell per equal slice of
// it shaded by the stage's busy share of that slice, with each stage's
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
	p.Scroll(scrollDelta(msg, p.c.Keys.ScrollUp, p.c.Keys.ScrollDown))
	return nil
}

// Scroll moves the stages d lines (a key, the mouse wheel), kept so that
// they never scroll past their end.
func (p *pipelinePane) Scroll(d int) { p.offset = scrolled(p.offset, d, p.lines, p.h) }

// View renders the pane's inner w x h cells, cached by snapshot and size.
func (p *pipelinePane) View() string {
	k := pipeKey{w: p.w, h: p.h, offset: p.offset, dark: p.c.Styles.Dark}
	if p.snap != nil {
		k.seq = p.snap.Seq + 1
	}
	return p.view.get(k, p.render)
}

// Occupancy glyphs by busy share of a cell: idle, then rising shades.
const (
	occIdle = iota
	occLow
	occMid
	occHigh
	occFull
	numOcc
)

var occGlyphs = [numOcc]string{"·", "░", "▒", "▓", "█"}

// occKind is the glyph of a cell busy f of its time: idle only when it
// did no work (above rounding), the lightest shade under a third, full
// from 99.5%.
func occKind(f float64) uint8 {
	switch {
	case !(f > 1e-9):
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
	shares := make([]float64, max(cellsW, 0))
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
				cellShares(shares, sv.Occupancy)
				for i, f := range shares {
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

// cellShares fills dst with the busy share of each of len(dst) equal
// cells over a stage's window, from its occupancy: the busy fraction of
// len(bins) equal bins of the same window (engine.StageView.Occupancy). A
// cell's share is the mean of the bins under it, a bin a cell edge cuts
// weighted by its part inside the cell, so it is the busy time in the cell
// over the cell's width whenever busy time spreads evenly within each bin.
// Cells and bins need not align: in units of 1/(len(dst) x len(bins)) of
// the window, cell c spans [c x len(bins), (c+1) x len(bins)) and bin b
// spans [b x len(dst), (b+1) x len(dst)), so every weight is a whole
// number. No bins give idle cells. O(len(dst) + len(bins)).
func cellShares(dst, bins []float64) {
	clear(dst)
	nc, nb := len(dst), len(bins)
	if nc == 0 || nb == 0 {
		return
	}
	for c := range dst {
		lo, hi := c*nb, (c+1)*nb
		sum := 0.0
		for b := lo / nc; b < nb && b*nc < hi; b++ {
			sum += float64(min(hi, (b+1)*nc)-max(lo, b*nc)) * bins[b]
		}
		dst[c] = sum / float64(nb)
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
