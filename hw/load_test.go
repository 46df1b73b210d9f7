package hw

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func readPreset(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "presets", "devices", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParsePresets(t *testing.T) {
	for _, name := range []string{"table-iv", "heppo-zcu106"} {
		if _, err := ParsePlatform(name, readPreset(t, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	p, _ := ParsePlatform("table-iv", readPreset(t, "table-iv"))
	if p.CPU.Cores != 56 || p.GPU.PeakGFLOPS != 12150 || len(p.FPGA.SLRs) != 3 || p.Link.GBs != 16 {
		t.Errorf("Table IV preset: cores %d, GPU %g GFLOPS, %d SLRs, PCIe %g GB/s", p.CPU.Cores, p.GPU.PeakGFLOPS, len(p.FPGA.SLRs), p.Link.GBs)
	}
	// The derived reading: 28 cores x 2.2 GHz x 32 FLOP/cycle x 0.83, one
	// thread per core; the literal one is what the models run on.
	d, ok := p.CPU.Derived()
	if want := 28 * 2.2 * 32 * 0.83; !ok || d.Cores != 28 || d.TrainThreads != 16 || d.RMMThreads != 1 || d.PeakGFLOPS < want*(1-1e-12) || d.PeakGFLOPS > want*(1+1e-12) {
		t.Errorf("derived CPU: ok %v, %d cores, %d+%d threads, %g GFLOPS; want 28 cores, 16+1 threads, %g GFLOPS", ok, d.Cores, d.TrainThreads, d.RMMThreads, d.PeakGFLOPS, want)
	}
	if p.CPU.PeakGFLOPS != 40 || p.CPU.Cores != 56 {
		t.Errorf("Derived changed the spec it was called on: %g GFLOPS, %d cores", p.CPU.PeakGFLOPS, p.CPU.Cores)
	}
	if _, ok := (CPUSpec{}).Derived(); ok {
		t.Error("a CPU without derived_rate has a derived reading")
	}
}

// TestParseRejects edits the preset and checks that each bad value is
// named with its field, value, accepted range and position.
func TestParseRejects(t *testing.T) {
	base := string(readPreset(t, "table-iv"))
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"cores out of range", "cores: 56 ", "cores: 0 ", []string{"cpu.cores = 0", "1..4096", "table-iv.yaml:9:"}},
		{"negative clock", "clock_mhz: 300 ", "clock_mhz: -300 ", []string{"fpga.clock_mhz = -300", "1..2000"}},
		{"NaN bandwidth", "gbs: 16 ", "gbs: .nan ", []string{"link.gbs = NaN"}},
		{"SLR DSP", "{dsp: 2280, lut: 394080", "{dsp: -1, lut: 394080", []string{"fpga.slrs[0].dsp = -1"}},
		{"unknown field", "clock_ghz: 2.2 ", "clock_gigahertz: 2.2 ", []string{"clock_gigahertz", "unknown"}},
		{"not a number", "sms: 30 ", "sms: thirty ", []string{"sms"}},
		{"threads beyond cores", "train_threads: 16 ", "train_threads: 100 ", []string{"cpu.train_threads = 100", "1..56"}},
		{"empty tiles", "gemm_tiles: [32, 64, 128]", "gemm_tiles: []", []string{"gpu.gemm_tiles is empty"}},
		{"efficiency above 1", "gemm_efficiency: 0.83 ", "gemm_efficiency: 1.5 ", []string{"cpu.derived_rate.gemm_efficiency = 1.5", "0.01..1", "table-iv.yaml:15:22"}},
		{"more cores than threads", "physical_cores: 28 ", "physical_cores: 57 ", []string{"cpu.derived_rate.physical_cores = 57", "1..56"}},
		// The FPGA's DDR and the per-stage and per-PE costs must be
		// positive: at 0 the times are infinite or the designs free.
		{"FPGA without bandwidth", "mem_bw_gbs: 77 ", "mem_bw_gbs: 0 ", []string{"table-iv.yaml:60:15: fpga.mem_bw_gbs = 0", "0.1..100000"}},
		{"FPGA without memory", "memory_gb: 64 ", "memory_gb: 0 ", []string{"table-iv.yaml:61:14: fpga.memory_gb = 0", "0.01..100000"}},
		{"free RMM logic", "rmm_lut_per_stage: 141 ", "rmm_lut_per_stage: 0 ", []string{"fpga.rmm_lut_per_stage = 0", "1..1000000"}},
		{"free RMM registers", "rmm_ff_per_stage: 205 ", "rmm_ff_per_stage: 0 ", []string{"fpga.rmm_ff_per_stage = 0", "1..1000000"}},
		{"free GAE logic", "gae_pe_lut: 201 ", "gae_pe_lut: 0 ", []string{"fpga.gae_pe_lut = 0", "1..1000000"}},
		{"free GAE registers", "gae_pe_ff: 849 ", "gae_pe_ff: 0 ", []string{"fpga.gae_pe_ff = 0", "1..1000000"}},
		{"NaN FPGA bandwidth", "mem_bw_gbs: 77 ", "mem_bw_gbs: .nan ", []string{"fpga.mem_bw_gbs = NaN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := parseEdited(t, base, tt.old, tt.new)
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestParseZeroResources: an SLR may lack a resource, and an RMM stage
// or a GAE PE may use no DSP; the exploration then places nothing there
// that needs it (dse.ExploreFPGA).
func TestParseZeroResources(t *testing.T) {
	y := strings.ReplaceAll(string(readPreset(t, "table-iv")), "dsp: 2280, lut: 394080, ff: 788160, bram: 720, sram_mb: 11.67",
		"dsp: 0, lut: 0, ff: 0, bram: 0, sram_mb: 0")
	y = strings.Replace(y, "rmm_dsp_per_stage: 1 ", "rmm_dsp_per_stage: 0 ", 1)
	y = strings.Replace(y, "gae_pe_dsp: 12 ", "gae_pe_dsp: 0 ", 1)
	p, err := ParsePlatform("z.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if total := p.FPGA.Total(); total != (Resources{}) || p.FPGA.RMMDSPPerStage != 0 || p.FPGA.GAEPEDSP != 0 {
		t.Errorf("total %+v, RMM DSP/stage %d, GAE DSP/PE %d; want all 0", total, p.FPGA.RMMDSPPerStage, p.FPGA.GAEPEDSP)
	}
}

// TestParseErrorFormat: every error reads file:line:col: on one line and
// names the field by its YAML path, never the decoder's Go struct field
// (which for cpu.cores was "Platform.CPU").
func TestParseErrorFormat(t *testing.T) {
	base := string(readPreset(t, "table-iv"))
	line := regexp.MustCompile(`^table-iv\.yaml:\d+:\d+: \S`)
	for _, tt := range []struct {
		name, old, new string
		want           []string
	}{
		{"a string for an integer", "cores: 56 ", "cores: lots ", []string{"table-iv.yaml:9:10: cpu.cores: this field takes an integer, not a string (\"lots\")"}},
		{"a list for an integer", "sms: 30 ", "sms: [30] ", []string{"table-iv.yaml:41:8: gpu.sms: this field takes an integer, not a list"}},
		{"a fraction for an integer", "cores: 56 ", "cores: 56.5 ", []string{"table-iv.yaml:9:10: cpu.cores: 56.5 is not a whole number"}},
		{"a nested list entry", "{dsp: 2280, lut: 394080", "{dsp: x, lut: 394080", []string{"table-iv.yaml:63:13: fpga.slrs[0].dsp: this field takes an integer"}},
		{"an unknown field", "clock_ghz: 2.2 ", "clock_gigahertz: 2.2 ", []string{"table-iv.yaml:10:3: cpu.clock_gigahertz: unknown field"}},
		// A required field left out is placed at the mapping that lacks it.
		{"a missing model", "  model: Intel Xeon Gold 5120 (2 sockets, 56 threads)\n", "", []string{"table-iv.yaml:7:1: cpu.model is empty"}},
		{"an empty model", "model: Intel Xeon Gold 5120 (2 sockets, 56 threads)", `model: ""`, []string{"table-iv.yaml:8:10: cpu.model is empty"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := parseEdited(t, base, tt.old, tt.new)
			msg := err.Error()
			for _, l := range strings.Split(msg, "\n") {
				if !line.MatchString(l) {
					t.Errorf("line %q is not file:line:col: message", l)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%v", w, msg)
				}
			}
			if strings.Contains(msg, "Go struct") || strings.Contains(msg, "Platform.") {
				t.Errorf("error names a Go field: %v", msg)
			}
		})
	}
}

func TestParseMissingLink(t *testing.T) {
	y := strings.Split(string(readPreset(t, "table-iv")), "\nlink:")[0]
	_, err := ParsePlatform("x", []byte(y))
	if err == nil || !strings.Contains(err.Error(), "link is missing") {
		t.Fatalf("want a missing-link error, got %v", err)
	}
}

// FuzzParsePlatform feeds arbitrary bytes: errors are fine, panics are not.
func FuzzParsePlatform(f *testing.F) {
	f.Add(readPreset(f, "table-iv"))
	f.Add([]byte("name: x\nfpga: {slrs: []}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlatform("fuzz", data)
		if err == nil && p == nil {
			t.Fatal("nil platform without error")
		}
	})
}

func mustRead(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return data
}

// parseEdited parses the platform base with its first old replaced by
// new, and returns the error, failing the test if there is none.
func parseEdited(t *testing.T, base, old, new string) error {
	t.Helper()
	if !strings.Contains(base, old) {
		t.Fatalf("preset lacks %q", old)
	}
	_, err := ParsePlatform("table-iv.yaml", []byte(strings.Replace(base, old, new, 1)))
	if err == nil {
		t.Fatal("no error")
	}
	return err
}

// A byte order mark, which some editors write, changes no position or
// message: the decoder skips it, and so must the lookups of positions.
func TestParseErrorAfterByteOrderMark(t *testing.T) {
	base := "\ufeff" + strings.Replace(string(readPreset(t, "table-iv")), "cores: 56 ", "cores: lots ", 1)
	_, err := ParsePlatform("table-iv.yaml", []byte(base))
	if err == nil || !strings.HasPrefix(err.Error(), `table-iv.yaml:9:10: cpu.cores: this field takes an integer, not a string ("lots")`) {
		t.Errorf("error %v", err)
	}
	base = "\ufeff" + strings.Replace(string(readPreset(t, "table-iv")), "cores: 56 ", "cores: 0 ", 1)
	if _, err = ParsePlatform("table-iv.yaml", []byte(base)); err == nil || !strings.HasPrefix(err.Error(), "table-iv.yaml:9:10: cpu.cores = 0") {
		t.Errorf("error %v", err)
	}
}
