package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/report"
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
	// An error may quote a user's file or argument: escape what would
	// reach the terminal as a control sequence.
	fmt.Fprintf(stderr, "rlx: %s\n", engine.Printable(err.Error(), true))
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
	var (
		batch, asJSON, quick bool
		preset, config, out  string
		devices              string
		presetDirs, sets     []string
		steps                int64
		duration             time.Duration
		seed                 uint64
		progressEvery        time.Duration
		memLimit             string
	)
	root := &cobra.Command{
		Use:   "rlx",
		Short: "Explore how deep reinforcement learning is accelerated",
		Long: `rlx runs a real prioritized-replay, PPO and GAE training core, charges each
primitive it executes to simulated CPU, GPU and FPGA devices, and shows the
K-ary sum-tree traversal, pipeline occupancy, throughput and the device
mapping chosen by design-space exploration.

Without a subcommand rlx opens the explorer on a preset (` + engine.DefaultPreset + ` unless
--preset or --config says otherwise) and starts it at once. --batch runs the
same without a terminal and writes run.json, metrics.csv and plots to --out;
for a walkthrough or experiment, a directory per step, steps.json and
README.md.`,
		Example: `  rlx                                   open the explorer
  rlx --preset hopper-ddpg-16384        open it on another preset
  rlx --set env=Pendulum-v1 --set algo=td3 --set batch=64
                                        change settings of the preset's run
  rlx --batch --preset cartpole-ppo --steps 100000 --out results
  rlx presets                           list the presets`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			// First: the limit is the process's, and every run of rlx
			// sets it, the default included, whatever fails after.
			if err := setMemoryLimit(memLimit); err != nil {
				return usageError{err}
			}
			if preset != "" && config != "" {
				return usagef("--preset and --config both name a run: give one")
			}
			// An empty value would fall back to the default preset.
			if cmd.Flags().Changed("preset") && preset == "" {
				return usagef("--preset needs a name: rlx presets lists them")
			}
			if cmd.Flags().Changed("config") && config == "" {
				return usagef("--config needs a file name")
			}
			var p engine.Preset
			if config != "" {
				c, err := engine.LoadConfig(config)
				if err != nil {
					return usageError{err}
				}
				p = engine.Preset{Name: c.Name, Kind: engine.KindRun, Run: c, Source: config}
			}
			// The presets, loaded once: --preset is found among them, and
			// the explorer's picker lists them as rlx presets does. A
			// headless run of --config needs neither.
			var set engine.PresetSet
			if config == "" || !batch {
				var err error
				if set, err = engine.LoadPresets(presetSearchDirs(presetDirs)...); err != nil {
					return usageError{err}
				}
				var findErr error
				if config == "" {
					if preset == "" {
						preset = engine.DefaultPreset
					}
					p, findErr = set.Find(preset)
				}
				// A skipped file whose error is the answer is reported
				// once, as the command's error.
				warnSkipped(cmd.ErrOrStderr(), set.Skipped, findErr)
				if findErr != nil {
					return usageError{findErr}
				}
			}
			// --set, --devices and the budget and seed flags override the
			// preset's settings, in every step of a walkthrough or
			// experiment. A bad one is refused here, once.
			f := cmd.Flags()
			settings, err := parseSets(sets)
			if err != nil {
				return usageError{err}
			}
			if f.Changed("devices") {
				// --devices NAME is a last --set devices=NAME.
				if err := checkSetting("devices", devices); err != nil {
					return usageError{err}
				}
				settings = append(settings, setting{"devices", devices})
			}
			if f.Changed("steps") && steps < 0 {
				return usagef("--steps %d is not allowed: it must be >= 0", steps)
			}
			if f.Changed("duration") && duration < 0 {
				return usagef("--duration %v is not allowed: it must be >= 0", duration)
			}
			if progressEvery < 0 {
				return usagef("--progress %v is not allowed: it must be >= 0 (0 for no progress lines)", progressEvery)
			}
			override := func(c engine.Config) engine.Config {
				for _, s := range settings {
					_ = c.Set(s.name, s.value) // checked by parseSets
				}
				if f.Changed("steps") {
					c.Steps = steps
				}
				if f.Changed("duration") {
					c.Duration = duration
				}
				if f.Changed("seed") {
					c.Seed = seed
				}
				return c
			}
			cfgs := make([]engine.Config, 0, len(p.Steps)+1)
			stepCfgs := p.StepConfigs() // one pass: StepConfig(i) for each i is O(N^2)
			// Each distinct configuration is checked once, at its first
			// step: steps repeat a few configurations, and CheckMemory
			// builds a run's setup (5,000 steps of Pendulum TD3 took 11 s
			// before step 1 when each was checked).
			checked := make(map[engine.Config]bool)
			for i := -1; i < len(p.Steps); i++ {
				cfg := override(stepCfgs[i+1])
				if !checked[cfg] {
					if err := cfg.Validate(); err != nil {
						return usageError{stepError(p, i, err)}
					}
					if err := engine.CheckMemory(cfg); err != nil {
						return usageError{stepError(p, i, err)}
					}
					checked[cfg] = true
				}
				cfgs = append(cfgs, cfg)
			}
			if err := ensureHostPlatform(cmd.Context(), cfgs, cmd.ErrOrStderr()); err != nil {
				return err
			}
			if err := engine.CheckPlatforms(p, cfgs); err != nil {
				return usageError{err}
			}
			opt := batchOptions{out: out, asJSON: asJSON, progress: progressEvery, quick: quick}
			switch {
			case !batch:
				return explore(cmd.Context(), p, override, set.Presets, out)
			case p.Kind == engine.KindRun:
				return runBatch(cmd.Context(), override(p.Run), opt, cmd.OutOrStdout(), cmd.ErrOrStderr())
			default:
				return runSteps(cmd.Context(), p, override, opt, cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
		},
	}
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{err}
	})
	f := root.Flags()
	f.BoolVar(&batch, "batch", false, "run headless: no terminal UI; write results to --out")
	f.StringVar(&preset, "preset", "", "the `name` of the preset to run (rlx presets lists them)")
	f.StringVar(&config, "config", "", "a run configuration YAML file")
	f.StringSliceVar(&presetDirs, "presets", nil, "directories of your own presets (*.yaml), after your presets directory (rlx presets --help)")
	f.StringVar(&out, "out", "rlx-out", "--batch: directory for run.json, metrics.csv and the plots (a walkthrough or experiment: a directory per step, steps.json and README.md); the explorer: the directory its exports (e) go in, a new one per export")
	f.Int64Var(&steps, "steps", 0, "environment steps to run (overrides the preset; 0 for no limit)")
	f.DurationVar(&duration, "duration", 0, "host time to run (overrides the preset; 0 for no limit)")
	f.Uint64Var(&seed, "seed", 0, "random seed (overrides the preset)")
	f.StringArrayVar(&sets, "set", nil, "set a field of the run, `FIELD=VALUE` with FIELD its YAML name, e.g. batch=256, mapping=C-C-C, env=Pendulum-v1 (repeatable; overrides the preset)")
	f.StringVar(&devices, "devices", "", "the device platform the run is charged to: an embedded `name` (rlx presets lists them), one of yours in rlx/devices (host: rlx calibrate) or a YAML file (overrides the preset)")
	f.BoolVar(&asJSON, "json", false, "--batch: print the run summary as JSON (schema "+report.Schema+"; a walkthrough or experiment: "+StepsSchema+")")
	f.DurationVar(&progressEvery, "progress", 5*time.Second, "--batch: interval of progress lines when stderr is not a terminal (0 for none)")
	f.StringVar(&memLimit, "memory-limit", "", "the memory a run may use, e.g. 8GiB (default: half of the machine's); a run estimated above it is refused before it starts")
	f.BoolVar(&quick, "quick", false, "--batch experiments: cut the reports' own host measurements to seconds (for tests, not figures)")
	root.AddCommand(newBenchCmd(), newCalibrateCmd(), newCompareCmd(), newDSECmd(), newHWCmd(), newPresetsCmd(&presetDirs))
	strictHelpAndCompletion(root)
	return root
}

// strictHelpAndCompletion makes "rlx help NAME" and "rlx completion NAME"
// with a NAME they do not know a usage error, as every other command
// treats an unknown argument; cobra's own print help and exit 0.
func strictHelpAndCompletion(root *cobra.Command) {
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help gives the help of any command: rlx help dse, rlx help bench sumtree.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 || (len(args) > 0 && cmd == root) {
				return usagef("help %q: no such command; rlx help lists them", strings.Join(args, " "))
			}
			return cmd.Help()
		},
	})
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = usageArgs(cobra.NoArgs)
			c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
}

// setMemoryLimit applies --memory-limit: the limit runs are checked
// against before they start (engine.CheckMemory), and the Go runtime's
// soft limit, so that the collector works harder rather than let garbage
// carry a run that fits past it. An empty value keeps the default.
func setMemoryLimit(v string) error {
	var n int64 // the default
	if v != "" {
		var err error
		if n, err = units.ParseBytes(v); err != nil || n < 64<<20 {
			return fmt.Errorf("--memory-limit %q is not allowed: give a size of at least 64MiB, such as 8GiB", v)
		}
	}
	engine.SetMemoryLimit(n)
	if os.Getenv("GOMEMLIMIT") == "" {
		limit, _ := engine.MemoryLimit()
		debug.SetMemoryLimit(limit)
	}
	return nil
}

// stepError names the step of a walkthrough or experiment p that err is
// about; step -1 is the preset's run.
func stepError(p engine.Preset, step int, err error) error {
	if step < 0 || len(p.Steps) == 0 {
		return err
	}
	return fmt.Errorf("step %d of %s: %w", step+1, p.Name, err)
}

// setting is one --set FIELD=VALUE.
type setting struct{ name, value string }

// parseSets reads --set arguments. Each must be FIELD=VALUE with FIELD a
// configuration field and VALUE one it accepts (checkSetting).
func parseSets(args []string) ([]setting, error) {
	var out []setting
	for _, a := range args {
		name, value, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("--set %q: write FIELD=VALUE, FIELD one of %s", a, strings.Join(engine.FieldNames(), ", "))
		}
		name = strings.TrimSpace(name)
		if err := checkSetting(name, value); err != nil {
			return nil, fmt.Errorf("--set %s: %w", a, err)
		}
		out = append(out, setting{name, value})
	}
	return out, nil
}

// checkSetting reports why value is not one the field name accepts:
// engine.Config.Set's error, which names the field and what it accepts as
// a YAML file's and the explorer's form's do, or for the devices the
// platform's, which Set does not load. So --set devices=NAME and --devices
// NAME are refused alike, before anything runs.
func checkSetting(name, value string) error {
	var scratch engine.Config
	if err := scratch.Set(name, value); err != nil {
		return err
	}
	if name == "devices" {
		_, err := engine.LoadPlatform(scratch.Devices)
		return err
	}
	return nil
}
