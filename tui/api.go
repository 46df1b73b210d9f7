package tui

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/rlxdev/rlx/engine"
)

// LiveRun is the control surface of one live run that the explorer needs.
// *engine.Run satisfies it; tests use a scripted run that publishes
// hand-built snapshots.
//
// The explorer calls Pause, Resume and SetMapping from its update loop, so
// they must return promptly (they only signal the run). Stop may block until
// the run has begun to stop; the explorer calls it from a command.
type LiveRun interface {
	// Latest returns the newest snapshot; never nil, cheap (an atomic load).
	Latest() *engine.Snapshot
	// Events delivers must-deliver events in order and is closed after the
	// last one (Finished, Stopped or Failed).
	Events() <-chan engine.Event
	Pause()
	Resume()
	Stop()
	// SetMapping switches the device mapping (auto or e.g. G-F-G) from
	// the next gradient step on.
	SetMapping(mapping engine.Mapping)
	// Done is closed when the run has ended and released its goroutines.
	Done() <-chan struct{}
}

// Exporter is implemented by a LiveRun that can write its results as the
// batch mode writes them (run.json, metrics.csv and the plots). The
// explorer calls Export from a command, never from its update loop, when
// the user asks for it (e); it may take a second to draw the plots.
// It returns the directory it wrote and the names of the files in it.
type Exporter interface {
	Export() (dir string, files []string, err error)
}

// Starter starts a run of cfg. The explorer calls it at start-up and on
// every restart (r, or applying the config form), always from a command,
// never from its update loop. ctx is cancelled when the explorer quits.
//
// The engine plugs in as
//
//	func(ctx context.Context, cfg engine.Config) (tui.LiveRun, error) {
//		r, err := engine.Start(ctx, cfg)
//		if err != nil {
//			return nil, err // not a typed nil *engine.Run
//		}
//		return r, nil
//	}
type Starter func(ctx context.Context, cfg engine.Config) (LiveRun, error)

// Option configures Run and New.
type Option func(*options)

type options struct {
	input    io.Reader
	output   io.Writer
	redrawHz int
	stopWait time.Duration
	preset   *engine.Preset
	override func(engine.Config) engine.Config
	presets  []engine.Preset
}

// WithInput reads the terminal input from r instead of os.Stdin.
func WithInput(r io.Reader) Option { return func(o *options) { o.input = r } }

// WithOutput draws on w instead of os.Stdout.
func WithOutput(w io.Writer) Option { return func(o *options) { o.output = w } }

// WithRedrawRate sets how often the explorer reads the latest snapshot while
// a run is live, in Hz, clamped to 1..30 (default DefaultRedrawHz). Nothing
// ticks while the run is paused or over.
func WithRedrawRate(hz int) Option { return func(o *options) { o.redrawHz = hz } }

// WithPreset names the preset the explorer runs. For a walkthrough or an
// experiment it turns on walkthrough mode: a narrative pane tells each
// step (what to look at and why, what to look for), the panes the step is
// about are marked, and n and p move between the steps, switching the live
// run's mapping or restarting it with the step's configuration. Run and New
// then expect override(p.StepConfig(0)) as their configuration.
//
// override changes each step's configuration before it runs (the rlx
// command applies its budget and seed flags); nil leaves it as is. A
// preset of kind run changes nothing.
func WithPreset(p engine.Preset, override func(engine.Config) engine.Config) Option {
	return func(o *options) { o.preset, o.override = &p, override }
}

// WithPresets gives the presets the picker (/) offers: runs, walkthroughs
// and experiments, each started without leaving the explorer. The rlx
// command passes the embedded presets and the user's; without this option
// the picker lists none.
func WithPresets(ps []engine.Preset) Option {
	return func(o *options) { o.presets = slices.Clone(ps) }
}

func newOptions(opts []Option) options {
	o := options{redrawHz: DefaultRedrawHz, stopWait: 3 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	o.redrawHz = min(max(o.redrawHz, 1), 30)
	return o
}

// minRendererFPS is the lowest frame rate of Bubble Tea's renderer.
const minRendererFPS = 20

// DefaultRedrawHz is the default snapshot read rate while a run is live.
const DefaultRedrawHz = 15

// MinWidth and MinHeight are the smallest terminal the explorer draws in;
// below it, it says which size it needs.
const (
	MinWidth  = 80
	MinHeight = 24
)

// ErrNotTerminal says that the explorer needs an interactive terminal on
// both standard input and standard output.
var ErrNotTerminal = errors.New("the explorer needs an interactive terminal (stdin and stdout); use --batch for a headless run")

// Interactive reports whether in and out are both terminals, so that the
// explorer can run. The rlx command checks it before calling Run and, when
// false, says so (ErrNotTerminal) and exits with status 2.
func Interactive(in, out *os.File) bool {
	return in != nil && out != nil && term.IsTerminal(in.Fd()) && term.IsTerminal(out.Fd())
}

// Run opens the explorer full screen and starts a run of cfg through start
// at once. It returns when the user quits (q or ctrl+c: nil) or ctx is
// cancelled (ctx.Err()). Before returning it stops the live run and waits
// briefly for it to release its goroutines.
//
// An invalid cfg does not fail Run: the explorer opens with the problem
// shown in the config form, where it can be fixed.
func Run(ctx context.Context, start Starter, cfg engine.Config, opts ...Option) error {
	o := newOptions(opts)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	m := New(runCtx, start, cfg, opts...)
	// Bubble Tea's renderer wakes at its frame rate even when nothing
	// changed: that is all the CPU a paused explorer uses. Matching it to
	// the redraw rate (at least minRendererFPS, so keys answer within 50
	// ms) costs a third of the default 60 Hz's wake-ups.
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(max(o.redrawHz, minRendererFPS))}
	if o.input != nil {
		popts = append(popts, tea.WithInput(o.input))
	}
	if o.output != nil {
		popts = append(popts, tea.WithOutput(o.output))
	}
	_, err := tea.NewProgram(m, popts...).Run()

	// The model is a pointer: m is the final model, holding the live run.
	m.stopAndWait(o.stopWait)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil && !errors.Is(err, tea.ErrInterrupted) {
		return err
	}
	return nil
}
