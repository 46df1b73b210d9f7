// Package experiment builds the comparisons that rlx's experiment presets
// write: what rlx measures and its models predict, beside what the seed
// papers published (Table V of 000, Fig. 9 of 002, Fig. 10 of 000, Table 2
// of 003, the experiments of 004, the scaling of 001 ch. 5).
//
// An experiment preset (engine.Preset of kind "experiment") names its
// report. A headless run executes the preset's steps on the engine and
// hands their final snapshots to Build, which adds what the report needs
// beyond them (the design-space exploration, cycle simulations, host
// micro-benchmarks) and returns markdown for people and data for scripts.
//
// experiment imports engine, bench, core, hw and presets; nothing of the
// terminal UI.
package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rlxdev/rlx/engine"
)

// StepResult is what a headless run of one step of an experiment measured.
type StepResult struct {
	Index  int    // 0-based
	Title  string // the step's title
	Config engine.Config
	// Final is the step's last snapshot; nil if the step did not run (the
	// run was interrupted before it).
	Final *engine.Snapshot
}

// Options tune how much a report measures on the host.
type Options struct {
	// Quick shortens host measurements (micro-benchmarks, learning runs a
	// report makes itself) to seconds: for tests and CI, not for figures.
	Quick bool
	// Progress, if not nil, receives a line per finished measurement.
	Progress func(string)
}

// Report is one comparison.
type Report struct {
	Name     string // the report's name, e.g. "table5"
	Title    string // a heading
	Markdown string // a markdown section: text and tables, no top-level heading
	Data     any    // the rows behind the tables, JSON-encodable
}

// builder computes one report.
type builder func(ctx context.Context, steps []StepResult, opt Options) (Report, error)

// builders maps report names to their builders; each report's file adds
// itself.
var builders = map[string]builder{}

// Names returns the known report names, sorted.
func Names() []string {
	names := make([]string, 0, len(builders))
	for n := range builders {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Build computes report name from the results of an experiment's steps.
func Build(ctx context.Context, name string, steps []StepResult, opt Options) (Report, error) {
	b, ok := builders[name]
	if !ok {
		return Report{}, fmt.Errorf("report %q is not known: use one of %s", name, strings.Join(Names(), ", "))
	}
	r, err := b(ctx, steps, opt)
	r.Name = name
	return r, err
}
