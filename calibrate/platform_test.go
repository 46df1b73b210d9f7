package calibrate

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// TestPlatformYAML: the file of a calibration loads as a platform named
// host, keeps the CPU it was given and the default platform's
// accelerators without their power, and gives every CPU value a source.
func TestPlatformYAML(t *testing.T) {
	host := hostCPUFromFS(fstest.MapFS{}, 2, nil)
	res := &Result{When: time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC), Host: host, Kernel: "avx2-fma", Rounds: 5,
		Latency: Latencies{L1NS: 1.4, L2NS: 4.8, LLCNS: 20, DRAMNS: 180}}
	base := res.baseCPU()
	res.CPU = CPUFit{CoreGFLOPS: 83, OpUS: 0.07, TileNS: 2, ElementwiseGBs: 33, MemBWGBs: 36}.Spec(base)
	defaults, err := presets.Device(presets.DefaultDevices)
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.PlatformYAML(defaults)
	if err != nil {
		t.Fatal(err)
	}
	p, err := hw.ParsePlatform("host.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if p.Name != presets.HostDevices || *p.CPU.GEMMKernel != *res.CPU.GEMMKernel || p.CPU.PeakGFLOPS != 166 || p.CPU.MemBWGBs != 36 {
		t.Errorf("cpu %+v, kernel %+v; want the calibrated one", p.CPU, p.CPU.GEMMKernel)
	}
	def, err := hw.ParsePlatform("default", defaults)
	if err != nil {
		t.Fatal(err)
	}
	if p.GPU.PeakGFLOPS != def.GPU.PeakGFLOPS || len(p.FPGA.SLRs) != len(def.FPGA.SLRs) || *p.Link != *def.Link {
		t.Errorf("the accelerators are not the default platform's: %+v %+v", p.GPU, p.Link)
	}
	if p.GPU.Power != nil || p.FPGA.Power != nil || strings.Contains(string(data), "power:") {
		t.Errorf("the host platform keeps accelerator power:\n%s", data)
	}
	consts, err := hw.Constants(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range consts {
		if strings.HasPrefix(c.Path, "cpu.") && c.Kind == hw.Unsourced {
			t.Errorf("%s has no source", c.Path)
		}
	}
	for _, want := range []string{"calibrated 2026-11-24", "measured 2026-11-24", "assumption: " + notReported} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the file does not say %q:\n%s", want, data)
		}
	}
}
