package main

import (
	"context"
	"os"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/tui"
)

// explore opens the terminal explorer on preset p, its configuration
// changed by override (the budget and seed flags). A walkthrough or an
// experiment opens on its first step, its narrative beside the panes. The
// picker offers every preset in all; an export (e) goes into a new
// directory in outDir. It refuses to run without a terminal, pointing to
// --batch.
func explore(ctx context.Context, p engine.Preset, override func(engine.Config) engine.Config, all []engine.Preset, outDir string) error {
	if !tui.Interactive(os.Stdin, os.Stdout) {
		return usageError{tui.ErrNotTerminal}
	}
	return tui.Run(ctx, startEngine(outDir), override(p.StepConfig(0)), tui.WithPreset(p, override), tui.WithPresets(all))
}
