package presets

import (
	_ "embed"
	"slices"
)

//go:embed reference/seed-tables.yaml
var seedTables []byte

// SeedTablesFile is where the seed tables sit in the repository, for
// messages and tests that read the file itself.
const SeedTablesFile = "presets/reference/seed-tables.yaml"

// SeedTables returns the facts and figures transcribed from the seed papers
// (presets/reference/seed-tables.yaml): the published tables that the
// experiment reports and the model tests compare rlx with. It returns a
// copy; callers may modify it.
func SeedTables() []byte { return slices.Clone(seedTables) }
