package main

import (
	"context"
	"os"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/tui"
)

// startEngine adapts engine.Start to the explorer's Starter. On error it
// returns a nil interface, not a nil *engine.Run inside one.
func startEngine(ctx context.Context, cfg engine.Config) (tui.LiveRun, error) {
	r, err := engine.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// explore opens the terminal explorer on preset p, its configuration
// changed by override (the budget and seed flags). A walkthrough or an
// experiment opens on its first step, its narrative beside the panes. It
// refuses to run without a terminal, pointing to --batch.
func explore(ctx context.Context, p engine.Preset, override func(engine.Config) engine.Config) error {
	if !tui.Interactive(os.Stdin, os.Stdout) {
		return usageError{tui.ErrNotTerminal}
	}
	return tui.Run(ctx, startEngine, override(p.StepConfig(0)), tui.WithPreset(p, override))
}
