package tui

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// fieldKind is what a form row edits.
type fieldKind int

const (
	fieldChoice fieldKind = iota // one of a list (bubbles list picker, ←/→, +/-)
	fieldInt                     // a whole number (bubbles textinput)
	fieldText                    // free text (bubbles textinput): a platform file's path
	fieldApply                   // the apply button
)

// Form row keys besides the names of engine.Fields.
const (
	keyMapMode     = "mapping"
	keyMapLearner  = "mapping.learner"
	keyMapRMM      = "mapping.rmm"
	keyMapStorage  = "mapping.storage"
	keyDevices     = "devices"
	keyDevicesFile = "devices.file"
	keyApply       = "apply"
)

// fileChoice is the devices row's last option: a platform YAML file, whose
// path the row below it takes.
const fileChoice = "file…"

// formField is one row of the config form.
type formField struct {
	key     string       // the field's name (FieldError.Field), or a key above
	field   engine.Field // the configuration field the row edits, if any
	label   string
	kind    fieldKind
	options []string
	choice  int
	input   textinput.Model
	// When shownIf is set, the row shows only while the row of that key
	// has the value shownWith: the device lists of a manual mapping, the
	// path of a platform file.
	shownIf, shownWith string
}

// hasRange reports whether the row edits a number with a range to show.
func (ff *formField) hasRange() bool {
	return ff.kind == fieldInt && ff.field.Kind == engine.IntField
}

// applyConfigMsg asks the root model to restart the run with cfg.
type applyConfigMsg struct{ cfg engine.Config }

// platformPreviewMsg asks the root model to show the mapping table of cfg,
// the form's configuration, whose device platform has just changed (and
// loads): the table follows the platform before the run restarts with it.
// Its other fields are the form's as they stand and may not validate.
//
// running says the form is back on the running configuration's platform:
// the table goes back to the running run, whatever the root's
// configuration has become since the form took it (a live switch).
type platformPreviewMsg struct {
	cfg     engine.Config
	running bool
}

// configForm edits the next run's configuration: lists for the
// environment, the algorithm, the mapping and the device platform, inputs
// for the sizes, each with its accepted range; invalid values are refused
// inline (engine's Config.Validate and CheckConfigPlatform) and apply restarts
// the run.
type configForm struct {
	c    *common
	w, h int

	base    engine.Config // the running configuration, defaults filled in
	fields  []*formField
	cursor  int // index into fields (always a visible one)
	focused bool
	// entered is set when the cursor arrives on a row: the next character
	// typed replaces the row's value instead of adding to it.
	entered bool
	offset  int // the first line of the scrolled rows shown (see layout)

	picker  *picker // open list of a choice field, nil when closed
	err     string  // the validation error of the whole form
	errKey  string  // the row it belongs to ("" for none)
	dirty   bool    // the form differs from the running configuration (as of the last validate)
	applied string  // a note after apply

	yours     map[string]bool // device choices that are the user's platforms
	platform  platformCheck   // the last platform checked
	previewed string          // the devices value the mapping table last followed

	version int // bumps on every change, for the view cache
	view    viewCache[formKey]
}

// platformCheck is engine.CheckConfigPlatform's answer for devices and an
// algorithm family (off-policy runs need all four devices, PPO a CPU): it
// reads and parses a file, so the form asks once per value, not once per
// key.
type platformCheck struct {
	devices  string
	onPolicy bool
	err      error
	done     bool
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
// as auto or three device lists, the device platform as a list of the
// known platforms or a file's path. Durations and the name are set in YAML
// or with --set.
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
			f.fields = append(f.fields, &formField{key: fd.Name, field: fd, label: fd.Label, kind: fieldInt, input: f.newInput(fieldInt)})
		case engine.MappingField:
			mode := choice(keyMapMode, fd.Label, []string{"auto", "manual"})
			mode.field = fd
			f.fields = append(f.fields, mode)
			for _, part := range []struct{ key, label string }{
				{keyMapLearner, " learner on"}, {keyMapRMM, " RMM on"}, {keyMapStorage, " storage on"},
			} {
				ff := choice(part.key, part.label, slices.Clone(deviceLetters))
				ff.shownIf, ff.shownWith = keyMapMode, "manual"
				f.fields = append(f.fields, ff)
			}
		case engine.TextField:
			if fd.Name != keyDevices {
				continue // the name changes nothing the run does
			}
			// Reset lists the platforms: yours may change while the
			// explorer runs (rlx calibrate in another terminal).
			dev := choice(keyDevices, fd.Label, nil)
			dev.field = fd
			path := &formField{key: keyDevicesFile, label: " file", kind: fieldText, input: f.newInput(fieldText),
				shownIf: keyDevices, shownWith: fileChoice}
			f.fields = append(f.fields, dev, path)
		}
	}
	f.fields = append(f.fields, &formField{key: keyApply, label: "apply & restart", kind: fieldApply})
	f.Reset(cfg)
	return f
}

// newInput returns the text input of a row of kind fieldInt or fieldText.
func (f *configForm) newInput(kind fieldKind) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 16
	in.SetWidth(8)
	if kind == fieldText {
		in.CharLimit = 1024 // a path; the input scrolls sideways
		in.SetWidth(f.textWidth())
	}
	st := f.c.Styles
	in.SetStyles(textinput.Styles{
		Focused: textinput.StyleState{Text: st.Strong, Prompt: st.Muted, Placeholder: st.Muted},
		Blurred: textinput.StyleState{Text: st.Text, Prompt: st.Muted, Placeholder: st.Muted},
		// A steady cursor: blinking would keep a timer running while idle.
		Cursor: textinput.CursorStyle{Color: st.Accent.GetForeground(), Shape: tea.CursorBlock, Blink: false},
	})
	return in
}

// textWidth is the width of a text row's input: the form's width after the
// label and the brackets, and the cell the cursor takes at the end.
func (f *configForm) textWidth() int { return max(f.w-formLabelW-4, 4) }

// SetSize sets the inner size of the form.
func (f *configForm) SetSize(w, h int) {
	f.w, f.h = w, h
	f.touch()
	for _, ff := range f.fields {
		if ff.kind == fieldText {
			ff.input.SetWidth(f.textWidth())
		}
	}
	if f.picker != nil {
		f.picker.SetSize(w, h-1)
	}
	f.follow()
}

// SetFocused focuses or blurs the form (its text cursor shows only when
// focused). Coming back to the form is arriving on the cursor's row. The
// root calls it after every message, ticks included: only a change of
// focus, which adds or removes the help line, lays the form out again.
func (f *configForm) SetFocused(focused bool) {
	if f.focused == focused {
		return
	}
	f.touch()
	f.entered = focused
	f.focused = focused
	f.syncInputFocus()
	f.follow()
}

// Restyle rebuilds the inputs' styles after the background is known.
func (f *configForm) Restyle() {
	f.touch()
	for _, ff := range f.fields {
		if ff.kind == fieldInt || ff.kind == fieldText {
			v := ff.input.Value()
			ff.input = f.newInput(ff.kind)
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
		switch {
		case ff.key == keyDevices:
			f.loadDevices(ff, cfg.Devices)
		case ff.kind == fieldInt:
			ff.input.SetValue(cfg.Get(ff.key))
			ff.input.CursorEnd()
		case ff.field.Choices() != nil:
			ff.choice = choiceIndex(ff, cfg.Get(ff.key))
		case ff.key == keyMapMode:
			ff.choice = 0
			if !cfg.Mapping.Auto() {
				ff.choice = 1
			}
		case ff.shownIf == keyMapMode:
			i := map[string]int{keyMapLearner: 0, keyMapRMM: 1, keyMapStorage: 2}[ff.key]
			ff.choice = 1 // GPU unless the mapping says otherwise
			if len(mapping) == 3 {
				ff.choice = max(slices.Index(deviceLetters, mapping[i]), 0)
			}
		}
	}
	f.picker = nil
	f.platform = platformCheck{}
	f.previewed = cfg.Devices
	f.cursor = f.clampCursor(f.cursor, 1)
	f.entered = true
	f.validate()
	f.syncInputFocus()
	f.follow()
}

// loadDevices lists the platforms in the devices row dev, from
// engine.DeviceChoices, and selects devices: by name when it is one of
// them, else as the path of a file in the row below.
func (f *configForm) loadDevices(dev *formField, devices string) {
	f.yours = map[string]bool{}
	dev.options = dev.options[:0]
	for _, c := range engine.DeviceChoices() {
		dev.options = append(dev.options, c.Name)
		f.yours[c.Name] = c.Yours
	}
	dev.options = append(dev.options, fileChoice)
	path := f.byKey(keyDevicesFile)
	dev.choice = slices.Index(dev.options, platformName(devices))
	if dev.choice < 0 || devices == fileChoice {
		dev.choice = len(dev.options) - 1
		path.input.SetValue(devices)
	} else {
		path.input.SetValue("")
	}
	path.input.CursorEnd()
}

// platformName is the platform a devices value names: the default one for
// "".
func platformName(devices string) string {
	if devices == "" {
		return engine.DefaultDevices
	}
	return devices
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
// field the algorithm chosen uses, a device list of a manual mapping, the
// path of a platform file.
func (f *configForm) visible(ff *formField) bool {
	if ff.shownIf != "" {
		return f.value(ff.shownIf) == ff.shownWith
	}
	return ff.field.UsedBy(engine.Algorithm(f.value("algo")))
}

// byKey is the row with the given key.
func (f *configForm) byKey(key string) *formField {
	for _, ff := range f.fields {
		if ff.key == key {
			return ff
		}
	}
	panic("tui: no form row " + key)
}

// value is the current text of the row with the given key.
func (f *configForm) value(key string) string {
	ff := f.byKey(key)
	if ff.kind == fieldChoice {
		return ff.options[ff.choice]
	}
	return ff.input.Value()
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

// moveCursor puts the cursor on row i: arriving on a row, the next
// character typed replaces its value.
func (f *configForm) moveCursor(i int) {
	if i == f.cursor {
		return
	}
	f.cursor = i
	f.entered = true
	if ff := f.current(); ff.kind == fieldInt || ff.kind == fieldText {
		ff.input.CursorEnd()
	}
	f.syncInputFocus()
}

// syncInputFocus focuses the text input under the cursor, blurs the others.
func (f *configForm) syncInputFocus() {
	for i, ff := range f.fields {
		if ff.kind != fieldInt && ff.kind != fieldText {
			continue
		}
		if i == f.cursor && f.focused && f.picker == nil {
			ff.input.Focus()
		} else {
			ff.input.Blur()
		}
	}
}

// Config builds the configuration the form describes, every row that
// parses in it. The first row (in the form's order) whose value does not
// parse gives the error, and at, its key.
func (f *configForm) Config() (cfg engine.Config, at string, err error) {
	cfg = f.base
	for _, ff := range f.fields {
		if !f.visible(ff) {
			continue
		}
		var rowErr error
		switch {
		case ff.key == keyDevices:
			var d string
			if d, rowErr = f.devices(); rowErr == nil {
				rowErr = cfg.Set(keyDevices, d)
			}
		case ff.kind == fieldInt:
			rowErr = cfg.Set(ff.key, ff.input.Value())
		case ff.field.Choices() != nil:
			rowErr = cfg.Set(ff.key, ff.options[ff.choice])
		}
		if rowErr != nil && err == nil {
			err, at = rowErr, ff.key
		}
	}
	cfg.Mapping = engine.AutoMapping
	if f.value(keyMapMode) != "auto" {
		m, merr := engine.ParseMapping(f.value(keyMapLearner) + "-" + f.value(keyMapRMM) + "-" + f.value(keyMapStorage))
		if err == nil {
			err = merr
		}
		cfg.Mapping = m
	}
	return cfg, at, err
}

// devices is the devices value the form describes: the platform chosen,
// or the path typed for a file; the running configuration's own spelling
// when it names the same platform, so that the default ("") is not an
// edit.
func (f *configForm) devices() (string, error) {
	v := f.value(keyDevices)
	if v == fileChoice {
		v = strings.TrimSpace(f.value(keyDevicesFile))
		if v == "" {
			return "", &engine.FieldError{Field: keyDevices, Value: `""`,
				Reason: "type the path of a device platform YAML file, or choose a platform with ←/→"}
		}
	}
	if v == platformName(f.base.Devices) {
		return f.base.Devices, nil
	}
	return v, nil
}

// checkPlatform is engine.CheckConfigPlatform(cfg), asked once per
// platform and algorithm family.
func (f *configForm) checkPlatform(cfg engine.Config) error {
	c := &f.platform
	if !c.done || c.devices != cfg.Devices || c.onPolicy != cfg.Algo.OnPolicy() {
		*c = platformCheck{devices: cfg.Devices, onPolicy: cfg.Algo.OnPolicy(), err: engine.CheckConfigPlatform(cfg), done: true}
	}
	return c.err
}

// validate checks the form with engine's Config.Validate and
// CheckConfigPlatform, attaches the problem to its row and notes whether the
// form differs from the running configuration. It returns the config and
// whether it is valid. Every change of the form's values goes through
// here.
func (f *configForm) validate() (engine.Config, bool) {
	cfg, at, err := f.Config()
	f.dirty = err != nil || cfg.Defaults() != f.base
	if err == nil {
		err = cfg.Validate()
	}
	if err == nil {
		err = f.checkPlatform(cfg)
	}
	if err == nil {
		f.err, f.errKey = "", ""
		return cfg, true
	}
	var fe *engine.FieldError
	if at == "" && errors.As(err, &fe) {
		at = fe.Field
	}
	f.err, f.errKey = err.Error(), f.errorRow(at)
	return cfg, false
}

// errorRow is the row that shows a problem of the field (or row) named
// field: the learner's device for the mapping of a manual mapping, the
// path for the devices of a platform file.
func (f *configForm) errorRow(field string) string {
	switch {
	case field == keyMapMode && f.value(keyMapMode) == "manual":
		return keyMapLearner
	case field == keyDevices && f.value(keyDevices) == fileChoice:
		return keyDevicesFile
	}
	return field
}

// FocusError moves the cursor to the row the validation error is about.
func (f *configForm) FocusError() {
	f.touch()
	for i, ff := range f.fields {
		if ff.key == f.errKey && f.visible(ff) {
			f.moveCursor(i)
			break
		}
	}
	f.follow()
}

// Dirty reports whether the form differs from the running configuration.
// The root asks after every message: validate has the answer.
func (f *configForm) Dirty() bool { return f.dirty }

// OnChoice reports whether the cursor is on a choice row.
func (f *configForm) OnChoice() bool { return f.current().kind == fieldChoice }

// Typing reports whether the cursor is in a field that takes typed text
// (a number or a path): q types there rather than quit.
func (f *configForm) Typing() bool {
	k := f.current().kind
	return f.picker == nil && (k == fieldInt || k == fieldText)
}

// TypingText reports whether the cursor is in a free-text field (a
// platform file's path), where every printable key types, "/" included.
func (f *configForm) TypingText() bool {
	return f.picker == nil && f.current().kind == fieldText
}

// CanStep reports whether + and - step the row under the cursor: a list,
// or a number.
func (f *configForm) CanStep() bool {
	k := f.current().kind
	return f.picker == nil && (k == fieldChoice || k == fieldInt)
}

// Picking reports whether a list picker is open.
func (f *configForm) Picking() bool { return f.picker != nil }

// Update handles a key while the form has the focus. The command it
// returns applies the form (applyConfigMsg) or shows a new platform's
// mapping table (platformPreviewMsg).
func (f *configForm) Update(msg tea.KeyPressMsg) tea.Cmd {
	f.touch()
	defer f.follow()
	keys := f.c.Keys
	if f.picker != nil {
		var cmd tea.Cmd
		switch {
		case key.Matches(msg, keys.Back):
			f.picker = nil
		case key.Matches(msg, keys.Pick):
			ff := f.current()
			ff.choice = max(slices.Index(ff.options, f.picker.Selected()), 0)
			f.picker = nil
			cmd = f.changed()
			if ff.key == keyDevices && f.value(keyDevices) == fileChoice {
				// A file was chosen from the list: its path is next.
				f.moveCursor(slices.Index(f.fields, f.byKey(keyDevicesFile)))
			}
		default:
			f.picker.Update(msg)
		}
		f.syncInputFocus()
		return cmd
	}

	ff := f.current()
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, keys.FieldUp):
		f.moveCursor(f.clampCursor(f.cursor-1, -1))
	case key.Matches(msg, keys.FieldDown):
		f.moveCursor(f.clampCursor(f.cursor+1, 1))
	case key.Matches(msg, keys.Cycle):
		cmd = f.cycle(ff, 1)
	case key.Matches(msg, keys.CyclePrev):
		cmd = f.cycle(ff, -1)
	case ff.kind == fieldText && (charKey(msg) || editKey(msg)):
		// Before + and -: they are characters of a path.
		cmd = f.edit(ff, msg)
	case key.Matches(msg, keys.StepUp):
		cmd = f.step(ff, 1)
	case key.Matches(msg, keys.StepDown):
		cmd = f.step(ff, -1)
	case key.Matches(msg, keys.Pick):
		f.picker = newPicker(f.c, ff.label, ff.options, ff.choice, f.w, f.h-1)
	case key.Matches(msg, keys.Revert):
		was := f.previewed
		f.Reset(f.base)
		f.applied = ""
		if was != f.previewed {
			// The mapping table showed the edited platform: back to the
			// running one.
			cmd = runningPreviewCmd(f.base)
		}
	case key.Matches(msg, keys.Apply):
		cfg, ok := f.validate()
		if !ok {
			return nil
		}
		f.applied = "applied: restarting the run"
		return func() tea.Msg { return applyConfigMsg{cfg} }
	case ff.kind == fieldInt && (digitKey(msg) || editKey(msg)):
		cmd = f.edit(ff, msg)
	}
	f.syncInputFocus()
	return cmd
}

// Paste types text, a bracketed paste from the terminal, into the row
// under the cursor: a path whole, or a number when text is one. Like a key
// typed, it replaces the value of a row the cursor has just arrived on.
func (f *configForm) Paste(text string) tea.Cmd {
	ff := f.current()
	switch {
	case f.picker != nil, !f.focused:
		return nil
	case ff.kind == fieldInt:
		if _, err := strconv.ParseUint(strings.TrimSpace(text), 10, 64); err != nil {
			return nil
		}
	case ff.kind != fieldText:
		return nil
	}
	f.touch()
	defer f.follow()
	if f.entered {
		ff.input.SetValue("")
	}
	f.entered = false
	ff.input, _ = ff.input.Update(tea.PasteMsg{Content: strings.TrimSpace(text)})
	return f.changed()
}

// cycle moves choice row ff to its next (dir 1) or previous (-1) option,
// around the end.
func (f *configForm) cycle(ff *formField, dir int) tea.Cmd {
	if ff.kind != fieldChoice {
		return nil
	}
	n := len(ff.options)
	ff.choice = ((ff.choice+dir)%n + n) % n
	return f.changed()
}

// edit hands an editing key to text row ff. The first character typed
// after the cursor arrives on the row replaces its value (128, then 2 5 6,
// gives 256); a key that edits in place (backspace, ←, →, ...) keeps the
// value and ends that.
func (f *configForm) edit(ff *formField, msg tea.KeyPressMsg) tea.Cmd {
	if f.entered && charKey(msg) {
		ff.input.SetValue("")
	}
	f.entered = false
	ff.input, _ = ff.input.Update(msg)
	return f.changed()
}

// step moves row ff's value one step up (dir 1) or down (-1): a list to its
// next or previous option, a number as its field's StepFactor says, kept
// in its range.
// A number that does not parse is left for the user to fix. The value is
// whole again afterwards: the next character typed replaces it.
func (f *configForm) step(ff *formField, dir int) tea.Cmd {
	if ff.kind == fieldChoice {
		return f.cycle(ff, dir)
	}
	if ff.kind != fieldInt {
		return nil
	}
	v, ok := stepped(ff.field, ff.input.Value(), dir)
	if !ok {
		return nil
	}
	ff.input.SetValue(v)
	ff.input.CursorEnd()
	f.entered = true
	return f.changed()
}

// stepped returns number s of field fd one step up or down, and false when
// s is not a number.
func stepped(fd engine.Field, s string, dir int) (string, bool) {
	s = strings.TrimSpace(s)
	if fd.Kind == engine.SeedField {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return "", false
		}
		switch {
		case dir > 0 && n < math.MaxUint64:
			n++
		case dir < 0 && n > 0:
			n--
		}
		return strconv.FormatUint(n, 10), true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return "", false
	}
	factor := fd.StepFactor
	switch {
	case factor == 0:
		n += int64(dir)
	case dir < 0:
		n /= factor
	case n < 1:
		n = 1 // 0 (no step limit) times anything stays 0
	case n > math.MaxInt64/factor:
		n = math.MaxInt64
	default:
		n *= factor
	}
	return strconv.FormatInt(min(max(n, fd.Min), fd.Max), 10), true
}

// changed revalidates after an edit and keeps the cursor on a visible row.
// When the edit changed the device platform to one that loads, it returns
// the command that shows the new platform's mapping table; to one that
// does not, the command that shows the running one's again.
func (f *configForm) changed() tea.Cmd {
	f.applied = ""
	f.moveCursor(f.clampCursor(f.cursor, -1))
	cfg, _ := f.validate()
	d, err := f.devices()
	cfg.Devices = d
	if err != nil || f.checkPlatform(cfg) != nil {
		// The form shows why; the mapping table must not go on showing a
		// platform the form no longer names: back to the running one.
		if f.previewed == f.base.Devices {
			return nil
		}
		f.previewed = f.base.Devices
		return runningPreviewCmd(f.base)
	}
	if d == f.previewed {
		return nil
	}
	f.previewed = d
	return previewCmd(cfg)
}

// previewCmd is the command asking for cfg's mapping table.
func previewCmd(cfg engine.Config) tea.Cmd {
	return func() tea.Msg { return platformPreviewMsg{cfg: cfg} }
}

// runningPreviewCmd is the command taking the mapping table back to the
// running configuration, base.
func runningPreviewCmd(base engine.Config) tea.Cmd {
	return func() tea.Msg { return platformPreviewMsg{cfg: base, running: true} }
}

// digitKey reports whether k types a decimal digit.
func digitKey(k tea.KeyPressMsg) bool {
	s := k.String()
	return len(s) == 1 && s[0] >= '0' && s[0] <= '9'
}

// charKey reports whether k types a character: it has text and no ctrl or
// alt.
func charKey(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt) == 0
}

// editKey reports whether k edits a text input in place: a deletion or a
// cursor motion. Everything else stays with the explorer.
func editKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "backspace", "delete", "left", "right", "home", "end", "ctrl+a", "ctrl+e", "ctrl+u", "ctrl+k", "ctrl+w", "ctrl+h", "ctrl+d":
		return true
	}
	return false
}
