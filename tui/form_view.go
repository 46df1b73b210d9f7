package tui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

const formLabelW = 12

// Lines of the drawn form that belong to no row.
const (
	lineNone     = -1 // an error about a hidden row
	lineMoreUp   = -2 // "↑ more": rows above are hidden
	lineMoreDown = -3 // "↓ more": rows below are hidden
)

// formLayout is the form as drawn in its w x h cells: the rows but the
// apply button scroll, the apply button and the focused row's help stay
// at the bottom, so that apply never leaves the view.
type formLayout struct {
	lines  []string // what shows, top to bottom
	rows   []int    // for each line: the index of its row in fields, or a line* constant
	offset int      // the first scrolled line shown
	starts []int    // the scrolled lines where a row (or the error above them) starts
}

// View renders the form (or its open picker) in the inner w x h cells,
// cached until the form changes.
func (f *configForm) View() string {
	k := formKey{version: f.version, w: f.w, h: f.h, styles: f.c.Styles}
	return f.view.get(k, f.render)
}

func (f *configForm) render() string {
	if f.w <= 0 || f.h <= 0 {
		return ""
	}
	if f.picker != nil {
		return f.picker.View()
	}
	return strings.Join(f.layout().lines, "\n")
}

// layout lays the form out. The scrolled part is every visible row but
// apply, each followed by its error; it shows from f.offset, moved as
// little as it takes to show the cursor's row with its error whole, and
// "↑ more" and "↓ more" take a line each when rows are hidden that way.
func (f *configForm) layout() formLayout { return f.layoutFrom(f.offset, true) }

// layoutFrom lays the form out with its scrolled part shown from the
// offset nearest want, and with the cursor's row whole if keepCursor.
func (f *configForm) layoutFrom(want int, keepCursor bool) formLayout {
	var (
		content []string
		owner   []int
		starts  []int    // where each row begins in content
		cs, ce  = -1, -1 // the cursor's row and its error, in content
		apply   = -1
	)
	add := func(row int, ls ...string) {
		for _, l := range ls {
			content = append(content, l)
			owner = append(owner, row)
		}
	}
	errRow := slices.IndexFunc(f.fields, func(ff *formField) bool {
		return ff.key == f.errKey && ff.kind != fieldApply && f.visible(ff)
	})
	if f.err != "" && errRow < 0 {
		starts = append(starts, 0)
		add(lineNone, f.errorLines()...)
	}
	for i, ff := range f.fields {
		switch {
		case !f.visible(ff):
			continue
		case ff.kind == fieldApply:
			apply = i
			continue
		}
		start := len(content)
		starts = append(starts, start)
		add(i, f.row(ff, i == f.cursor && f.focused))
		if ff.key == f.errKey && f.err != "" {
			add(i, f.errorLines()...)
		}
		switch {
		case i == f.cursor:
			cs, ce = start, len(content)
		case ff.shownIf == f.current().key && ff.key == f.errKey && f.err != "":
			// The error of a row the cursor's row shows (the path of
			// a platform file) is about the cursor's choice too.
			ce = len(content)
		}
	}

	// The bottom: apply, then the focused row's meaning and range.
	var bottom []string
	var bottomRows []int
	if apply >= 0 {
		bottom = append(bottom, f.row(f.fields[apply], apply == f.cursor && f.focused))
		bottomRows = append(bottomRows, apply)
	}
	// The help line shows while the form has the focus, even when it
	// says nothing, so that moving the cursor never moves the rows.
	if f.focused && f.h > 4 {
		bottom = append(bottom, f.foot())
		bottomRows = append(bottomRows, lineNone)
	}
	h := f.h - len(bottom)
	if h < 1 {
		// No room for both: the cursor's row alone.
		if cs < 0 {
			return formLayout{lines: bottom[:1], rows: bottomRows[:1], starts: starts}
		}
		return formLayout{lines: content[cs : cs+1], rows: owner[cs : cs+1], offset: cs, starts: starts}
	}

	if !keepCursor {
		cs, ce = -1, -1
	}
	o := scrollOffset(len(content), h, cs, ce, want, starts)
	n := scrolledLines(len(content), h, o)
	l := formLayout{offset: o, starts: starts}
	st := f.c.Styles
	if o > 0 && h >= moreLines {
		l.lines = append(l.lines, st.Muted.Render("  ↑ more"))
		l.rows = append(l.rows, lineMoreUp)
	}
	l.lines = append(l.lines, content[o:o+n]...)
	l.rows = append(l.rows, owner[o:o+n]...)
	if o+n < len(content) && h >= moreLines {
		l.lines = append(l.lines, st.Muted.Render("  ↓ more"))
		l.rows = append(l.rows, lineMoreDown)
	}
	if apply >= 0 {
		l.lines = append(l.lines, bottom[0])
		l.rows = append(l.rows, apply)
		bottom, bottomRows = bottom[1:], bottomRows[1:]
	}
	if len(bottom) > 0 {
		// The help line sits at the very bottom.
		for len(l.lines) < f.h-1 {
			l.lines = append(l.lines, "")
			l.rows = append(l.rows, lineNone)
		}
		l.lines = append(l.lines, bottom...)
		l.rows = append(l.rows, bottomRows...)
	}
	return l
}

// scrolledLines is how many of n scrolled lines show in h lines from line
// o: "↑ more" takes a line when o > 0, "↓ more" one when lines remain
// below, when there is room for them (moreLines).
func scrolledLines(n, h, o int) int {
	if h >= moreLines {
		if o > 0 {
			h--
		}
		if o+h < n {
			h--
		}
	}
	return max(min(h, n-o), 0)
}

// moreLines is the least height that shows "↑ more" and "↓ more": below
// it, a line of the form is worth more than saying more are hidden.
const moreLines = 3

// scrollOffset is the first of n scrolled lines to show in h lines, one
// of starts (the view scrolls by whole rows): the one nearest to want that
// shows lines [cs, ce) whole (the cursor's row and its error; cs < 0 for
// none) and leaves no blank below the last line; cs when that block is
// taller than the view.
func scrollOffset(n, h, cs, ce, want int, starts []int) int {
	if n <= h {
		return 0
	}
	best := -1
	for _, o := range starts {
		if cs < 0 || (cs >= o && ce <= o+scrolledLines(n, h, o)) {
			if best < 0 || abs(o-want) < abs(best-want) {
				best = o
			}
		}
		if o+scrolledLines(n, h, o) >= n {
			break // the last line shows: a later start would leave blanks
		}
	}
	if best < 0 {
		return cs
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// follow keeps the scroll where the last layout put it, so that the next
// move of the cursor scrolls from there, as little as it needs.
func (f *configForm) follow() { f.offset = f.layout().offset }

// Scroll scrolls the form d rows (the mouse wheel: d < 0 up). The
// cursor stays on a row in view: when its row leaves, it moves to the
// nearest row still shown, the first when scrolling down, the last up.
func (f *configForm) Scroll(d int) {
	if f.picker != nil || d == 0 {
		return
	}
	f.touch()
	now := f.layout()
	if len(now.starts) == 0 {
		return
	}
	i := max(slices.Index(now.starts, now.offset), 0)
	l := f.layoutFrom(now.starts[min(max(i+d, 0), len(now.starts)-1)], false)
	var shown []int // rows with a line in view, apply left out
	for _, r := range l.rows {
		if r >= 0 && f.fields[r].kind != fieldApply && !slices.Contains(shown, r) {
			shown = append(shown, r)
		}
	}
	if len(shown) > 0 && f.current().kind != fieldApply && !slices.Contains(shown, f.cursor) {
		i := shown[0]
		if d < 0 {
			i = shown[len(shown)-1]
		}
		f.moveCursor(i)
	}
	f.offset = l.offset
	f.follow()
}

// ClickRow selects the row drawn at line y of the form's inside (the
// mouse). "↑ more" and "↓ more" scroll a row; a line of no row, or a
// click while a list is open, does nothing.
func (f *configForm) ClickRow(y int) {
	if f.picker != nil {
		return
	}
	l := f.layout()
	if y < 0 || y >= len(l.rows) {
		return
	}
	switch r := l.rows[y]; {
	case r == lineMoreUp:
		f.Scroll(-1)
	case r == lineMoreDown:
		f.Scroll(1)
	case r >= 0:
		f.touch()
		f.moveCursor(r)
		f.follow()
	}
}

// foot is the bottom line of the focused form: what the row under the
// cursor sets and how to change it.
func (f *configForm) foot() string {
	ff := f.current()
	var s string
	switch {
	case ff.kind == fieldInt:
		by := "±1"
		if n := ff.field.StepFactor; n != 0 {
			by = "×" + strconv.FormatInt(n, 10) + " ÷" + strconv.FormatInt(n, 10)
		}
		// The range shows on the row itself.
		s = ff.field.Help + " · +/- " + by
	case ff.key == keyMapMode:
		s = "auto: the design-space exploration picks (000 §VI)"
	case ff.key == keyDevices:
		s = ff.field.Help
	case ff.key == keyDevicesFile:
		s = "a device platform YAML file, from the working directory"
	case ff.kind == fieldChoice:
		s = "←/→ or +/- change it · enter lists the choices"
	case ff.kind == fieldApply:
		s = "enter restarts the run with this configuration"
	}
	return f.c.Styles.Muted.Render(s)
}

// errorLines is the validation error, wrapped to the form width.
func (f *configForm) errorLines() []string {
	st := f.c.Styles
	wrapped := lipgloss.NewStyle().Width(max(f.w-4, 10)).Render(f.err)
	var out []string
	for i, l := range strings.Split(wrapped, "\n") {
		prefix := "    "
		if i == 0 {
			prefix = "  ✗ "
		}
		out = append(out, st.Error.Render(prefix+strings.TrimRight(l, " ")))
	}
	return out
}

// row renders one field: label, value, accepted range.
func (f *configForm) row(ff *formField, on bool) string {
	st := f.c.Styles
	label := st.Text.Render(fit(ff.label, formLabelW))
	if on {
		label = st.Selected.Render(fit(ff.label, formLabelW))
	}
	switch ff.kind {
	case fieldChoice:
		v := ff.options[ff.choice]
		if name, ok := deviceNames[v]; ok && ff.shownIf == keyMapMode {
			v += " (" + name + ")"
		}
		if ff.key == keyDevices && f.yours[v] {
			v += " (yours)"
		}
		if on {
			return label + " " + st.Accent.Render("◀ ") + st.Strong.Render(v) + st.Accent.Render(" ▶")
		}
		return label + "   " + st.Text.Render(v)
	case fieldInt, fieldText:
		open, shut := st.Muted.Render("["), st.Muted.Render("]")
		if on {
			open, shut = st.Accent.Render("["), st.Accent.Render("]")
		}
		in := ff.input.View()
		if v := ff.input.Value(); on && f.entered && v != "" {
			// The whole value is selected, then the block cursor, in
			// the input's width: the next character typed replaces it.
			w := max(cellWidth(in)-1, 1)
			if cellWidth(v) > w {
				v = "…" + ansi.TruncateLeft(v, cellWidth(v)-w+1, "")
			}
			in = st.Selected.Render(v) + lipgloss.NewStyle().Reverse(true).Render(" ") +
				strings.Repeat(" ", max(w-cellWidth(v), 0))
		}
		s := label + " " + open + in + shut
		if ff.hasRange() {
			s += st.Muted.Render(" " + ff.field.Range())
		}
		return s
	default:
		btn := "[ " + ff.label + " ]"
		var s string
		if on {
			s = st.Selected.Bold(true).Render(btn)
		} else {
			s = st.Accent.Render(btn)
		}
		switch {
		case f.applied != "":
			s += st.Good.Render(" " + f.applied)
		case f.err != "":
			s += st.Error.Render(" fix the error first")
		case f.Dirty():
			s += st.Warn.Render(" modified")
		}
		return s
	}
}
