package tui

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/testenv"
)

// toField focuses the config form and moves its cursor, up or down, to
// the row with the given key.
func toField(t *testing.T, m *Model, key string) {
	t.Helper()
	m.setFocus(paneConfig)
	want := slices.IndexFunc(m.form.fields, func(ff *formField) bool { return ff.key == key })
	for range len(m.form.fields) {
		switch {
		case m.form.cursor < want:
			press(m, "down")
		case m.form.cursor > want:
			press(m, "up")
		default:
			return
		}
	}
	t.Fatalf("no visible form row %q", key)
}

// formLines is the config form as drawn inside its frame, without styling.
func formLines(m *Model) []string {
	return strings.Split(ansi.Strip(m.form.View()), "\n")
}

func TestFormTypingReplacesOnEntry(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	// Each step: arrive at a field (or stay), press keys, read the value.
	for _, s := range []struct {
		field string // "" stays on the field
		keys  []string
		want  string
		what  string
	}{
		{"batch", []string{"2", "5", "6"}, "256", "typing 256 on arriving at batch 16384"},
		{"", []string{"0"}, "2560", "a second key replaced again"},
		{"", []string{"backspace"}, "256", "backspace"},
		// Leaving and coming back, the value is whole again.
		{"", []string{"down", "up", "6", "4"}, "64", "typing 64 on coming back"},
		// Arriving with backspace edits the value in place.
		{"capacity", []string{"backspace"}, "104857", "backspace on arriving at capacity 1048576"},
		{"", []string{"0"}, "1048570", "typing after backspace"},
	} {
		field := s.field
		if field != "" {
			toField(t, m, field)
		} else {
			field = m.form.current().key
		}
		for _, k := range s.keys {
			press(m, k)
		}
		if v := m.form.value(field); v != s.want {
			t.Fatalf("%s gave %q, want %s", s.what, v, s.want)
		}
	}
}

func TestFormStepKeys(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	steps := []struct {
		field string
		keys  string // each a key: + or -
		want  string
	}{
		{"batch", "+", "32768"},  // 16384 doubled
		{"batch", "+", "65536"},  // the maximum
		{"batch", "+", "65536"},  // stays in range
		{"batch", "---", "8192"}, // halved three times
		{"fanout", "-", "8"},     // 16 halved
		{"actors", "++", "3"},    // counted by one
		{"steps", "+", "1"},      // 0 (no limit) up: one step
		{"steps", "++", "100"},   // then decades
		{"seed", "-", "0"},
		{"seed", "-", "0"}, // never below 0
		{"algo", "+", "td3"},
		{"algo", "-", "ddpg"},
	}
	for _, s := range steps {
		toField(t, m, s.field)
		typeText(m, s.keys)
		if v := m.form.value(s.field); v != s.want {
			t.Errorf("%s after %q: %q, want %q", s.field, s.keys, v, s.want)
		}
	}
	// After a step the value is whole: a digit replaces it.
	toField(t, m, "batch")
	typeText(m, "+5")
	if v := m.form.value("batch"); v != "5" {
		t.Errorf("a digit after + gave %q, want 5", v)
	}
	if !strings.Contains(plain(m), "+/- ×2 ÷2") {
		t.Error("the batch row's help does not say what + and - do")
	}
}

// isQuit reports whether cmd quits the program.
func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestFormQTypesInFields(t *testing.T) {
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	toField(t, m, "batch")
	if isQuit(press(m, "q")) {
		t.Fatal("q in a number field quits")
	}
	if v := m.form.value("batch"); v != "16384" {
		t.Errorf("q changed the number to %q", v)
	}
	toField(t, m, keyDevices)
	for m.form.value(keyDevices) != fileChoice {
		press(m, "right")
	}
	toField(t, m, keyDevicesFile)
	// Every printable key types in a path, the explorer's one-key
	// bindings (r, z, ?, space, /, e) included.
	const path = "q/r z?e-1+q.yaml"
	for _, r := range path {
		k := string(r)
		if r == ' ' {
			k = "space"
		}
		press(m, k)
	}
	if v := m.form.value(keyDevicesFile); v != path {
		t.Errorf("typed %q into the path, got %q", path, v)
	}
	if m.zoomed || m.paused || m.helpOpen {
		t.Errorf("typing a path zoomed (%v), paused (%v) or opened the help (%v)", m.zoomed, m.paused, m.helpOpen)
	}
	if !isQuit(press(m, "ctrl+c")) {
		t.Error("ctrl+c in a field does not quit")
	}
	toField(t, m, "env")
	if !isQuit(press(m, "q")) {
		t.Error("q on a list row does not quit")
	}
}

// crowdedForm is an 80x24 explorer whose config form has more lines than
// it can show: a manual mapping adds three rows, and an environment that
// does not exist an error of three lines, listing those that do.
func crowdedForm(t *testing.T) *Model {
	t.Helper()
	cfg := hopperConfig()
	cfg.Env = "Walker-v9"
	cfg.Mapping = engine.MustMapping("G-G-G")
	m, _ := newTestModel(t, cfg, 80, 24)
	if m.focus != paneConfig || !strings.Contains(m.form.err, `env "Walker-v9" is not allowed`) {
		t.Fatalf("the form does not show the error: focus %v, %q", m.focus, m.form.err)
	}
	return m
}

func TestFormApplyStaysInView(t *testing.T) {
	m := crowdedForm(t)
	for _, k := range []string{"env", "batch", "seed", keyMapStorage, keyDevices, keyApply} {
		toField(t, m, k)
		out := plain(m)
		if !strings.Contains(out, "[ apply & restart ]") {
			t.Errorf("cursor on %s: the apply button left the view:\n%s", k, out)
		}
		lines := formLines(m)
		if len(lines) > m.form.h {
			t.Errorf("cursor on %s: the form draws %d lines in %d", k, len(lines), m.form.h)
		}
		if k == "env" && !strings.Contains(out, `env "Walker-v9" is not allowed`) {
			t.Errorf("the error of the cursor's row is out of view:\n%s", out)
		}
		if f := m.form.current(); !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, strings.TrimSpace(f.label)) }) {
			t.Errorf("the cursor's row %s is out of view:\n%s", k, out)
		}
		if k == keyApply && !strings.Contains(out, "↑ more") {
			t.Errorf("rows are hidden above and nothing says so:\n%s", out)
		}
		if k == "env" && !strings.Contains(out, "↓ more") {
			t.Errorf("rows are hidden below and nothing says so:\n%s", out)
		}
	}
}

// userPlatforms gives the test a user configuration directory of its own
// holding host.yaml (table-iv renamed, as rlx calibrate would write a
// platform) and returns the devices directory.
func userPlatforms(t *testing.T) string {
	t.Helper()
	testenv.UserConfig(t)
	dir := engine.UserDevicesDir()
	testenv.PlatformCopy(t, filepath.Join(dir, engine.HostDevices+".yaml"), engine.HostDevices)
	return dir
}

// previewOf returns the platform preview cmd asks for, and whether it
// does.
func previewOf(cmd tea.Cmd) (engine.Config, bool) {
	if cmd == nil {
		return engine.Config{}, false
	}
	p, ok := cmd().(platformPreviewMsg)
	return p.cfg, ok
}

func TestFormPlatformField(t *testing.T) {
	userPlatforms(t)
	m, st := newTestModel(t, hopperConfig(), 120, 40)
	startRun(t, m, st)
	toField(t, m, keyDevices)
	var want []string
	for _, c := range engine.DeviceChoices() {
		want = append(want, c.Name)
	}
	want = append(want, fileChoice)
	if got := m.form.byKey(keyDevices).options; !slices.Equal(got, want) ||
		!slices.Contains(got, "heppo-zcu106") || !slices.Contains(got, engine.HostDevices) {
		t.Fatalf("platform choices %v, want %v with heppo-zcu106 and host", got, want)
	}
	if v := m.form.value(keyDevices); v != engine.DefaultDevices || m.form.Dirty() {
		t.Fatalf("the default platform shows as %q (dirty %v)", v, m.form.Dirty())
	}

	// Each platform chosen is previewed at once with the form's config.
	toField(t, m, "batch")
	typeText(m, "4096")
	toField(t, m, keyDevices)
	// heppo-zcu106 (an FPGA alone) cannot place this DDPG run: refused
	// inline, and nothing previewed. (PPO would run on it.)
	var cmd tea.Cmd
	for m.form.value(keyDevices) != "heppo-zcu106" {
		cmd = press(m, "+")
	}
	// A platform the form refuses is never previewed; the table goes (or
	// stays) back on the running platform.
	running := m.Config().Devices
	if cfg, ok := previewOf(cmd); (ok && cfg.Devices != running) || !strings.Contains(m.form.err, "placed by the mapping exploration") {
		t.Fatalf("choosing heppo-zcu106 for DDPG: preview of %q (%v), error %q; want none but the running %q and the exploration's need", cfg.Devices, ok, m.form.err, running)
	}
	for m.form.value(keyDevices) != engine.HostDevices {
		cmd = press(m, "+")
	}
	if cfg, ok := previewOf(cmd); !ok || cfg.Devices != engine.HostDevices || cfg.Batch != 4096 {
		t.Fatalf("choosing %s previews %+v (%v), want devices %s at batch 4096", engine.HostDevices, cfg, ok, engine.HostDevices)
	}
	if !strings.Contains(plain(m), engine.HostDevices+" (yours)") {
		t.Error("the calibrated host platform is not marked as yours")
	}

	// A file: nothing to preview until its path loads.
	// The host platform was previewed: the table goes back to the running
	// platform while the path is empty.
	if cfg, ok := previewOf(press(m, "right")); m.form.value(keyDevices) != fileChoice || !ok || cfg.Devices != running {
		t.Fatalf("→ gave %q previewing %q (%v), want the running %q back", m.form.value(keyDevices), cfg.Devices, ok, running)
	}
	if !strings.Contains(m.form.err, "type the path of a device platform YAML file") || !strings.Contains(plain(m), "✗ devices") {
		t.Errorf("an empty path is not refused inline: %q\n%s", m.form.err, plain(m))
	}
	file := filepath.Join(t.TempDir(), "lab.yaml")
	testenv.PlatformCopy(t, file, "lab")
	toField(t, m, keyDevicesFile)
	var last tea.Cmd
	for i, r := range file {
		last = press(m, string(r))
		if i < len(file)-1 && last != nil {
			if cfg, ok := previewOf(last); ok && cfg.Devices != running {
				t.Fatalf("previewed %q, a path that does not load", cfg.Devices)
			}
		}
	}
	if cfg, ok := previewOf(last); !ok || cfg.Devices != file {
		t.Fatalf("the typed platform file is not previewed: %+v", cfg)
	}
	// A path pasted whole replaces the one typed, and is previewed.
	other := filepath.Join(t.TempDir(), "other.yaml")
	testenv.PlatformCopy(t, other, "other")
	toField(t, m, keyDevices)
	toField(t, m, keyDevicesFile)
	if cfg, ok := previewOf(m.form.Paste(other + "\n")); !ok || cfg.Devices != other {
		t.Fatalf("the pasted platform file is not previewed: %+v", cfg)
	}
	if m.form.Paste(file); m.form.value(keyDevicesFile) != other+file {
		t.Fatalf("a second paste gave %q, want it added", m.form.value(keyDevicesFile))
	}
	press(m, "ctrl+u")
	m.form.Paste(file)
	press(m, "backspace")
	if m.form.errKey != keyDevicesFile || !strings.Contains(plain(m), "✗ devices") {
		t.Errorf("a path that does not load is not refused inline: %q\n%s", m.form.err, plain(m))
	}
	press(m, "l")
	runCmd(m, press(m, "enter"))
	if _, cfgs := st.last(); len(cfgs) != 2 || cfgs[1].Devices != file {
		t.Fatalf("apply started %+v, want devices %s", cfgs, file)
	}

	// The running platform shows as the file; reverting a change previews
	// it again.
	if m.form.value(keyDevices) != fileChoice || m.form.value(keyDevicesFile) != file {
		t.Errorf("the running platform file shows as %q %q", m.form.value(keyDevices), m.form.value(keyDevicesFile))
	}
	toField(t, m, keyDevices)
	// → wraps to heppo-zcu106, which this DDPG run cannot use (nothing
	// previewed), then table-iv, previewed.
	for m.form.value(keyDevices) != engine.DefaultDevices {
		press(m, "right")
	}
	cfg, ok := previewOf(press(m, "esc"))
	if !ok || cfg.Devices != file {
		t.Errorf("esc previews %+v (%v), want the running platform back", cfg, ok)
	}
}

func TestFormClickRow(t *testing.T) {
	m := crowdedForm(t)
	toField(t, m, keyDevices)
	lineOf := func(label string) int {
		for i, l := range formLines(m) {
			if strings.HasPrefix(strings.TrimSpace(l), label) {
				return i
			}
		}
		return -1
	}
	view := func() string { return strings.Join(formLines(m), "\n") }
	if lineOf("↑ more") != 0 || lineOf("devices") < 0 {
		t.Fatalf("the form is not scrolled to its devices row:\n%s", view())
	}
	for _, c := range []struct{ label, key string }{
		{"capacity", "capacity"}, {"seed", "seed"}, {"[ apply", keyApply}, {"RMM on", keyMapRMM},
	} {
		y := lineOf(c.label)
		m.form.ClickRow(y)
		if k := m.form.current().key; k != c.key {
			t.Errorf("a click on line %d (%s) selected %s:\n%s", y, c.label, k, view())
		}
	}
	// A click on "↑ more" scrolls up a row; the wheel scrolls to the
	// top, and the cursor follows into the view.
	first := formLines(m)[1]
	m.form.ClickRow(lineOf("↑ more"))
	if slices.Index(formLines(m), first) <= 1 {
		t.Errorf("a click on ↑ more did not scroll a row, from %q:\n%s", first, view())
	}
	m.form.Scroll(-100)
	if lineOf("↑ more") >= 0 || lineOf("environment") != 0 || lineOf("↓ more") < 0 {
		t.Errorf("scrolled to the top, the form shows:\n%s", view())
	}
	if k := m.form.current(); lineOf(strings.TrimSpace(k.label)) < 0 {
		t.Errorf("the cursor's row %s left the view on scrolling:\n%s", k.key, view())
	}
	// Down a row: past the environment and its error.
	m.form.ClickRow(lineOf("↓ more"))
	if lineOf("↑ more") != 0 || lineOf("algorithm") != 1 {
		t.Errorf("a click on ↓ more did not scroll a row:\n%s", view())
	}
	// Lines of no row do nothing.
	was := m.form.cursor
	m.form.ClickRow(-1)
	m.form.ClickRow(1000)
	if m.form.cursor != was {
		t.Error("a click outside the rows moved the cursor")
	}
	// Tiny sizes draw what fits and never panic.
	for _, h := range []int{0, 1, 2, 5} {
		m.form.SetSize(30, h)
		m.form.Scroll(1)
		m.form.ClickRow(0)
		m.form.Scroll(-1)
		if n := len(strings.Split(m.form.View(), "\n")); h > 0 && n > h {
			t.Errorf("a form of %d lines draws %d", h, n)
		}
	}
}

// TestGoldenFormPlatform draws the config form, focused, with a platform
// file chosen and its path typed, at each size.
func TestGoldenFormPlatform(t *testing.T) {
	for _, sz := range goldenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			// No platform of yours: the choices are the embedded ones.
			testenv.UserConfig(t)
			m, st := newTestModel(t, hopperConfig(), sz.w, sz.h)
			startRun(t, m, st)
			toField(t, m, keyDevices)
			for m.form.value(keyDevices) != fileChoice {
				press(m, "+")
			}
			toField(t, m, keyDevicesFile)
			typeText(m, "../presets/devices/table-iv.yaml")
			if m.form.err != "" {
				t.Fatalf("the platform file is refused: %s", m.form.err)
			}
			out := ascii(m.form.View())
			if n := len(strings.Split(out, "\n")); n > m.form.h {
				t.Fatalf("the form draws %d lines in %d", n, m.form.h)
			}
			golden.RequireEqual(t, out)
		})
	}
}
