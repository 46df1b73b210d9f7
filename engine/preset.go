package engine

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/env"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/yamldoc"
	"github.com/rlxdev/rlx/presets"
)

// Preset is a named run configuration with a description: the embedded
// presets of rlx (presets/runs/*.yaml) and any a user adds from a directory.
//
// A preset of kind "run" is one configuration. A "walkthrough" adds
// narrated steps: each changes some fields of the configuration and says
// what to look at, and why, with the paper section. An "experiment" is a
// walkthrough whose steps are the configurations of a paper's table or
// figure; run headless, its Report compares what rlx measures and
// predicts with the published values.
type Preset struct {
	Name        string `yaml:"name"`
	Kind        string `yaml:"kind,omitempty"` // "run" (the default), "walkthrough" or "experiment"
	Summary     string `yaml:"summary"`        // one line, for `rlx presets`
	Description string `yaml:"description"`    // a paragraph: what to look at and why
	Run         Config `yaml:"run"`
	Steps       []Step `yaml:"steps,omitempty"`
	// Report names the comparison an experiment writes after its steps
	// (the experiment package: "table5", "fanout", ...).
	Report string `yaml:"report,omitempty"`
	// MuJoCo runs the workload environments of the run and its steps as
	// their MuJoCo counterparts where the build has MuJoCo (env.Physical:
	// Hopper-workload as Hopper-v4), so that a walkthrough trains on real
	// physics there and on the cost model's stand-in elsewhere.
	MuJoCo bool `yaml:"mujoco,omitempty"`

	Source string `yaml:"-"` // "embedded" or the file it was read from
}

// Preset kinds.
const (
	KindRun         = "run"
	KindWalkthrough = "walkthrough"
	KindExperiment  = "experiment"
)

// Step is one step of a walkthrough or experiment.
type Step struct {
	Title   string `yaml:"title"`
	Section string `yaml:"section,omitempty"` // the paper section it follows, e.g. "000 §VI-B, Table V"
	Text    string `yaml:"text"`              // what to look at and why
	Expect  string `yaml:"expect,omitempty"`  // what the user should see
	// Panes are the explorer's panes the step is about, highlighted while
	// it is shown: "tree", "pipeline", "charts", "mapping", "config".
	Panes []string `yaml:"panes,omitempty"`
	// Set holds the fields of the configuration this step changes; its
	// zero fields keep the previous step's values (Config.With).
	Set Config `yaml:"set,omitempty"`
}

// PaneNames are the panes a step may highlight.
var PaneNames = []string{"tree", "pipeline", "charts", "mapping", "config"}

// StepConfig returns the configuration of step i: Run changed by the Set
// of steps 0..i in turn. i = -1 gives Run. It costs O(i): StepConfigs
// gives every step's in one pass.
func (p Preset) StepConfig(i int) Config {
	c := p.Run
	for k := 0; k <= i && k < len(p.Steps); k++ {
		c = c.With(p.Steps[k].Set)
	}
	return c
}

// StepConfigs returns the configuration of Run and of every step, in
// order: StepConfigs()[i+1] is StepConfig(i). Each step is applied once
// to the configuration of the step before, so a walkthrough of N steps
// costs O(N), where calling StepConfig for each step costs O(N^2): a
// preset of 20,000 steps took a minute to load that way.
func (p Preset) StepConfigs() []Config {
	out := make([]Config, 0, len(p.Steps)+1)
	c := p.Run
	out = append(out, c)
	for _, st := range p.Steps {
		c = c.With(st.Set)
		out = append(out, c)
	}
	return out
}

// DefaultPreset is the preset the explorer opens with.
const DefaultPreset = "cartpole-dqn-per"

// ParsePreset decodes and validates a preset. file labels errors, which
// are one line each: "file:line:col: what is wrong and what is accepted".
// It reads no file: the device platforms the run and its steps name are
// checked where presets are loaded from a directory (LoadPresets), and before
// a preset runs.
//
// Every text a terminal shows (the name, the summary, the description,
// each step's title, section, text and expectation) must be printable: a
// control character such as ESC would reach the terminal as part of an
// escape sequence, which can retitle the window, clear the screen or
// forge lines. The one-line texts take no newline either.
func ParsePreset(file string, data []byte) (Preset, error) {
	var p Preset
	if err := yamldoc.Decode(data, &p); err != nil {
		return p, fmt.Errorf("%s:%s", file, yamldoc.Message(err))
	}
	at := func(path string) string { return file + ":" + yamldoc.Position(data, path) }
	if _, bad := yamldoc.Unprintable(p.Name, false); bad || p.Name == "" || strings.ContainsAny(p.Name, " /\\") {
		return p, fmt.Errorf("%s name %q is not allowed: give the preset a name of printable characters without spaces or slashes", at("name"), p.Name)
	}
	if strings.TrimSpace(p.Summary) == "" {
		return p, fmt.Errorf("%s: preset %s has no summary: give it a one-line summary", file, p.Name)
	}
	if err := printableTexts(p, at); err != nil {
		return p, err
	}
	if p.Kind == "" {
		p.Kind = KindRun
	}
	switch {
	case p.Kind != KindRun && p.Kind != KindWalkthrough && p.Kind != KindExperiment:
		return p, fmt.Errorf("%s kind %q is not allowed: use run, walkthrough or experiment", at("kind"), p.Kind)
	case p.Kind == KindRun && len(p.Steps) > 0:
		return p, fmt.Errorf("%s a preset of kind run has no steps: make it a walkthrough or drop the steps", at("steps"))
	case p.Kind != KindRun && len(p.Steps) == 0:
		return p, fmt.Errorf("%s: %s %s has no steps: give it at least one", file, p.Kind, p.Name)
	case p.Kind == KindExperiment && p.Report == "":
		return p, fmt.Errorf("%s: experiment %s names no report: give the comparison it writes", file, p.Name)
	case p.Kind != KindExperiment && p.Report != "":
		return p, fmt.Errorf("%s only an experiment writes a report: make %s an experiment or drop the report", at("report"), p.Name)
	}
	if p.Run.Name == "" {
		p.Run.Name = p.Name
	}
	if p.MuJoCo {
		p.Run.Env = env.Physical(p.Run.Env)
		for i := range p.Steps {
			p.Steps[i].Set.Env = env.Physical(p.Steps[i].Set.Env)
		}
	}
	if err := p.Run.Validate(); err != nil {
		return p, fieldErrorAt(file, data, "run.", err)
	}
	// Each step changes the configuration of the step before: StepConfigs
	// applies it to that one, not to Run again from the start.
	cfgs := p.StepConfigs()
	for i, st := range p.Steps {
		prefix := fmt.Sprintf("steps[%d].", i)
		switch {
		case strings.TrimSpace(st.Title) == "":
			return p, fmt.Errorf("%s step %d has no title: give each step a title", at(fmt.Sprintf("steps[%d]", i)), i+1)
		case strings.TrimSpace(st.Text) == "":
			return p, fmt.Errorf("%s step %d (%s) has no text: say what to look at and why", at(fmt.Sprintf("steps[%d]", i)), i+1, st.Title)
		}
		for j, pane := range st.Panes {
			if !slices.Contains(PaneNames, pane) {
				return p, fmt.Errorf("%s pane %q is not known: use %s", at(fmt.Sprintf("%spanes[%d]", prefix, j)), pane, strings.Join(PaneNames, ", "))
			}
		}
		if err := cfgs[i+1].Validate(); err != nil {
			return p, fieldErrorAt(file, data, prefix+"set.", fmt.Errorf("step %d (%s): %w", i+1, st.Title, err))
		}
	}
	return p, nil
}

// printableTexts returns an error at the first text of p a terminal would
// not show as written (ParsePreset), naming the character.
func printableTexts(p Preset, at func(path string) string) error {
	type text struct {
		path, what, value string
		multiLine         bool
	}
	texts := []text{
		{"summary", "the summary", p.Summary, false},
		{"description", "the description", p.Description, true},
		{"run.name", "the run's name", p.Run.Name, false},
	}
	for i, st := range p.Steps {
		step := fmt.Sprintf("steps[%d].", i)
		what := fmt.Sprintf("step %d's ", i+1)
		texts = append(texts,
			text{step + "title", what + "title", st.Title, false},
			text{step + "section", what + "section", st.Section, false},
			text{step + "text", what + "text", st.Text, true},
			text{step + "expect", what + "expectation", st.Expect, true},
			text{step + "set.name", what + "run name", st.Set.Name, false},
		)
	}
	for _, t := range texts {
		r, bad := yamldoc.Unprintable(t.value, t.multiLine)
		if !bad {
			continue
		}
		accepted := "one line of printable characters"
		if t.multiLine {
			accepted = "printable characters and newlines"
		}
		return fmt.Errorf("%s %s holds %s, which a terminal does not print as written: use %s", at(t.path), t.what, r, accepted)
	}
	return nil
}

// fieldErrorAt places err at the position of its field under prefix when
// it wraps a *FieldError, at the file otherwise.
func fieldErrorAt(file string, data []byte, prefix string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		if pos := yamldoc.Position(data, prefix+fe.Field); pos != "" {
			return fmt.Errorf("%s:%s %w", file, pos, err)
		}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// PresetFileError is a file in a presets directory that is not a valid
// preset: a YAML file of another kind (a device platform saved beside the
// presets), one that does not parse, or a preset with a bad value.
// LoadPresets skips it and reports it.
type PresetFileError struct {
	File string // the file's path
	// Name is the preset name the file gives, if one can be read from
	// it, so that asking for that preset gets the file's error.
	Name string
	Err  error // why; its message starts with the file, and the line and column where known
}

// Error is the message of Err with its control characters escaped: it
// quotes the file, which a warning prints to a terminal.
func (e *PresetFileError) Error() string { return yamldoc.Printable(e.Err.Error(), false) }
func (e *PresetFileError) Unwrap() error { return e.Err }

// PresetSet is what LoadPresets found: the valid presets and the files it
// skipped.
type PresetSet struct {
	Presets []Preset           // sorted by name
	Skipped []*PresetFileError // in the order the files were read
	// broken holds, by preset name, the skipped file that was the last
	// source of that name: Find reports its error rather than run an
	// older preset of the name the user meant to replace.
	broken map[string]*PresetFileError
}

// LoadPresets returns the embedded presets and the presets in dirs (their
// *.yaml files), in this order: a preset replaces one of the same name
// before it. A file that is not a valid preset is skipped and listed in
// Skipped: one bad file in a presets directory must not hide the embedded
// presets or the other files. A dir that is not a directory that can be
// listed is an error, since it was asked for by name.
//
// Every file is read with yamldoc.ReadFile (a regular file of at most
// yamldoc.MaxFileSize bytes), and a preset's device platforms are loaded
// (CheckPresetPlatforms), so that a preset listed is one that can run.
func LoadPresets(dirs ...string) (PresetSet, error) {
	set := PresetSet{broken: map[string]*PresetFileError{}}
	builtIn, err := embeddedPresets()
	if err != nil {
		return PresetSet{}, err
	}
	byName := make(map[string]Preset, len(builtIn))
	for _, p := range builtIn {
		byName[p.Name] = p.clone()
	}
	for _, dir := range dirs {
		files, err := presetFiles(dir)
		if err != nil {
			return PresetSet{}, err
		}
		for _, f := range files {
			p, name, err := loadPresetFile(f)
			if err != nil {
				pe := &PresetFileError{File: f, Name: name, Err: err}
				set.Skipped = append(set.Skipped, pe)
				if name != "" {
					set.broken[name] = pe
				}
				continue
			}
			delete(set.broken, p.Name)
			byName[p.Name] = p
		}
	}
	set.Presets = make([]Preset, 0, len(byName))
	for _, p := range byName {
		set.Presets = append(set.Presets, p)
	}
	slices.SortFunc(set.Presets, func(a, b Preset) int { return strings.Compare(a.Name, b.Name) })
	return set, nil
}

// embeddedPresets parses the embedded presets, once: they cannot change
// while rlx runs, and parsing them is most of what LoadPresets costs when
// the directories are small (5 ms), which matters to what calls it many
// times, such as a fuzz target. LoadPresets hands out clones.
var embeddedPresets = sync.OnceValues(func() ([]Preset, error) {
	var out []Preset
	type dir struct {
		dir   string
		names []string
	}
	dirs := []dir{{"runs", presets.RunNames()}}
	if env.MuJoCo {
		dirs = append(dirs, dir{"mujoco", presets.MuJoCoRunNames()})
	}
	for _, d := range dirs {
		for _, name := range d.names {
			data, err := presets.Run(name)
			if err != nil {
				return nil, err
			}
			p, err := ParsePreset("presets/"+d.dir+"/"+name+".yaml", data)
			if err != nil {
				return nil, err
			}
			p.Source = "embedded"
			out = append(out, p)
		}
	}
	return out, nil
})

// clone returns p with its own steps, so that a caller changing them
// changes no other copy.
func (p Preset) clone() Preset {
	p.Steps = slices.Clone(p.Steps)
	for i := range p.Steps {
		p.Steps[i].Panes = slices.Clone(p.Steps[i].Panes)
	}
	return p
}

// presetFiles returns the *.yaml files of the presets directory dir,
// sorted by name: a directory listing rather than a glob, which would
// read a "[" or "*" in dir as a pattern.
func presetFiles(dir string) ([]string, error) {
	if dir == "" {
		return nil, errors.New("a presets directory has an empty name: give a directory of preset YAML files")
	}
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("presets directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("presets directory %s is not a directory: give a directory of preset YAML files", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("presets directory %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	return files, nil
}

// loadPresetFile reads, parses and checks the preset file f. When it is
// not valid, name is the preset name the file gives, if any.
func loadPresetFile(f string) (p Preset, name string, err error) {
	data, err := yamldoc.ReadFile(f)
	if err != nil {
		return Preset{}, "", err
	}
	if p, err = ParsePreset(f, data); err == nil {
		err = CheckPresetPlatforms(f, data, p)
	}
	if err != nil {
		return Preset{}, declaredName(data), err
	}
	p.Source = f
	return p, p.Name, nil
}

// declaredName returns the top-level "name" of a YAML document that may
// not be a valid preset, or "".
func declaredName(data []byte) (name string) {
	defer func() {
		if recover() != nil {
			name = "" // the parser failed on a malformed document: no name
		}
	}()
	file, err := parser.ParseBytes(data, 0)
	if err != nil || len(file.Docs) == 0 {
		return ""
	}
	m, ok := file.Docs[0].Body.(*ast.MappingNode)
	if !ok {
		return ""
	}
	for _, mv := range m.Values {
		k, kok := mv.Key.(*ast.StringNode)
		v, vok := mv.Value.(*ast.StringNode)
		if kok && vok && k.Value == "name" {
			return v.Value
		}
	}
	return ""
}

// CheckPresetPlatforms is CheckPlatforms for the preset p read from file,
// whose content is data: the error is placed at the devices field of the
// run or of the step whose configuration the platform cannot run, or at
// the step's algo field when it changed the algorithm alone.
func CheckPresetPlatforms(file string, data []byte, p Preset) error {
	i, err := firstPlatformError(p.StepConfigs())
	switch {
	case err == nil:
		return nil
	case i == 0:
		return fieldErrorAt(file, data, "run.", err)
	}
	err = fmt.Errorf("step %d (%s): %w", i, p.Steps[i-1].Title, err)
	doc := yamldoc.ParseDoc(data)
	for _, field := range []string{"devices", "algo"} {
		if pos := doc.Position(fmt.Sprintf("steps[%d].set.%s", i-1, field)); pos != "" {
			return fmt.Errorf("%s:%s %w", file, pos, err)
		}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// CheckPlatforms returns an error unless the device platform of every
// configuration cfgs of preset p runs (cfgs[0] its run, cfgs[i+1] its step
// i, as StepConfigs gives them, with any changes of the command line)
// loads and holds what the configuration's algorithm runs on
// (CheckConfigPlatform); a step's error names the step. Checked before
// anything runs: a step 2 that named a missing devices file, or a
// platform its algorithm cannot run on (heppo-zcu106 for a DQN run), let
// step 1 run its whole budget before the walkthrough failed.
func CheckPlatforms(p Preset, cfgs []Config) error {
	i, err := firstPlatformError(cfgs)
	if err == nil || i == 0 {
		return err
	}
	return fmt.Errorf("step %d (%s): %w", i, p.Steps[i-1].Title, err)
}

// firstPlatformError returns the index in cfgs of the first configuration
// CheckConfigPlatform refuses, and its error. A walkthrough may switch
// between a few platforms many times: each platform is checked once per
// algorithm family, the one thing besides the platform the check reads.
func firstPlatformError(cfgs []Config) (int, error) {
	type key struct {
		devices  string
		onPolicy bool
	}
	checked := map[key]bool{}
	for i, c := range cfgs {
		k := key{c.Devices, c.Algo.OnPolicy()}
		if checked[k] {
			continue
		}
		checked[k] = true
		if err := CheckConfigPlatform(c); err != nil {
			return i, err
		}
	}
	return 0, nil
}

// CheckConfigPlatform returns why c cannot run on its device platform, as
// a *FieldError of the field devices, or nil: the platform does not load
// (CheckPlatform), or it lacks a device c's algorithm runs on. An
// off-policy run is placed by the mapping exploration, which needs a CPU,
// a GPU, an FPGA and the link (dse.CheckPlatform); PPO steps its
// environments on the CPU (sim.NewPPO charges them there) and trains and
// estimates advantages on any device, so it needs a CPU. An uncalibrated
// host platform is not an error (CheckPlatform): rlx calibrate writes all
// four devices.
func CheckConfigPlatform(c Config) error {
	p, err := checkedPlatform(c.Devices)
	if err != nil || p == nil {
		return err
	}
	if c.Algo.OnPolicy() {
		if p.CPU == nil {
			err = fmt.Errorf("platform %q has no cpu: PPO steps its environments on the CPU's cores", p.Name)
		}
	} else if err = dse.CheckPlatform(p); err != nil {
		err = fmt.Errorf("a %s run is placed by the mapping exploration, and %w", cmp.Or(c.Algo, DQN), err)
	}
	if err != nil {
		return &FieldError{"devices", fmt.Sprintf("%q", c.Devices), yamldoc.Printable(err.Error(), false)}
	}
	return nil
}

// CheckPlatform returns why the device platform devices (a run's devices
// field) does not load, as a *FieldError of the field devices, or nil. An
// uncalibrated host platform is not an error: the run measures this
// machine before it starts. The error is one printable line: a platform
// file with several problems gives its first and how many more there
// are, and control characters from the file or the path are escaped.
// Whether a run's algorithm can run on the platform is
// CheckConfigPlatform's.
func CheckPlatform(devices string) error {
	_, err := checkedPlatform(devices)
	return err
}

// checkedPlatform is CheckPlatform returning the platform it loaded: nil
// with a nil error for an uncalibrated host platform.
func checkedPlatform(devices string) (*hw.Platform, error) {
	if devices == HostDevices {
		if path := HostPlatformPath(); path != "" {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
		}
	}
	p, err := LoadPlatform(devices)
	if err == nil {
		return p, nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return nil, &FieldError{fe.Field, fe.Value, yamldoc.Printable(fe.Reason, false)}
	}
	first, rest, more := strings.Cut(err.Error(), "\n")
	if more {
		first += fmt.Sprintf(" (and %d more problems)", strings.Count(rest, "\n")+1)
	}
	return nil, &FieldError{"devices", fmt.Sprintf("%q", devices), "the platform does not load: " + yamldoc.Printable(first, false)}
}

// Find returns the preset called name. When the last file that gave that
// name was skipped, its error is the answer: the user meant that file,
// not an older preset of the same name. An unknown name's error lists the
// known names.
func (s PresetSet) Find(name string) (Preset, error) {
	if pe, ok := s.broken[name]; ok {
		return Preset{}, pe
	}
	names := make([]string, len(s.Presets))
	for i, p := range s.Presets {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	// A skipped file named after the preset, from which no name could be
	// read, is most likely the one meant.
	for _, pe := range s.Skipped {
		if pe.Name == "" && strings.TrimSuffix(filepath.Base(pe.File), ".yaml") == name {
			return Preset{}, pe
		}
	}
	if slices.Contains(presets.MuJoCoRunNames(), name) {
		return Preset{}, fmt.Errorf("preset %s runs on MuJoCo, and %w", name, env.ErrNoMuJoCo)
	}
	return Preset{}, fmt.Errorf("preset %q is not known: use one of %s", name, strings.Join(names, ", "))
}

// Presets returns the embedded presets, sorted by name. LoadPresets adds
// those of directories, and the files it skipped.
func Presets() ([]Preset, error) {
	set, err := LoadPresets()
	return set.Presets, err
}

// Printable returns text from a user's file (a preset's texts, the file
// it came from) with its control characters escaped, for printing to a
// terminal; keepNewlines keeps the newlines of a multi-line text.
// ParsePreset refuses control characters in a preset's texts already; a
// file name may hold any.
func Printable(s string, keepNewlines bool) string { return yamldoc.Printable(s, keepNewlines) }
