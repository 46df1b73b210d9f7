package report

// The labels of a run's two simulated rates, the same in every summary,
// table and plot that shows them (rlx --batch, a walkthrough's README.md,
// the experiments' reports, throughput.svg): the average over the whole
// run (summary.sim), and the steady state over the last quarter of its
// simulated time (summary.sim_recent), which the prediction is for.
const (
	LabelWholeRun    = "whole run"
	LabelLastQuarter = "last quarter (steady state)"
)

// RatesNote says, for the prose under a table, what the columns
// labelled LabelWholeRun and LabelLastQuarter hold.
const RatesNote = "*" + LabelWholeRun + "* is the average over the whole run, its start included; *" + LabelLastQuarter +
	"* is the simulated rate over the last quarter of the run's simulated time, the warm rate the prediction is for."
