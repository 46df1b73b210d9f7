package hw

import (
	"os"
	"path/filepath"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.old) {
				t.Fatalf("preset lacks %q", tt.old)
			}
			_, err := ParsePlatform("table-iv.yaml", []byte(strings.Replace(base, tt.old, tt.new, 1)))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
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
