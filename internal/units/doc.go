// Package units formats numbers for people: rates and sizes with three
// significant digits and an SI suffix, counts, times on the simulated and
// the host clock, percentages and speedups. The terminal UI, the batch
// mode's summaries and the experiments' markdown reports print their
// figures with it, so one figure reads the same wherever it appears; the
// plots' tick labels use its short form, SIShort.
//
// The JSON and CSV files keep full precision for machines and do not use
// it. It imports nothing of the module, so any layer may use it.
package units
