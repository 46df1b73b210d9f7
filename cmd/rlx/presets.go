package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/engine"
)

func newPresetsCmd(dirs *[]string) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "presets",
		Short: "List the presets: named runs, walkthroughs and experiments",
		Long: `presets lists the embedded presets and those in --presets directories, one
line each. Run one with rlx --preset NAME (explorer) or rlx --batch --preset
NAME (headless). -v adds each preset's description.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			all, err := engine.Presets(*dirs...)
			if err != nil {
				return usageError{err}
			}
			out := cmd.OutOrStdout()
			if verbose {
				for _, p := range all {
					fmt.Fprintf(out, "%s (%s)\n  %s\n\n%s\n", p.Name, p.Source, p.Summary, indent(p.Description))
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			for _, p := range all {
				fmt.Fprintf(tw, "%s\t%s\n", p.Name, p.Summary)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each preset's description")
	return cmd
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}
