// Package papers is the schema of the seed tables, the facts and figures
// transcribed from the seed papers (presets/reference/seed-tables.yaml,
// which presets.SeedTables embeds): the published results that core/dse's
// claims and tests compare the models with and that the experiment
// reports print beside rlx's. Both read the YAML through Parse, so each
// field, its YAML key and the expansion of 003 Table 2 into configurations
// are declared once.
//
// It declares the parts rlx reads, not every key of the file. It imports
// nothing of the module (callers pass the bytes), so any layer may use it.
package papers
