package tui

import (
	"errors"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// fieldKind is what a form row edits.
type fieldKind int

const (
	fieldChoice fieldKind = iota // one of a list (bubbles list picker, ←/→)
	fieldInt                     // a whole number (bubbles textinput)
	fieldApply                   // the apply button
)

// Form row keys besides the names of engine.Fields.
const (
	keyMapMode    = "mapping"
	keyMapLearner = "mapping.learner"
	keyMapRMM     = "mapping.rmm"
	keyMapStorage = "mapping.storage"
	keyApply      = "apply"
)

// formField is one row of the config form.
type formField struct {
	key     string       // the field's name (FieldError.Field), or a key above
	field   engine.Field // the configuration field the row edits, if any
	label   string
	kind    fieldKind
	options []string
	choice  int
	input   textinput.Model
	manual  bool // shown for a manual mapping only
	err     string
}

// hasRange reports whether the row edits a number with a range to show.
func (ff *formField) hasRange() bool { return ff.field.Kind == engine.IntField }

// applyConfigMsg asks the root model to restart the run with cfg.
type applyConfigMsg struct{ cfg engine.Config }

// configForm edits the next run's configuration: lists for the
// environment, the algorithm and the mapping, inputs for the sizes, each
// with its accepted range; invalid values are refused inline (engine's
// Config.Validate) and apply restarts the run.
type configForm struct {
	c    *common
	w, h int

	base    engine.Config // the running configuration, defaults filled in
	fields  []*formField
	cursor  int // index into fields (always a visible one)
	focused bool

	picker  *picker // open list of a choice field, nil when closed
	err     string  // the validation error of the whole form
	errKey  string  // the row it belongs to ("" for none)
	applied string  // a note after apply

	version int // bumps on every change, for the view cache
	view    viewCache[formKey]
}

type formKey struct {
	version, w, h int
	styles        *Styles
}

// touch marks the form changed.
func (f *configForm) touch() { f.version++ }

// SetApplied shows a note beside the apply button.
func (f *configForm) SetApplied(note string) { f.applied = note; f.touch() }

// deviceLetters are the mapping rows' choices, and deviceNames their names
// ("G": "GPU"), from engine.Devices.
var deviceLetters, deviceNames = func() ([]string, map[string]string) {
	var letters []string
	names := map[string]string{}
	for _, d := range engine.Devices() {
		letters = append(letters, d.Letter)
		names[d.Letter] = d.Name
	}
	return letters, names
}()

// newConfigForm builds the form's rows from engine's table of fields, in
// its order: a list for each choice, an input for each number, the mapping
// as auto or three device lists. Durations and text (the device file, the
// name) are set in YAML or with --set.
func newConfigForm(c *common, cfg engine.Config) *configForm {
	f := &configForm{c: c}
	choice := func(key, label string, opts []string) *formField {
		return &formField{key: key, label: label, kind: fieldChoice, options: opts}
	}
	for _, fd := range engine.Fields() {
		switch fd.Kind {
		case engine.ChoiceField, engine.AlgorithmField:
			ff := choice(fd.Name, fd.Label, fd.Choices())
			ff.field = fd
			f.fields = append(f.fields, ff)
		case engine.IntField, engine.SeedField:
			f.fields = append(f.fields, &formField{key: fd.Name, field: fd, label: fd.Label, kind: fieldInt, input: f.newInput()})
		case engine.MappingField:
			mode := choice(keyMapMode, fd.Label, []string{"auto", "manual"})
			mode.field = fd
			f.fields = append(f.fields, mode)
			for _, part := range []struct{ key, label string }{
				{keyMapLearner, " learner on"}, {keyMapRMM, " RMM on"}, {keyMapStorage, " storage on"},
			} {
				ff := choice(part.key, part.label, slices.Clone(deviceLetters))
				ff.manual = true
				f.fields = append(f.fields, ff)
			}
		}
	}
	f.fields = append(f.fields, &formField{key: keyApply, label: "apply & restart", kind: fieldApply})
	f.Reset(cfg)
	return f
}

func (f *configForm) newInput() textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 16
	in.SetWidth(8)
	st := f.c.Styles
	in.SetStyles(textinput.Styles{
		Focused: textinput.StyleState{Text: st.Strong, Prompt: st.Muted, Placeholder: st.Muted},
		Blurred: textinput.StyleState{Text: st.Text, Prompt: st.Muted, Placeholder: st.Muted},
		// A steady cursor: blinking would keep a timer running while idle.
		Cursor: textinput.CursorStyle{Color: st.Accent.GetForeground(), Shape: tea.CursorBlock, Blink: false},
	})
	return in
}

// SetSize sets the inner size of the form.
func (f *configForm) SetSize(w, h int) {
	f.w, f.h = w, h
	f.touch()
	if f.picker != nil {
		f.picker.SetSize(w, h-1)
	}
}

// SetFocused focuses or blurs the form (its text cursor shows only when
// focused).
func (f *configForm) SetFocused(focused bool) {
	if f.focused != focused {
		f.touch()
	}
	f.focused = focused
	f.syncInputFocus()
}

// Restyle rebuilds the inputs' styles after the background is known.
func (f *configForm) Restyle() {
	f.touch()
	for _, ff := range f.fields {
		if ff.kind == fieldInt {
			v := ff.input.Value()
			ff.input = f.newInput()
			ff.input.SetValue(v)
		}
	}
	f.syncInputFocus()
}

// Reset loads cfg (the running configuration) into the form.
func (f *configForm) Reset(cfg engine.Config) {
	f.touch()
	cfg = cfg.Defaults()
	f.base = cfg
	mapping := strings.Split(cfg.Mapping.String(), "-")
	for _, ff := range f.fields {
		ff.err = ""
		switch {
		case ff.kind == fieldInt:
			ff.input.SetValue(cfg.Get(ff.key))
		case ff.field.Choices() != nil:
			ff.choice = choiceIndex(ff, cfg.Get(ff.key))
		case ff.key == keyMapMode:
			ff.choice = 0
			if !cfg.Mapping.Auto() {
				ff.choice = 1
			}
		case ff.manual:
			i := map[string]int{keyMapLearner: 0, keyMapRMM: 1, keyMapStorage: 2}[ff.key]
			ff.choice = 1 // GPU unless the mapping says otherwise
			if len(mapping) == 3 {
				ff.choice = max(slices.Index(deviceLetters, mapping[i]), 0)
			}
		}
	}
	f.picker = nil
	f.cursor = f.clampCursor(f.cursor, 1)
	f.validate()
	f.syncInputFocus()
}

// choiceIndex finds v among ff's options, adding it when unknown so that
// the form shows what the config says (Validate then explains the problem).
func choiceIndex(ff *formField, v string) int {
	if i := slices.Index(ff.options, v); i >= 0 {
		return i
	}
	ff.options = append(ff.options, v)
	return len(ff.options) - 1
}

// visible reports whether row ff applies to the form's current values: a
// field the algorithm chosen uses, a device list of a manual mapping.
func (f *configForm) visible(ff *formField) bool {
	if ff.manual {
		return f.value(keyMapMode) == "manual"
	}
	return ff.field.UsedBy(engine.Algorithm(f.value("algo")))
}

// value is the current text of the row with the given key.
func (f *configForm) value(key string) string {
	for _, ff := range f.fields {
		if ff.key == key {
			if ff.kind == fieldChoice {
				return ff.options[ff.choice]
			}
			return ff.input.Value()
		}
	}
	return ""
}

// clampCursor moves i to the nearest visible row in direction dir (±1).
func (f *configForm) clampCursor(i, dir int) int {
	i = min(max(i, 0), len(f.fields)-1)
	for j := i; j >= 0 && j < len(f.fields); j += dir {
		if f.visible(f.fields[j]) {
			return j
		}
	}
	for j := i; j >= 0 && j < len(f.fields); j -= dir {
		if f.visible(f.fields[j]) {
			return j
		}
	}
	return i
}

func (f *configForm) current() *formField { return f.fields[f.cursor] }

// syncInputFocus focuses the text input under the cursor, blurs the others.
func (f *configForm) syncInputFocus() {
	for i, ff := range f.fields {
		if ff.kind != fieldInt {
			continue
		}
		if i == f.cursor && f.focused && f.picker == nil {
			ff.input.Focus()
		} else {
			ff.input.Blur()
		}
	}
}

// Config builds the configuration the form describes; parse problems are
// recorded on their rows and reported as the error.
func (f *configForm) Config() (engine.Config, error) {
	cfg := f.base
	var firstErr error
	for _, ff := range f.fields {
		ff.err = ""
		if !f.visible(ff) {
			continue
		}
		var err error
		switch {
		case ff.kind == fieldInt:
			err = cfg.Set(ff.key, ff.input.Value())
		case ff.field.Choices() != nil:
			err = cfg.Set(ff.key, ff.options[ff.choice])
		}
		if err != nil {
			ff.err = err.Error()
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	cfg.Mapping = engine.AutoMapping
	if f.value(keyMapMode) != "auto" {
		m, err := engine.ParseMapping(f.value(keyMapLearner) + "-" + f.value(keyMapRMM) + "-" + f.value(keyMapStorage))
		if err != nil && firstErr == nil {
			firstErr = err
		}
		cfg.Mapping = m
	}
	return cfg, firstErr
}

// validate checks the form with engine's Config.Validate and attaches the
// problem to its row. It returns the config and whether it is valid.
func (f *configForm) validate() (engine.Config, bool) {
	f.err, f.errKey = "", ""
	cfg, err := f.Config()
	if err == nil {
		err = cfg.Validate()
	}
	if err == nil {
		return cfg, true
	}
	f.err = err.Error()
	var fe *engine.FieldError
	if errors.As(err, &fe) {
		f.errKey = fe.Field
		if fe.Field == "mapping" && f.value(keyMapMode) == "manual" {
			f.errKey = keyMapLearner
		}
	}
	for _, ff := range f.fields {
		if ff.err != "" {
			f.errKey = ff.key
			break
		}
	}
	return cfg, false
}

// FocusError moves the cursor to the row the validation error is about.
func (f *configForm) FocusError() {
	f.touch()
	for i, ff := range f.fields {
		if ff.key == f.errKey && f.visible(ff) {
			f.cursor = i
			f.syncInputFocus()
			return
		}
	}
}

// Dirty reports whether the form differs from the running configuration.
func (f *configForm) Dirty() bool {
	cfg, err := f.Config()
	return err != nil || cfg.Defaults() != f.base
}

// OnChoice reports whether the cursor is on a choice row.
func (f *configForm) OnChoice() bool { return f.current().kind == fieldChoice }

// Picking reports whether a list picker is open.
func (f *configForm) Picking() bool { return f.picker != nil }

// Update handles a key while the form has the focus.
func (f *configForm) Update(msg tea.KeyPressMsg) tea.Cmd {
	f.touch()
	keys := f.c.Keys
	if f.picker != nil {
		switch {
		case key.Matches(msg, keys.Back):
			f.picker = nil
		case key.Matches(msg, keys.Pick):
			ff := f.current()
			ff.choice = max(slices.Index(ff.options, f.picker.Selected()), 0)
			f.picker = nil
			f.changed()
		default:
			f.picker.Update(msg)
		}
		f.syncInputFocus()
		return nil
	}

	ff := f.current()
	switch {
	case key.Matches(msg, keys.FieldUp):
		f.cursor = f.clampCursor(f.cursor-1, -1)
	case key.Matches(msg, keys.FieldDown):
		f.cursor = f.clampCursor(f.cursor+1, 1)
	case key.Matches(msg, keys.Cycle):
		ff.choice = (ff.choice + 1) % len(ff.options)
		f.changed()
	case key.Matches(msg, keys.CyclePrev):
		ff.choice = (ff.choice + len(ff.options) - 1) % len(ff.options)
		f.changed()
	case key.Matches(msg, keys.Pick):
		f.picker = newPicker(f.c, ff.label, ff.options, ff.choice, f.w, f.h-1)
	case key.Matches(msg, keys.Revert):
		f.Reset(f.base)
		f.applied = ""
	case key.Matches(msg, keys.Apply):
		cfg, ok := f.validate()
		if !ok {
			return nil
		}
		f.applied = "applied: restarting the run"
		return func() tea.Msg { return applyConfigMsg{cfg} }
	case ff.kind == fieldInt && numericKey(msg):
		ff.input, _ = ff.input.Update(msg)
		f.changed()
	}
	f.syncInputFocus()
	return nil
}

// changed revalidates after an edit and keeps the cursor on a visible row.
func (f *configForm) changed() {
	f.applied = ""
	f.cursor = f.clampCursor(f.cursor, -1)
	f.validate()
}

// numericKey reports whether k edits a number: a digit, or a deletion or
// cursor motion inside the input. Everything else stays with the explorer.
func numericKey(k tea.KeyPressMsg) bool {
	s := k.String()
	if len(s) == 1 && s[0] >= '0' && s[0] <= '9' {
		return true
	}
	switch s {
	case "backspace", "delete", "left", "right", "home", "end", "ctrl+a", "ctrl+e", "ctrl+u", "ctrl+k", "ctrl+w", "ctrl+h", "ctrl+d":
		return true
	}
	return false
}
