package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/presets"
)

func newPresetsCmd(dirs *[]string) *cobra.Command {
	var (
		verbose bool
		print   string
	)
	cmd := &cobra.Command{
		Use:   "presets",
		Short: "List the presets: named runs, walkthroughs and experiments",
		Long: `presets lists the embedded presets, those in your presets directory
(rlx/presets under the user configuration directory, e.g. ~/.config/rlx/presets)
and those in --presets directories, one line each with its kind, and the
embedded device platforms. A later source replaces a preset of the same name.
A file there that is not a valid preset is skipped, with a warning on stderr
naming the file, the line and the problem. Run a preset with
rlx --preset NAME (explorer) or rlx --batch --preset NAME (headless).
-v adds each preset's description. --print NAME writes the YAML of an embedded
preset or device platform to stdout, to copy and edit:

  rlx presets --print table-iv > my-devices.yaml     (then devices: my-devices.yaml)
  rlx presets --print where-rmm > mine/tour.yaml     (then --presets mine)`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if cmd.Flags().Changed("print") {
				data, err := embeddedYAML(print)
				if err != nil {
					return usageError{err}
				}
				_, err = out.Write(data)
				return err
			}
			set, err := loadPresets(*dirs, cmd.ErrOrStderr())
			if err != nil {
				return usageError{err}
			}
			// ParsePreset refuses control characters in what is printed
			// here; the source is a file name, which may hold any.
			if verbose {
				for _, p := range set.Presets {
					fmt.Fprintf(out, "%s, %s (%s)\n  %s\n\n%s\n", printable(p.Name), printable(p.Kind), printable(p.Source),
						printable(p.Summary), indent(engine.Printable(p.Description, true)))
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			for _, p := range set.Presets {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", printable(p.Name), printable(p.Kind), printable(p.Summary))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			// Only a platform with a CPU, a GPU and an FPGA joined by PCIe
			// takes an off-policy run or rlx dse (dse.CheckPlatform); PPO
			// needs a CPU (engine.CheckConfigPlatform), which the embedded
			// single-device platform lacks too: it serves an experiment.
			var mappable, partial []string
			for _, name := range presets.DeviceNames() {
				if p, err := engine.LoadPlatform(name); err == nil && dse.CheckPlatform(p) == nil {
					mappable = append(mappable, name)
				} else {
					partial = append(partial, name)
				}
			}
			fmt.Fprintf(out, "\ndevice platforms: %s (devices: NAME in a run, or --devices NAME for rlx dse)\n",
				strings.Join(mappable, ", "))
			if len(partial) > 0 {
				fmt.Fprintf(out, "single-device platforms, for the experiments that size one device: %s\n", strings.Join(partial, ", "))
			}
			if yours := engine.UserDeviceNames(); len(yours) > 0 {
				fmt.Fprintf(out, "your platforms: %s (in %s)\n", printable(strings.Join(yours, ", ")), printable(engine.UserDevicesDir()))
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each preset's description")
	cmd.Flags().StringSliceVar(dirs, "presets", nil, "directories of your own presets (*.yaml), after your presets directory")
	cmd.Flags().StringVar(&print, "print", "", "write the YAML of the embedded preset or device platform `NAME` to stdout")
	return cmd
}

// embeddedYAML returns the file of an embedded run preset or device
// platform.
func embeddedYAML(name string) ([]byte, error) {
	if name == "" {
		return nil, fmt.Errorf("--print needs a name: an embedded preset (%s) or device platform (%s)",
			strings.Join(presets.RunNames(), ", "), strings.Join(presets.DeviceNames(), ", "))
	}
	if data, err := presets.Run(name); err == nil {
		return data, nil
	}
	if data, err := presets.Device(name); err == nil {
		return data, nil
	}
	return nil, fmt.Errorf("%q is neither an embedded preset (%s) nor a device platform (%s)",
		name, strings.Join(presets.RunNames(), ", "), strings.Join(presets.DeviceNames(), ", "))
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + line + "\n")
	}
	return b.String()
}

// userPresetsDir is the directory rlx reads your presets from without
// --presets: engine.UserDir("presets").
func userPresetsDir() string { return engine.UserDir("presets") }

// presetSearchDirs returns the preset directories in the order they
// apply: your presets directory if it exists, then the --presets
// directories, each replacing presets of the same name before it.
func presetSearchDirs(flagDirs []string) []string {
	var dirs []string
	if d := userPresetsDir(); d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return append(dirs, flagDirs...)
}

// loadPresets returns the presets of presetSearchDirs(flagDirs) and writes
// a warning line on stderr for each file it skipped: a bad file in a
// presets directory is reported without hiding the other presets.
func loadPresets(flagDirs []string, stderr io.Writer) (engine.PresetSet, error) {
	set, err := engine.LoadPresets(presetSearchDirs(flagDirs)...)
	if err != nil {
		return set, err
	}
	warnSkipped(stderr, set.Skipped, nil)
	return set, nil
}

// warnSkipped writes a warning for each skipped file but the one that is
// err.
func warnSkipped(stderr io.Writer, skipped []*engine.PresetFileError, err error) {
	for _, pe := range skipped {
		if error(pe) != err {
			fmt.Fprintf(stderr, "rlx: warning: presets file skipped: %v\n", pe)
		}
	}
}

// printable is engine.Printable for one line of text from a user's file.
func printable(s string) string { return engine.Printable(s, false) }
