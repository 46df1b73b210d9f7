package dse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rlxdev/rlx/presets"
)

// seedTablesPath is the repository's copy of the seed tables, embedded in
// package presets; sharedPath the original beside the repository.
const (
	seedTablesPath = "../../" + presets.SeedTablesFile
	sharedPath     = "../../../shared/reference/seed-tables.yaml"
)

// seedTables is the part of seed-tables.yaml the tests read.
type seedTables struct {
	Heterogeneous struct {
		OptimalMapping []struct {
			Env     string `yaml:"env"`
			Batch   int    `yaml:"batch"`
			Mapping string `yaml:"mapping"`
		} `yaml:"optimal_mapping"`
		BaselineSpeedups []struct {
			Env          string  `yaml:"env"`
			Batch        int     `yaml:"batch"`
			SecondBest   string  `yaml:"second_best"`
			Speedup      float64 `yaml:"speedup"`
			Worst        string  `yaml:"worst"`
			WorstSpeedup float64 `yaml:"worst_speedup"`
		} `yaml:"baseline_speedups"`
		Claims           []string `yaml:"claims"`
		FPGAArchitecture struct {
			Learner struct {
				DP int `yaml:"DP"`
			} `yaml:"learner"`
			Resources map[string]struct {
				SRAMMB float64 `yaml:"sram_mb"`
				Reg    int     `yaml:"reg"`
				LUT    int     `yaml:"lut"`
				DSP    int     `yaml:"dsp"`
			} `yaml:"resources"`
		} `yaml:"fpga_architecture"`
	} `yaml:"heterogeneous_mapping"`
	PPOAccel struct {
		Claims []string `yaml:"claims"`
	} `yaml:"ppoaccel"`
}

func loadSeedTables(t testing.TB) seedTables {
	t.Helper()
	var s seedTables
	if err := yaml.Unmarshal(presets.SeedTables(), &s); err != nil {
		t.Fatalf("%s: %v", presets.SeedTablesFile, err)
	}
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
