package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// of steps 0..i in turn. i = -1 gives Run.
func (p Preset) StepConfig(i int) Config {
	c := p.Run
	for k := 0; k <= i && k < len(p.Steps); k++ {
		c = c.With(p.Steps[k].Set)
	}
	return c
}

// DefaultPreset is the preset the explorer opens with.
const DefaultPreset = "cartpole-dqn-per"

// ParsePreset decodes and validates a preset. file labels errors, which
// are one line each: "file:line:col: what is wrong and what is accepted".
func ParsePreset(file string, data []byte) (Preset, error) {
	var p Preset
	if err := yamldoc.Decode(data, &p); err != nil {
		return p, fmt.Errorf("%s:%s", file, yamlMessage(err))
	}
	at := func(path string) string { return file + ":" + fieldPosition(data, path) }
	if p.Name == "" || strings.ContainsAny(p.Name, " /\\") {
		return p, fmt.Errorf("%s name %q is not allowed: give the preset a name without spaces or slashes", at("name"), p.Name)
	}
	if strings.TrimSpace(p.Summary) == "" {
		return p, fmt.Errorf("%s: preset %s has no summary: give it a one-line summary", file, p.Name)
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
	if err := p.Run.Validate(); err != nil {
		return p, fieldErrorAt(file, data, "run.", err)
	}
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
		if err := p.StepConfig(i).Validate(); err != nil {
			return p, fieldErrorAt(file, data, prefix+"set.", fmt.Errorf("step %d (%s): %w", i+1, st.Title, err))
		}
	}
	return p, nil
}

// fieldErrorAt places err at the position of its field under prefix when
// it wraps a *FieldError, at the file otherwise.
func fieldErrorAt(file string, data []byte, prefix string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		if pos := fieldPosition(data, prefix+fe.Field); pos != "" {
			return fmt.Errorf("%s:%s %s", file, pos, err)
		}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Presets returns the embedded presets and those in dirs (*.yaml), sorted
// by name. A user preset with the name of an embedded one replaces it. The
// first invalid file is an error.
func Presets(dirs ...string) ([]Preset, error) {
	byName := map[string]Preset{}
	for _, name := range presets.RunNames() {
		data, err := presets.Run(name)
		if err != nil {
			return nil, err
		}
		p, err := ParsePreset("presets/runs/"+name+".yaml", data)
		if err != nil {
			return nil, err
		}
		p.Source = "embedded"
		byName[p.Name] = p
	}
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("presets directory %s: %w", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			p, err := ParsePreset(f, data)
			if err != nil {
				return nil, err
			}
			p.Source = f
			byName[p.Name] = p
		}
	}
	out := make([]Preset, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Preset) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// FindPreset returns the preset called name, from the embedded ones and
// dirs, or an error listing the known names.
func FindPreset(name string, dirs ...string) (Preset, error) {
	all, err := Presets(dirs...)
	if err != nil {
		return Preset{}, err
	}
	names := make([]string, len(all))
	for i, p := range all {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("preset %q is not known: use one of %s", name, strings.Join(names, ", "))
}
