package main

import (
	"context"
	"fmt"
	"io"

	"github.com/rlxdev/rlx/engine"
)

// runSteps runs the steps of a walkthrough or experiment headless.
func runSteps(ctx context.Context, p engine.Preset, override func(engine.Config) engine.Config, opt batchOptions, stdout, stderr io.Writer) error {
	return fmt.Errorf("preset %s is a %s: headless walkthroughs are not wired yet", p.Name, p.Kind)
}
