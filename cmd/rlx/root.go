package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit statuses of the rlx command.
const (
	exitOK      = 0
	exitFailure = 1 // the work itself failed or was interrupted
	exitUsage   = 2 // bad flags, arguments or input values
)

// usageError marks an error caused by what the user asked for (a flag out of
// range, an unknown name), as opposed to a failure while doing the work.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// run executes rlx with args and returns the process exit status. It is
// main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "rlx: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFailure
}

// usageArgs wraps a cobra argument validator so that its errors count as
// usage errors (exit status 2).
func usageArgs(validate cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := validate(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rlx",
		Short: "Explore how deep reinforcement learning is accelerated",
		Long: `rlx runs a real prioritized-replay, PPO and GAE training core, charges each
primitive it executes to simulated CPU, GPU and FPGA devices, and shows the
K-ary sum-tree traversal, pipeline occupancy, throughput and the device
mapping chosen by design-space exploration.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(newBenchCmd(), newDSECmd(), newHWCmd())
	return root
}
