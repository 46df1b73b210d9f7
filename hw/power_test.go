package hw

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestWattsAt(t *testing.T) {
	s := PowerSpec{IdleW: 10, ActiveW: 250}
	tests := []struct {
		busy, want float64
	}{
		{0, 10},    // idle at utilization 0
		{1, 250},   // active at utilization 1
		{0.5, 130}, // linear between
		{0.25, 70},
	}
	for _, tt := range tests {
		if got := s.WattsAt(tt.busy); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("WattsAt(%g) = %g, want %g", tt.busy, got, tt.want)
		}
	}
}

// TestWattsMonotone checks that every preset device draws more the busier
// it is, from its idle to its active figure.
func TestWattsMonotone(t *testing.T) {
	p := mustParse(t, "table-iv")
	for _, k := range Kinds {
		s, ok := p.DevicePower(k)
		if !ok {
			t.Fatalf("table-iv gives no power for the %s", k)
		}
		prev := math.Inf(-1)
		for i := 0; i <= 100; i++ {
			w := s.WattsAt(float64(i) / 100)
			if w < prev {
				t.Fatalf("%s: %g W at busy %g is below %g W at the step before", k, w, float64(i)/100, prev)
			}
			prev = w
		}
		if s.WattsAt(0) != s.IdleW || s.WattsAt(1) != s.ActiveW {
			t.Errorf("%s: %g W idle, %g W busy; want %g and %g", k, s.WattsAt(0), s.WattsAt(1), s.IdleW, s.ActiveW)
		}
	}
}

func TestDevicePowerCPUAddsDIMMs(t *testing.T) {
	p := mustParse(t, "table-iv")
	s, _ := p.DevicePower(CPU)
	want := PowerSpec{p.CPU.Power.IdleW + p.CPU.MemoryPower.IdleW, p.CPU.Power.ActiveW + p.CPU.MemoryPower.ActiveW}
	if s != want || s.ActiveW <= p.CPU.Power.ActiveW {
		t.Errorf("CPU power %+v, want sockets + DIMMs %+v", s, want)
	}
}

func TestPlatformWatts(t *testing.T) {
	p := mustParse(t, "table-iv")
	cpu, _ := p.DevicePower(CPU)
	gpu, _ := p.DevicePower(GPU)
	fpga, _ := p.DevicePower(FPGA)
	all := [NumKinds]float64{1, 1, 1}
	tests := []struct {
		name string
		used [NumKinds]bool
		busy [NumKinds]float64
		want [NumKinds]float64
	}{
		{"all idle", [NumKinds]bool{true, true, true}, [NumKinds]float64{}, [NumKinds]float64{cpu.IdleW, gpu.IdleW, fpga.IdleW}},
		{"all busy", [NumKinds]bool{true, true, true}, all, [NumKinds]float64{cpu.ActiveW, gpu.ActiveW, fpga.ActiveW}},
		// An unused device adds nothing, however busy the caller says it is.
		{"unused accelerators", [NumKinds]bool{true, false, false}, all, [NumKinds]float64{cpu.ActiveW, 0, 0}},
		{"unused GPU", [NumKinds]bool{true, false, true}, [NumKinds]float64{1, 1, 0.5}, [NumKinds]float64{cpu.ActiveW, 0, fpga.WattsAt(0.5)}},
		{"nothing used", [NumKinds]bool{}, all, [NumKinds]float64{}},
		// The busy fraction of an unused device is not read.
		{"unused busy out of range", [NumKinds]bool{true, false, false}, [NumKinds]float64{0, 7, math.NaN()}, [NumKinds]float64{cpu.IdleW, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total, per, err := p.Watts(tt.used, tt.busy)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0.0
			for _, k := range Kinds {
				if math.Abs(per[k]-tt.want[k]) > 1e-9 {
					t.Errorf("%s: %g W, want %g", k, per[k], tt.want[k])
				}
				sum += tt.want[k]
			}
			if math.Abs(total-sum) > 1e-9 {
				t.Errorf("total %g W, want %g", total, sum)
			}
		})
	}
}

func TestPlatformWattsErrors(t *testing.T) {
	p := mustParse(t, "table-iv")
	noGPUPower := *p
	gpu := *p.GPU
	gpu.Power = nil
	noGPUPower.GPU = &gpu
	noFPGA := *p
	noFPGA.FPGA = nil
	used := [NumKinds]bool{true, true, true}
	tests := []struct {
		name string
		p    *Platform
		busy [NumKinds]float64
		want []string
	}{
		{"busy above 1", p, [NumKinds]float64{1, 1.5, 0}, []string{"GPU busy fraction = 1.5", "0..1"}},
		{"busy negative", p, [NumKinds]float64{-0.1, 0, 0}, []string{"CPU busy fraction = -0.1"}},
		{"busy NaN", p, [NumKinds]float64{0, 0, math.NaN()}, []string{"FPGA busy fraction = NaN"}},
		{"used device without power", &noGPUPower, [NumKinds]float64{}, []string{"no power figures for the GPU", "gpu.power"}},
		{"used device absent", &noFPGA, [NumKinds]float64{}, []string{"no power figures for the FPGA"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := tt.p.Watts(used, tt.busy)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// TestPresetsGivePower checks that every device file of presets/devices
// gives the power figures of every device it has.
func TestPresetsGivePower(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "presets", "devices", "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("device presets: %v, %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		p := mustParse(t, name)
		present := [NumKinds]bool{p.CPU != nil, p.GPU != nil, p.FPGA != nil}
		for _, k := range Kinds {
			if _, ok := p.DevicePower(k); present[k] && !ok {
				t.Errorf("%s: the %s has no power figures", f, k)
			}
		}
	}
}

// TestParsePowerRejects edits the power figures of the preset and checks
// that each bad one is named with its value and its file:line:col.
func TestParsePowerRejects(t *testing.T) {
	base := string(readPreset(t, "table-iv"))
	tests := []struct {
		name, old, new string
		// The error must give the line:col of the byte off bytes into the
		// first occurrence of at in the edited document, and want.
		at   string
		off  int
		want []string
	}{
		{"negative idle", "idle_w: 50 ", "idle_w: -50 ", "idle_w: -50", 8, []string{"cpu.power.idle_w = -50 is out of range"}},
		{"negative active", "active_w: 250 ", "active_w: -1 ", "active_w: -1", 10, []string{"gpu.power.active_w = -1 is out of range"}},
		{"NaN", "active_w: 225 ", "active_w: .nan ", "active_w: .nan", 10, []string{"fpga.power.active_w = NaN"}},
		{"active below idle", "active_w: 36 ", "active_w: 6 ", "active_w: 6 ", 10, []string{"cpu.memory_power.active_w = 6 is below idle_w = 12"}},
		// A figure left out is reported at its section: the YAML parser
		// places a mapping at the colon of its first key.
		{"missing idle", "    idle_w: 10               # nvidia-smi", "    # idle_w left out", "active_w: 250", 8, []string{"gpu.power.idle_w is missing"}},
		{"zero active", "active_w: 225 ", "active_w: 0 ", "idle_w: 17", 6, []string{"fpga.power.active_w is missing or 0"}},
		// A section left out, where the others are given, is reported at
		// its device.
		{"missing section", "  memory_power:", "  unused_power:", "model: Intel", 5, []string{"cpu.memory_power is missing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(base, tt.old) {
				t.Fatalf("preset lacks %q", tt.old)
			}
			doc := strings.Replace(base, tt.old, tt.new, 1)
			if tt.name == "missing section" {
				// Drop the renamed section so that the document decodes.
				doc = dropSection(doc, "  unused_power:")
			}
			_, err := ParsePlatform("table-iv.yaml", []byte(doc))
			if err == nil {
				t.Fatal("no error")
			}
			pos := "table-iv.yaml:" + lineCol(t, doc, tt.at, tt.off)
			for _, w := range append([]string{pos}, tt.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestParseWithoutPower checks that the power sections are optional as a
// whole: a platform that gives none parses.
func TestParseWithoutPower(t *testing.T) {
	var kept []string
	skip := false
	for _, line := range strings.Split(string(readPreset(t, "table-iv")), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "power:") || strings.HasPrefix(trimmed, "memory_power:") {
			skip = true
			continue
		}
		if skip && strings.HasPrefix(line, "    ") && (strings.HasPrefix(trimmed, "idle_w:") || strings.HasPrefix(trimmed, "active_w:")) {
			continue
		}
		skip = false
		kept = append(kept, line)
	}
	p, err := ParsePlatform("x", []byte(strings.Join(kept, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.DevicePower(GPU); ok || p.CPU.Power != nil {
		t.Error("power sections left in")
	}
}

// lineCol returns "line:col:", as ParsePlatform prints positions, of the
// byte off bytes into the first occurrence of s in doc.
func lineCol(t *testing.T, doc, s string, off int) string {
	t.Helper()
	i := strings.Index(doc, s)
	if i < 0 {
		t.Fatalf("document lacks %q", s)
	}
	i += off
	line := strings.Count(doc[:i], "\n") + 1
	col := i - strings.LastIndex(doc[:i], "\n")
	return fmt.Sprintf("%d:%d:", line, col)
}

// dropSection removes the line that starts with head and the more indented
// lines under it.
func dropSection(doc, head string) string {
	lines := strings.Split(doc, "\n")
	var out []string
	indent := len(head) - len(strings.TrimLeft(head, " "))
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], head) {
			out = append(out, lines[i])
			continue
		}
		for i+1 < len(lines) && len(lines[i+1])-len(strings.TrimLeft(lines[i+1], " ")) > indent {
			i++
		}
	}
	return strings.Join(out, "\n")
}

func mustParse(t *testing.T, name string) *Platform {
	t.Helper()
	p, err := ParsePlatform(name, readPreset(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func ExamplePlatform_Watts() {
	p := &Platform{
		Name: "example",
		CPU:  &CPUSpec{Power: &PowerSpec{IdleW: 50, ActiveW: 210}, MemoryPower: &PowerSpec{IdleW: 12, ActiveW: 36}},
		GPU:  &GPUSpec{Power: &PowerSpec{IdleW: 10, ActiveW: 250}},
		FPGA: &FPGASpec{Power: &PowerSpec{IdleW: 17, ActiveW: 225}},
	}
	// The CPU and the GPU are used, the GPU busy half of the time; the FPGA
	// is not counted.
	total, per, err := p.Watts([NumKinds]bool{CPU: true, GPU: true}, [NumKinds]float64{CPU: 1, GPU: 0.5})
	if err != nil {
		panic(err)
	}
	fmt.Printf("CPU %.0f W, GPU %.0f W, FPGA %.0f W, total %.0f W\n", per[CPU], per[GPU], per[FPGA], total)
	// Output: CPU 246 W, GPU 130 W, FPGA 0 W, total 376 W
}
