package dse

import (
	"strings"
	"testing"

	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/presets"
)

// tableIV returns the embedded platform of 000 Table IV.
func tableIV(t testing.TB) *hw.Platform {
	t.Helper()
	return platform(t, presets.DefaultDevices)
}

func platform(t testing.TB, name string) *hw.Platform {
	t.Helper()
	data, err := presets.Device(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := hw.ParsePlatform(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// explore runs one Table V configuration.
func explore(t testing.TB, p *hw.Platform, env string, batch int) *Result {
	t.Helper()
	e, err := FindEnv(env)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ExploreConfig(p, Config{Env: e.Name, Algo: e.Algos[0], Batch: batch})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// divergence records a published result the model does not reproduce, and
// why. A check listed here that fails is logged, not failed; one that starts
// to hold fails, so the list stays true.
type divergence struct{ why string }

// verdict reports holds against the known divergences.
func verdict(t *testing.T, key string, holds bool, known map[string]divergence, got string) {
	t.Helper()
	d, listed := known[key]
	switch {
	case holds && listed:
		t.Errorf("%s now holds (%s): remove it from the known divergences", key, got)
	case !holds && listed:
		t.Logf("KNOWN DIVERGENCE %s: %s; %s", key, got, d.why)
	case !holds:
		t.Errorf("%s does not hold: %s", key, got)
	}
}

func readDevices() ([]byte, error) { return presets.Device(presets.DefaultDevices) }

func parse(data []byte) (*hw.Platform, error) { return hw.ParsePlatform(presets.DefaultDevices, data) }

// ppoNets returns 003 §5.1's networks as PPOAccelNetwork reads them from
// the seed tables.
func ppoNets(t testing.TB) map[string][]hw.Layer {
	t.Helper()
	nets := map[string][]hw.Layer{}
	tables := parseSeedTables(t)
	for _, name := range []string{"Hopper", "Humanoid", "Pong"} {
		cfg, err := PPOAccelNetwork(name, tables)
		if err != nil {
			t.Fatal(err)
		}
		nets[name] = cfg.Layers
	}
	return nets
}

// TestCheckPlatform: the one check of what the mapping exploration needs
// names each missing device; Explore and Claims refuse with it.
func TestCheckPlatform(t *testing.T) {
	if err := CheckPlatform(tableIV(t)); err != nil {
		t.Errorf("table-iv: %v", err)
	}
	noGPU := *tableIV(t)
	noGPU.GPU = nil
	heppo := platform(t, "heppo-zcu106")
	for _, tt := range []struct {
		p    *hw.Platform
		want string
	}{
		{&noGPU, `platform "table-iv" has no gpu: the mapping exploration (000 §VI) needs a cpu, a gpu, an fpga and a link`},
		{heppo, `platform "heppo-zcu106" has no cpu, gpu, link:`},
	} {
		err := CheckPlatform(tt.p)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("CheckPlatform(%s) = %v, want %q", tt.p.Name, err, tt.want)
		}
		w, werr := Workload(Environments[0], Environments[0].Algos[0], 256)
		if werr != nil {
			t.Fatal(werr)
		}
		if _, xerr := Explore(tt.p, &w); xerr == nil || xerr.Error() != err.Error() {
			t.Errorf("Explore on %s = %v, want %v", tt.p.Name, xerr, err)
		}
		if _, cerr := Claims(tt.p, presets.SeedTables()); cerr == nil || !strings.HasSuffix(cerr.Error(), err.Error()) {
			t.Errorf("Claims on %s = %v, want %v", tt.p.Name, cerr, err)
		}
	}
}
