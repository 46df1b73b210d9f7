package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rlxdev/rlx/presets"
)

// Preset is a named run configuration with a description: the embedded
// presets of rlx (presets/runs/*.yaml) and any a user adds from a directory.
type Preset struct {
	Name        string `yaml:"name"`
	Summary     string `yaml:"summary"`     // one line, for `rlx presets`
	Description string `yaml:"description"` // a paragraph: what to look at and why
	Run         Config `yaml:"run"`

	Source string `yaml:"-"` // "embedded" or the file it was read from
}

// DefaultPreset is the preset the explorer opens with.
const DefaultPreset = "cartpole-dqn-per"

// ParsePreset decodes and validates a preset. file labels errors, which
// are one line each: "file:line:col: what is wrong and what is accepted".
func ParsePreset(file string, data []byte) (Preset, error) {
	var p Preset
	if err := yaml.UnmarshalWithOptions(data, &p, yaml.DisallowUnknownField()); err != nil {
		return p, fmt.Errorf("%s:%s", file, yamlMessage(err))
	}
	if p.Name == "" || strings.ContainsAny(p.Name, " /\\") {
		return p, fmt.Errorf("%s:%s name %q is not allowed: give the preset a name without spaces or slashes", file, fieldPosition(data, "name"), p.Name)
	}
	if strings.TrimSpace(p.Summary) == "" {
		return p, fmt.Errorf("%s: preset %s has no summary: give it a one-line summary", file, p.Name)
	}
	if p.Run.Name == "" {
		p.Run.Name = p.Name
	}
	if err := p.Run.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return p, fmt.Errorf("%s:%s %s", file, fieldPosition(data, "run."+fe.Field), err)
		}
		return p, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
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
