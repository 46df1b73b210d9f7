package experiment

import (
	"fmt"
	"sync"

	"github.com/rlxdev/rlx/internal/papers"
	"github.com/rlxdev/rlx/presets"
)

// seedTables returns the embedded seed tables (presets.SeedTables), the
// published figures the reports print beside rlx's, parsed once.
var seedTables = sync.OnceValues(func() (*papers.Tables, error) {
	t, err := papers.Parse(presets.SeedTables())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", presets.SeedTablesFile, err)
	}
	if len(t.Heterogeneous.OptimalMapping) == 0 {
		return nil, fmt.Errorf("%s: heterogeneous_mapping.optimal_mapping is empty: it must list 000 Table V", presets.SeedTablesFile)
	}
	return t, nil
})
