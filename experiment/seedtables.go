package experiment

import (
	"fmt"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/rlxdev/rlx/presets"
)

// published holds the parts of the seed tables (presets.SeedTables) the
// reports print beside rlx's figures.
type published struct {
	Heterogeneous struct {
		Hyperparameters struct {
			PresampledD int `yaml:"presampled_batches_D"`
		} `yaml:"hyperparameters"`
		OptimalMapping []struct {
			Env     string `yaml:"env"`
			Batch   int    `yaml:"batch"`
			Mapping string `yaml:"mapping"`
		} `yaml:"optimal_mapping"`
		BaselineSpeedups []baselineSpeedup `yaml:"baseline_speedups"`
	} `yaml:"heterogeneous_mapping"`
	ParallelReplay struct {
		BestFanout []struct {
			Capacity int `yaml:"capacity"`
			K        int `yaml:"K"`
		} `yaml:"best_fanout_by_capacity"`
		LockBenchmark string `yaml:"lock_benchmark"`
	} `yaml:"parallel_replay"`
	PPOAccel struct {
		Networks map[string]struct {
			// Layers is a list of widths for an MLP and a description for
			// Pong's ConvNet.
			Layers any `yaml:"layers"`
		} `yaml:"networks"`
		IPS map[string]map[string]ipsGroup `yaml:"ips_table2"`
	} `yaml:"ppoaccel"`
	HEPPO struct {
		PE struct {
			ClockMHz          float64 `yaml:"clock_mhz"`
			ElementsPerSecond float64 `yaml:"elements_per_second"`
			Lookahead         int     `yaml:"lookahead_steps"`
		} `yaml:"pe"`
		Resources struct {
			LUT int `yaml:"lut"`
			FF  int `yaml:"ff"`
			DSP int `yaml:"dsp"`
		} `yaml:"resources_64pe_2step"`
		Memory struct {
			Trajectories     int `yaml:"trajectories"`
			Timesteps        int `yaml:"timesteps"`
			Bits             int `yaml:"bits"`
			BytesPerTimestep int `yaml:"bytes_per_timestep"`
			BRAM             int `yaml:"bram_blocks"`
		} `yaml:"memory"`
	} `yaml:"heppo"`
	SPO struct {
		ScalingExample string `yaml:"scaling_example"`
	} `yaml:"scalable_policy_optimization"`
}

// baselineSpeedup is one surviving cell pair of 000 Table V's "2nd best"
// and "worst" rows; a zero speedup is a cell lost in extraction.
type baselineSpeedup struct {
	Env          string  `yaml:"env"`
	Batch        int     `yaml:"batch"`
	SecondBest   string  `yaml:"second_best"`
	Speedup      float64 `yaml:"speedup"`
	Worst        string  `yaml:"worst"`
	WorstSpeedup float64 `yaml:"worst_speedup"`
}

// ipsGroup is one sweep of 003 Table 2: the parameter varied takes the
// values under its own key (M, N or T), the other three are fixed in the
// order the key names them (NTK: N, T, K). C, CG and CF are the published
// inferences per second of the CPU, CPU-GPU and CPU-FPGA implementations.
type ipsGroup struct {
	NTK []int     `yaml:"NTK"`
	TMK []int     `yaml:"TMK"`
	NMK []int     `yaml:"NMK"`
	M   []int     `yaml:"M"`
	N   []int     `yaml:"N"`
	T   []int     `yaml:"T"`
	C   []float64 `yaml:"C"`
	CG  []float64 `yaml:"CG"`
	CF  []float64 `yaml:"CF"`
}

var (
	seedOnce   sync.Once
	seedParsed *published
	seedErr    error
)

// seedTables parses the embedded seed tables once.
func seedTables() (*published, error) {
	seedOnce.Do(func() {
		var p published
		if err := yaml.Unmarshal(presets.SeedTables(), &p); err != nil {
			seedErr = fmt.Errorf("%s: %w", presets.SeedTablesFile, err)
			return
		}
		if n := len(p.Heterogeneous.OptimalMapping); n == 0 {
			seedErr = fmt.Errorf("%s: heterogeneous_mapping.optimal_mapping is empty: it must list 000 Table V", presets.SeedTablesFile)
			return
		}
		seedParsed = &p
	})
	return seedParsed, seedErr
}

// baseline returns the published Table V baselines of env at batch, if any
// survived extraction.
func (p *published) baseline(env string, batch int) (baselineSpeedup, bool) {
	for _, b := range p.Heterogeneous.BaselineSpeedups {
		if b.Env == env && b.Batch == batch {
			return b, true
		}
	}
	return baselineSpeedup{}, false
}
