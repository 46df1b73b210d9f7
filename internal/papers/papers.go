package papers

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// Tables is the part of the seed tables rlx reads.
type Tables struct {
	// Heterogeneous is 000 (and thesis 001, chapter 4).
	Heterogeneous struct {
		Hyperparameters struct {
			PresampledD int `yaml:"presampled_batches_D"`
		} `yaml:"hyperparameters"`
		// OptimalMapping is Table V: the mapping (Learner-RMM-Storage,
		// e.g. G-C-G) of each configuration.
		OptimalMapping []struct {
			Env     string `yaml:"env"`
			Batch   int    `yaml:"batch"`
			Mapping string `yaml:"mapping"`
		} `yaml:"optimal_mapping"`
		BaselineSpeedups []BaselineSpeedup `yaml:"baseline_speedups"`
		// FPGAArchitecture is Table VI.
		FPGAArchitecture struct {
			Learner struct {
				DP int `yaml:"DP"`
			} `yaml:"learner"`
			// S is the RMM's bank parallelism, [low, high].
			S []int `yaml:"rmm_bank_parallelism_S"`
			// Resources has a row per component: rmm_S32, dqn_learner,
			// ddpg_learner.
			Resources map[string]struct {
				SRAMMB float64 `yaml:"sram_mb"`
				Reg    int     `yaml:"reg"`
				LUT    int     `yaml:"lut"`
				DSP    int     `yaml:"dsp"`
			} `yaml:"resources"`
		} `yaml:"fpga_architecture"`
		// PowerWatts is Table VII: the watts and the GPS per watt of the
		// chosen mapping (Ours) and of RLlib's, at each environment's
		// largest batch.
		PowerWatts []struct {
			Env    string  `yaml:"env"`
			OursW  float64 `yaml:"ours_w"`
			OursE  float64 `yaml:"ours_gps_per_w"`
			RLlibW float64 `yaml:"rllib_w"`
			RLlibE float64 `yaml:"rllib_gps_per_w"`
		} `yaml:"power_watts"`
	} `yaml:"heterogeneous_mapping"`
	// ParallelReplay is 002.
	ParallelReplay struct {
		BestFanout []struct {
			Capacity int `yaml:"capacity"`
			K        int `yaml:"K"`
		} `yaml:"best_fanout_by_capacity"`
	} `yaml:"parallel_replay"`
	// PPOAccel is 003.
	PPOAccel struct {
		// Networks are the networks of 003 §5.1 by name (Hopper,
		// Humanoid, Pong).
		Networks map[string]Network `yaml:"networks"`
		Systolic struct {
			// PSys is the systolic array's side by family (mujoco, atari).
			PSys map[string]int `yaml:"P_sys"`
		} `yaml:"systolic"`
		// Resources is Table 1.
		Resources struct {
			// BRAM is, by network, a map of minibatch ("M64") to blocks
			// for an MLP benchmark, one figure for Pong (BRAMRange).
			BRAM map[string]any `yaml:"bram"`
			// DSP is by family (mujoco, pong).
			DSP map[string]int `yaml:"dsp"`
		} `yaml:"resources_table1"`
		// IPS is Table 2, by benchmark group ("hopper_spinningup") and
		// sweep ("vary_M"); IPSRows expands it.
		IPS map[string]map[string]IPSSweep `yaml:"ips_table2"`
	} `yaml:"ppoaccel"`
	// HEPPO is 004.
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
	// SPO is thesis 001, chapter 5.
	SPO struct {
		ScalingExample string `yaml:"scaling_example"`
	} `yaml:"scalable_policy_optimization"`
}

// BaselineSpeedup is one surviving cell pair of 000 Table V's "2nd best"
// and "worst" rows: the speedup of the optimal mapping over each; a zero
// speedup is a cell lost in extraction.
type BaselineSpeedup struct {
	Env          string  `yaml:"env"`
	Batch        int     `yaml:"batch"`
	SecondBest   string  `yaml:"second_best"`
	Speedup      float64 `yaml:"speedup"`
	Worst        string  `yaml:"worst"`
	WorstSpeedup float64 `yaml:"worst_speedup"`
}

// Network is a network of 003 §5.1. Layers is a list of widths for an
// MLP and a description for Pong's ConvNet.
type Network struct {
	Layers any `yaml:"layers"`
}

// IPSSweep is one sweep of 003 Table 2: the parameter varied takes the
// values under its own key (M, N or T), the other three are fixed in the
// order the key names them (NTK: N, T, K). C, CG and CF are the published
// inferences per second of the CPU, CPU-GPU and CPU-FPGA implementations.
type IPSSweep struct {
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

// IPSRow is one configuration of 003 Table 2 with its published figures.
type IPSRow struct {
	// Network is the benchmark group's network: "Hopper" for
	// hopper_spinningup.
	Network string
	// Vary names the varied parameter: "M", "N" or "T".
	Vary       string
	N, T, M, K int
	C, CG, CF  float64
}

// Parse decodes the seed tables' YAML.
func Parse(data []byte) (*Tables, error) {
	var t Tables
	if err := yaml.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// Baseline returns 000 Table V's published baselines of env at batch, if
// any survived extraction.
func (t *Tables) Baseline(env string, batch int) (BaselineSpeedup, bool) {
	for _, b := range t.Heterogeneous.BaselineSpeedups {
		if b.Env == env && b.Batch == batch {
			return b, true
		}
	}
	return BaselineSpeedup{}, false
}

// IPSRows expands ips_table2 into configurations, in group, sweep and
// value order (groups and sweeps sorted by key: nothing depends on map
// order). It fails when the table is empty or a sweep is malformed.
func (t *Tables) IPSRows() ([]IPSRow, error) {
	if len(t.PPOAccel.IPS) == 0 {
		return nil, fmt.Errorf("ppoaccel.ips_table2 is empty: it must hold 003 Table 2")
	}
	var rows []IPSRow
	for _, group := range slices.Sorted(maps.Keys(t.PPOAccel.IPS)) {
		sweeps := t.PPOAccel.IPS[group]
		for _, vary := range slices.Sorted(maps.Keys(sweeps)) {
			r, err := sweeps[vary].rows(groupNetwork(group), vary)
			if err != nil {
				return nil, fmt.Errorf("ppoaccel.ips_table2.%s.%s: %w", group, vary, err)
			}
			rows = append(rows, r...)
		}
	}
	return rows, nil
}

// rows expands one sweep, named vary ("vary_M"), of network's group.
func (g IPSSweep) rows(network, vary string) ([]IPSRow, error) {
	var fixed, values []int
	var set func(r *IPSRow, v int)
	switch vary {
	case "vary_M":
		fixed, values = g.NTK, g.M
		set = func(r *IPSRow, v int) { r.N, r.T, r.K, r.M = fixed[0], fixed[1], fixed[2], v }
	case "vary_N":
		fixed, values = g.TMK, g.N
		set = func(r *IPSRow, v int) { r.T, r.M, r.K, r.N = fixed[0], fixed[1], fixed[2], v }
	case "vary_T":
		fixed, values = g.NMK, g.T
		set = func(r *IPSRow, v int) { r.N, r.M, r.K, r.T = fixed[0], fixed[1], fixed[2], v }
	default:
		return nil, fmt.Errorf("sweep %q is not known: use vary_M, vary_N or vary_T", vary)
	}
	if len(fixed) != 3 {
		return nil, fmt.Errorf("%d fixed parameters, want 3", len(fixed))
	}
	if len(values) == 0 || len(g.CF) != len(values) || len(g.C) != len(values) || len(g.CG) != len(values) {
		return nil, fmt.Errorf("%d values with %d CF, %d C, %d CG figures: want one of each per value", len(values), len(g.CF), len(g.C), len(g.CG))
	}
	rows := make([]IPSRow, len(values))
	for i, v := range values {
		rows[i] = IPSRow{Network: network, Vary: strings.TrimPrefix(vary, "vary_"), C: g.C[i], CG: g.CG[i], CF: g.CF[i]}
		set(&rows[i], v)
	}
	return rows, nil
}

// Value returns the varied parameter's value.
func (r IPSRow) Value() int {
	switch r.Vary {
	case "M":
		return r.M
	case "N":
		return r.N
	}
	return r.T
}

// groupNetwork maps a benchmark group of ips_table2 ("hopper_spinningup")
// to its network ("Hopper").
func groupNetwork(group string) string {
	name, _, _ := strings.Cut(group, "_")
	if name == "" {
		return group
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// Widths returns an MLP's layer widths; false when Layers is not a list of
// positive whole numbers (Pong's ConvNet is a description).
func (n Network) Widths() ([]int, bool) {
	list, ok := n.Layers.([]any)
	if !ok {
		return nil, false
	}
	out := make([]int, len(list))
	for i, x := range list {
		v, ok := number(x)
		if !ok || v < 1 || v != math.Trunc(v) {
			return nil, false
		}
		out[i] = int(v)
	}
	return out, true
}

// BRAMRange returns the lowest and the highest of net's BRAM figures in
// 003 Table 1: one figure, or the ends of the minibatch sweep.
func (t *Tables) BRAMRange(net string) (lo, hi float64, err error) {
	v, ok := t.PPOAccel.Resources.BRAM[net]
	if !ok {
		return 0, 0, fmt.Errorf("ppoaccel.resources_table1.bram has no %s", net)
	}
	if n, ok := number(v); ok {
		return n, n, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return 0, 0, fmt.Errorf("ppoaccel.resources_table1.bram.%s: %v is neither a figure nor a map of figures", net, v)
	}
	lo = math.Inf(1)
	for _, x := range m {
		n, ok := number(x)
		if !ok {
			return 0, 0, fmt.Errorf("ppoaccel.resources_table1.bram.%s: %v is not a figure", net, x)
		}
		lo, hi = min(lo, n), max(hi, n)
	}
	return lo, hi, nil
}

// number converts a decoded YAML number.
func number(x any) (float64, bool) {
	switch n := x.(type) {
	case uint64:
		return float64(n), true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
