package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/calibrate"
	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/presets"
)

// TestCalibrateQuick runs a quick calibration as a user would, without
// --out: the JSON carries the held-out points whose summary a reader can
// recompute, and the platform lands in the user's platforms directory,
// where --devices host finds it, with every CPU value sourced.
func TestCalibrateQuick(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("times real kernels for seconds")
	}
	testenv.UserConfig(t)
	out, err := execute(t, newCalibrateCmd(), "--quick", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var res calibrate.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var raw struct {
		Heldout []map[string]any `json:"heldout"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if res.Schema != calibrate.Schema || len(raw.Heldout) < 5 {
		t.Fatalf("schema %q, %d held-out points", res.Schema, len(raw.Heldout))
	}
	var errs []float64
	for _, p := range raw.Heldout {
		for _, key := range []string{"primitive", "shape", "predicted_s", "measured_s"} {
			if _, ok := p[key]; !ok {
				t.Errorf("held-out point %v has no %q", p, key)
			}
		}
		pred, meas := p["predicted_s"].(float64), p["measured_s"].(float64)
		if !(pred > 0 && meas > 0) {
			t.Errorf("held-out point %v: times must be positive", p)
		}
		errs = append(errs, math.Abs(pred/meas-1))
	}
	slices.Sort(errs)
	med := errs[len(errs)/2]
	if len(errs)%2 == 0 {
		med = (errs[len(errs)/2-1] + errs[len(errs)/2]) / 2
	}
	if math.Abs(med-res.HeldoutMedianAbsError) > 1e-9 || math.Abs(errs[len(errs)-1]-res.HeldoutMaxAbsError) > 1e-9 {
		t.Errorf("summary median %g max %g, recomputed %g %g", res.HeldoutMedianAbsError, res.HeldoutMaxAbsError, med, errs[len(errs)-1])
	}

	p, err := engine.LoadPlatform(engine.HostDevices)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != engine.HostDevices || p.CPU.GEMMKernel == nil || !p.CPU.FusedOptimizer || p.GPU == nil || p.FPGA == nil {
		t.Errorf("host platform: %+v", p)
	}
	// The file keeps 4 significant digits.
	if want, _ := strconv.ParseFloat(strconv.FormatFloat(res.Fit.CoreGFLOPS*float64(p.CPU.Cores), 'g', 4, 64), 64); p.CPU.PeakGFLOPS != want {
		t.Errorf("peak %g, fit %g x %d cores", p.CPU.PeakGFLOPS, res.Fit.CoreGFLOPS, p.CPU.Cores)
	}
	data, err := os.ReadFile(engine.HostPlatformPath())
	if err != nil {
		t.Fatal(err)
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
	if !strings.Contains(string(data), "calibrated "+res.When.Format("2006-01-02")) {
		t.Errorf("the file does not say when it was calibrated:\n%s", data)
	}
}

// TestEnsureHostPlatformLeavesWhatIsThere: no configuration on the host
// platform, a file named host here, or a host.yaml already there (even one
// that does not load), and nothing is measured or written.
func TestEnsureHostPlatformLeavesWhatIsThere(t *testing.T) {
	testenv.UserConfig(t)
	var stderr strings.Builder
	if err := ensureHostPlatform(context.Background(), []engine.Config{{Devices: "table-iv"}, {}}, &stderr); err != nil || stderr.Len() > 0 {
		t.Errorf("no host configuration: %v, %q", err, stderr.String())
	}
	if _, err := os.Stat(engine.HostPlatformPath()); err == nil {
		t.Error("host.yaml written for a run that does not use it")
	}
	// A platform file named host in the working directory is what
	// --devices host loads: nothing is measured.
	work := t.TempDir()
	t.Chdir(work)
	table, err := presets.Device(engine.DefaultDevices)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "host"), table, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureHostPlatform(context.Background(), []engine.Config{{Devices: engine.HostDevices}}, &stderr); err != nil || stderr.Len() > 0 {
		t.Errorf("a host file here: %v, %q", err, stderr.String())
	}
	if err := os.Remove(filepath.Join(work, "host")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(engine.UserDevicesDir(), "host.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not: [a platform"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ensureHostPlatform(context.Background(), []engine.Config{{Devices: engine.HostDevices}}, &stderr); err != nil || stderr.Len() > 0 {
		t.Errorf("existing host.yaml: %v, %q", err, stderr.String())
	}
	if data, _ := os.ReadFile(path); string(data) != "not: [a platform" {
		t.Errorf("existing host.yaml rewritten: %q", data)
	}
}
