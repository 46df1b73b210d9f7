// Package layering holds no code: its test checks the import rules of the
// design on the module's real dependency graph, so that a stray import
// fails CI rather than a review. The rules are an allow-list, one entry per
// package (mayImport in the test): what it may import of the module. A new
// package fails the check until it is given its entry.
package layering
