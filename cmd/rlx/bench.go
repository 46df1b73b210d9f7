package main

import "github.com/spf13/cobra"

// newBenchCmd returns the parent of the micro-benchmark subcommands.
func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run micro-benchmarks of the training core on this machine",
		Long: `bench measures the primitives of the training core on this machine, with the
host clock. Each subcommand prints a table, or JSON with --json.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.AddCommand(newBenchSumtreeCmd(), newBenchGAECmd(), newBenchPPOCmd(), newBenchOffPolicyCmd())
	return cmd
}
