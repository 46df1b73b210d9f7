// Package report writes the results of a headless run (rlx --batch) into a
// directory: run.json (the configuration, the mapping, final and summary
// metrics; schema rlx.run/v2, documented in docs/batch.md), metrics.csv (a
// row per snapshot, thinned in a long run as Recorder says) and plots as
// PNG and SVG (throughput over time on both clocks with the exploration's
// prediction and the steady state, episode return over environment steps,
// device occupancy over the last window), in colour with SI tick labels.
//
// Every file is written to a temporary name and renamed into place, so a
// reader never sees a half-written file, also when the run is interrupted:
// an interrupted run writes what it measured so far, marked partial.
//
// report imports engine for the snapshot types and gonum/plot for the
// plots; it imports no terminal UI package.
package report
