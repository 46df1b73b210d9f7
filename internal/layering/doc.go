// Package layering holds no code: its test checks the import rules of the
// design (cmd -> tui -> engine -> core, hw; core/dse -> hw) on the module's
// real dependency graph, so that a stray import fails CI rather than a
// review.
package layering
