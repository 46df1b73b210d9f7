package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

const formLabelW = 12

// View renders the form (or its open picker) in the inner w x h cells,
// cached until the form changes.
func (f *configForm) View() string {
	k := formKey{version: f.version, w: f.w, h: f.h, styles: f.c.Styles}
	return f.view.get(k, f.render)
}

func (f *configForm) render() string {
	st := f.c.Styles
	if f.w <= 0 || f.h <= 0 {
		return ""
	}
	if f.picker != nil {
		return f.picker.View()
	}

	var lines []string
	cursorLine := 0
	rowShown := map[string]bool{}
	for i, ff := range f.fields {
		if !f.visible(ff) {
			continue
		}
		rowShown[ff.key] = true
		on := i == f.cursor && f.focused
		if i == f.cursor {
			cursorLine = len(lines)
		}
		lines = append(lines, f.row(ff, on))
		if ff.key == f.errKey && f.err != "" {
			lines = append(lines, f.errorLines()...)
		}
	}
	if f.err != "" && !rowShown[f.errKey] {
		lines = append(f.errorLines(), lines...)
		cursorLine += len(f.errorLines())
	}

	// The focused row's meaning and range, at the bottom.
	var foot string
	if ff := f.current(); f.focused && ff.hasRange() {
		foot = st.Muted.Render(ff.field.Help + ", " + ff.field.Range())
	} else if f.focused && ff.key == keyMapMode {
		foot = st.Muted.Render("auto: the design-space exploration picks (000 §VI)")
	}
	h := f.h
	if foot != "" && h > 4 {
		h--
	}
	offset := 0
	if cursorLine >= h {
		offset = cursorLine - h + 1
		if f.errKey == f.current().key {
			offset = min(offset+2, len(lines)-h)
		}
	}
	end := min(offset+h, len(lines))
	out := lines[offset:end]
	if foot != "" && h < f.h {
		for len(out) < h {
			out = append(out, "")
		}
		out = append(out, foot)
	}
	return strings.Join(out, "\n")
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
		if name, ok := deviceNames[v]; ok && ff.manual {
			v += " (" + name + ")"
		}
		if on {
			return label + " " + st.Accent.Render("◀ ") + st.Strong.Render(v) + st.Accent.Render(" ▶")
		}
		return label + "   " + st.Text.Render(v)
	case fieldInt:
		open, shut := st.Muted.Render("["), st.Muted.Render("]")
		if on {
			open, shut = st.Accent.Render("["), st.Accent.Render("]")
		}
		s := label + " " + open + ff.input.View() + shut
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
