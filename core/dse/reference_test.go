package dse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rlxdev/rlx/internal/papers"
	"github.com/rlxdev/rlx/presets"
)

// seedTablesPath is the repository's copy of the seed tables, embedded in
// package presets; sharedPath the original beside the repository.
const (
	seedTablesPath = "../../" + presets.SeedTablesFile
	sharedPath     = "../../../shared/reference/seed-tables.yaml"
)

// parseSeedTables returns the embedded seed tables.
func parseSeedTables(t testing.TB) *papers.Tables {
	t.Helper()
	s, err := papers.Parse(presets.SeedTables())
	if err != nil {
		t.Fatalf("%s: %v", presets.SeedTablesFile, err)
	}
	return s
}

// loadSeedTables returns the embedded seed tables, which must list the 11
// columns of 000 Table V.
func loadSeedTables(t testing.TB) *papers.Tables {
	t.Helper()
	s := parseSeedTables(t)
	if len(s.Heterogeneous.OptimalMapping) != 11 {
		t.Fatalf("%s has %d Table V mappings, want 11", presets.SeedTablesFile, len(s.Heterogeneous.OptimalMapping))
	}
	return s
}

// TestSeedTablesCopyMatchesShared keeps presets/reference/seed-tables.yaml
// identical to the shared original, both the file and what package presets
// embeds of it. CI (CI set in the environment) runs beside the shared
// folder, so there a missing original fails; elsewhere, a clone on its own,
// the test skips.
func TestSeedTablesCopyMatchesShared(t *testing.T) {
	shared, err := os.ReadFile(sharedPath)
	if os.IsNotExist(err) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not present: CI runs beside the shared folder, and this test compares the repository's seed tables with it", filepath.Clean(sharedPath))
		}
		t.Skipf("%s not present (a clone without the shared folder beside it): nothing to compare", filepath.Clean(sharedPath))
	}
	if err != nil {
		t.Fatal(err)
	}
	local, err := os.ReadFile(seedTablesPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, local) {
		t.Fatalf("%s differs from %s: copy the shared file over the repository's", seedTablesPath, sharedPath)
	}
	if !bytes.Equal(presets.SeedTables(), local) {
		t.Fatalf("presets.SeedTables() differs from %s: rebuild", seedTablesPath)
	}
}
