// Package tui is rlx's terminal explorer: a Bubble Tea v2 program that
// starts a live run of the engine and shows, while it trains, the K-ary
// sum-tree traversal, the pipeline occupancy of the simulated devices, the
// throughput on both clocks with the episode return, and the device mapping
// design-space exploration chose; a form edits the next run's
// configuration.
//
// The explorer renders engine snapshots and computes nothing of the model:
// every figure of the run comes from an engine.Snapshot (or its Config and
// the table of fields, engine.Fields), and every figure of a configuration
// not running from the engine's predictions: the mapping pane's preview
// of the form's platform (engine.Predictor) and its devices editor, a
// what-if on an edited platform (engine.PlatformDraft). It reads the run's
// latest snapshot on a bounded tick (15 Hz by default) while the run is
// live and not paused, and never ticks otherwise;
// must-deliver events (started, paused, mapping changed, finished, failed)
// arrive through a wait command re-armed after each event.
//
// Structure: one root tea.Model (Model) owns the run, the focus, the layout
// and five panes, each a plain struct with SetSize, a typed Update and
// View() string, sharing a context (size, Styles, KeyMap) by pointer. Panes
// cache what they render by snapshot sequence and size, so that View stays
// cheap (under 2 ms at 200x60 with a new snapshot; see BenchmarkView).
//
// Use Run from the rlx command; LiveRun and Starter are the small control
// surface it needs from the engine, so tests drive it with scripted runs.
//
// tui imports engine and the Charm UI libraries; it never imports core/* or
// hw, and engine never imports tui.
package tui
