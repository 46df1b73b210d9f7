package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/rlxdev/rlx/engine"
)

// Every message about a run carries the generation of the run it is about:
// a restart bumps the generation, and messages of older runs are ignored.
// The tick is the exception: it is the model's, not a run's.

// tickMsg asks the model to read the latest snapshot of whichever run is
// current when it arrives. The model keeps at most one tick in flight
// (Model.ticking); a tick scheduled before a restart reads the new run, so
// a restart neither drops the tick loop nor doubles it.
type tickMsg struct{}

// eventMsg is one must-deliver event of a run, or the end of its event
// stream (closed).
type eventMsg struct {
	gen    int
	events <-chan engine.Event
	ev     engine.Event
	closed bool
}

// startedMsg reports the outcome of starting a run.
type startedMsg struct {
	gen int
	cfg engine.Config
	run LiveRun
	err error
}

// tickCmd schedules the next snapshot read.
func tickCmd(every time.Duration) tea.Cmd {
	return tea.Tick(every, func(time.Time) tea.Msg { return tickMsg{} })
}

// waitEventCmd waits for the next event of a run. It is re-armed after each
// event until the channel closes, also for runs that were replaced, so that
// no run ever blocks on its event channel.
func waitEventCmd(gen int, events <-chan engine.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-events
		return eventMsg{gen: gen, events: events, ev: ev, closed: !ok}
	}
}

// startCmd stops old (if any), waits up to wait for it to end, then starts
// a run of cfg.
func startCmd(ctx context.Context, start Starter, gen int, old LiveRun, cfg engine.Config, wait time.Duration) tea.Cmd {
	return func() tea.Msg {
		if old != nil {
			old.Stop()
			select {
			case <-old.Done():
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		if err := ctx.Err(); err != nil {
			return startedMsg{gen: gen, cfg: cfg, err: err}
		}
		r, err := start(ctx, cfg)
		if err == nil && r == nil {
			err = errNilRun
		}
		return startedMsg{gen: gen, cfg: cfg, run: r, err: err}
	}
}
