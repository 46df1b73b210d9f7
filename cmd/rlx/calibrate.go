package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/rlxdev/rlx/calibrate"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/units"
	"github.com/rlxdev/rlx/presets"
)

// calibrateOptions are the flags of rlx calibrate.
type calibrateOptions struct {
	out    string
	quick  bool
	asJSON bool
}

func newCalibrateCmd() *cobra.Command {
	var opt calibrateOptions
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this machine's CPU, fit the CPU model to it, and save it as the host platform",
		Long: `calibrate times rlx's own kernels on this machine: training steps of
MLPs, ConvNets and the off-policy learners, actor inference, the sum tree's
sampling and update, replay insertion, GAE, environment steps, the ReLU and
tanh kernels, a hand-off between two threads, a dependent-load chase for the
cache latencies, a copy for the memory bandwidth and short GEMMs for the cost
of a micro-kernel call. It fits the CPU model's free parameters (the
sustained rate of one core, the cost of a framework op, the bandwidth of
cache-resident elementwise ops, the cost per element of a convolution's
im2col) to some training steps and prints how well the model then predicts
the others, which the fit did not see.

It writes a platform named host: this CPU plus the GPU, FPGA and PCIe link
of the default platform. By default it goes to your platforms directory, so
that --devices host finds it; --out writes it elsewhere. --quick measures
less and finishes within a minute. Measurements are host wall clock on a
possibly shared machine: each point is the median of rounds, with the
spread.`,
		Example: `  rlx calibrate --quick
  rlx calibrate --out h.yaml --json > calibration.json
  rlx --batch --preset cartpole-dqn-per --devices host --set mapping=C-C-C`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCalibrate(cmd.Context(), opt, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&opt.out, "out", "", "write the host platform YAML here (default: host.yaml in your platforms directory)")
	f.BoolVar(&opt.quick, "quick", false, "measure fewer points, shorter (within a minute)")
	f.BoolVar(&opt.asJSON, "json", false, "print the calibration as JSON (schema "+calibrate.Schema+") instead of tables")
	return cmd
}

func runCalibrate(ctx context.Context, opt calibrateOptions, out, stderr io.Writer) error {
	path := opt.out
	if path == "" {
		if path = engine.HostPlatformPath(); path == "" {
			return usagef("there is no user configuration directory to save the host platform in: give --out FILE")
		}
	}
	res, err := calibrateHost(ctx, opt.quick, path, stderr)
	if err != nil {
		return err
	}
	if opt.asJSON {
		return writeJSON(out, res)
	}
	printCalibration(out, res, path)
	return nil
}

// calibrateHost calibrates this machine, with a progress bar on stderr
// when it is a terminal and progress lines otherwise, and writes the host
// platform to path once it loads as any platform does.
func calibrateHost(ctx context.Context, quick bool, path string, stderr io.Writer) (*calibrate.Result, error) {
	base, err := presets.Device(engine.DefaultDevices)
	if err != nil {
		return nil, err
	}
	p := newProgress(stderr)
	res, err := calibrate.Run(ctx, calibrate.Options{Quick: quick, Progress: func(done, total int, what string) {
		if p.live {
			const width = 30
			bar := strings.Repeat("█", done*width/total) + strings.Repeat("░", width-done*width/total)
			p.line(fmt.Sprintf("calibrate %s %3d%% %s", bar, done*100/total, what))
		} else if done == total || done%25 == 0 {
			p.line(fmt.Sprintf("calibrate: %d of %d measurements", done, total))
		}
	}})
	p.end()
	if err != nil {
		return nil, err
	}
	yaml, err := res.PlatformYAML(base)
	if err != nil {
		return nil, err
	}
	// The file must load as any platform does before it is saved.
	if _, err := hw.ParsePlatform(path, yaml); err != nil {
		return nil, fmt.Errorf("calibrate: the platform written would not load: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, yaml, 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "calibrate: wrote %s (%s)\n", path, units.Seconds(res.Seconds))
	return res, nil
}

// ensureHostPlatform measures this machine with a quick calibration when
// one of cfgs runs on the host platform and you have none yet (a
// walkthrough such as is-the-model-right names it), so that the run does
// not stop at "run rlx calibrate". A host platform that resolves (yours,
// or a file named host here) is used as it is, and a host.yaml that exists
// is left alone even when it does not load: the run then says what is
// wrong with it. The directory is checked before the measuring starts.
func ensureHostPlatform(ctx context.Context, cfgs []engine.Config, stderr io.Writer) error {
	if !slices.ContainsFunc(cfgs, func(c engine.Config) bool { return c.Devices == engine.HostDevices }) {
		return nil
	}
	if _, _, err := engine.PlatformFile(engine.HostDevices); err == nil {
		return nil
	}
	path := engine.HostPlatformPath()
	if path == "" {
		return nil // the run reports the missing platform
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := checkWritable(filepath.Dir(path)); err != nil {
		return fmt.Errorf("devices: host: the host platform cannot be saved: %w", err)
	}
	fmt.Fprintln(stderr, "rlx: this run is charged to your calibrated host platform and there is none yet: measuring this machine first (rlx calibrate --quick)")
	if _, err := calibrateHost(ctx, true, path, stderr); err != nil {
		return fmt.Errorf("devices: host: calibrating this machine: %w", err)
	}
	return nil
}

// printCalibration writes the fit and the points, fitted, held out and
// uncalibrated, as tables.
func printCalibration(out io.Writer, r *calibrate.Result, path string) {
	h := r.Host
	fmt.Fprintf(out, "Calibration of %s (%d CPUs, %.2f GHz reported, L1 %g KB, L2 %g KB, LLC %g MB), %s kernel, %s, %s.\n",
		h.Model, h.Cores, h.ClockGHz, h.L1KB, h.L2KB, h.LLCMB, r.Kernel, r.Machine.GoVersion, r.When.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(out, "Latency: L1 %.1f ns, L2 %.1f ns, LLC %.1f ns, DRAM %.0f ns. Copy bandwidth %.1f GB/s (spread %.2f). Micro-kernel call %s (spread %.2f).\n",
		r.Latency.L1NS, r.Latency.L2NS, r.Latency.LLCNS, r.Latency.DRAMNS, r.Fit.MemBWGBs, r.CopyTiming.Spread, units.Seconds(r.TileCallTiming.Seconds), r.TileCallTiming.Spread)
	fmt.Fprintf(out, "Per element: ReLU %s, its derivative %s, tanh %s, its derivative %s. Thread hand-off %s (spread %.2f).\n",
		units.Seconds(r.Activations.ReLU.Seconds), units.Seconds(r.Activations.ReLUBackward.Seconds), units.Seconds(r.Activations.Tanh.Seconds), units.Seconds(r.Activations.TanhBackward.Seconds),
		units.Seconds(r.HandoffTiming.Seconds), r.HandoffTiming.Spread)
	if r.ClockGHz > 0 {
		fmt.Fprintf(out, "A busy core runs at %.2f GHz (spread %.2f); a %dx%[3]dx%[3]d GEMM sustains %.1f GFLOPS on it, %.2f of that clock's peak (the measured efficiency of docs/models.md).\n",
			r.ClockGHz, r.ClockTiming.Spread, calibrate.GEMMRateSize, r.GEMMGFLOPS, r.GEMMEfficiency)
	} else {
		fmt.Fprintf(out, "A %dx%[1]dx%[1]d GEMM sustains %.1f GFLOPS on one core (no clock probe on this architecture, so no efficiency).\n", calibrate.GEMMRateSize, r.GEMMGFLOPS)
	}
	fmt.Fprintf(out, "Fit: one core sustains %.1f GFLOPS on full tiles (%.2fx the reported clock's peak), %.3f µs per framework op, elementwise ops in L2 at %.0f GB/s, %.2f ns per im2col element; rms log error %.3f over %d training steps.\n\n",
		r.Fit.CoreGFLOPS, r.Efficiency, r.Fit.OpUS, r.Fit.ElementwiseGBs, r.Fit.Im2colNS, r.Fit.RMSLogError, len(r.Fitted))
	table := func(title string, pts []calibrate.Point) {
		fmt.Fprintln(out, title)
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "primitive\tshape\tmeasured\tspread\tpredicted\terror\t")
		for _, p := range pts {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%s\t%+.0f%%\t\n", p.Primitive, p.Shape, units.Seconds(p.MeasuredS), p.Spread, units.Seconds(p.PredictedS), 100*p.Error)
		}
		tw.Flush()
		fmt.Fprintln(out)
	}
	table("Fitted (the fit saw these):", r.Fitted)
	table("Held out (the fit did not see these):", r.Heldout)
	fmt.Fprintf(out, "Held out: median |error| %.0f%%, largest %.0f%%.\n\n", 100*r.HeldoutMedianAbsError, 100*r.HeldoutMaxAbsError)
	table("Not calibrated yet (the model of rlx's batched sum tree, insertion and vectorized GAE has no fitted parameter):", r.Uncalibrated)
	fmt.Fprintln(out, "Environment steps (the simulated actors are charged these, measured at run start):")
	for _, e := range r.EnvSteps {
		fmt.Fprintf(out, "  %-26s %s (spread %.2f)\n", e.Env, units.Seconds(e.Timing.Seconds), e.Timing.Spread)
	}
	fmt.Fprintf(out, "\nSaved as %s: use it with --devices %s.\n", path, devicesArg(path))
}

// devicesArg is what --devices takes for the platform saved at path.
func devicesArg(path string) string {
	if path == engine.HostPlatformPath() {
		return engine.HostDevices
	}
	return path
}
