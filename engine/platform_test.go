package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/core/agents"
	"github.com/rlxdev/rlx/core/dse"
	"github.com/rlxdev/rlx/core/nn"
	"github.com/rlxdev/rlx/hw"
	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/sim"
)

// hopperDDPG describes 000 Table III's Hopper DDPG learner (3-layer MLPs of
// 256) through real networks, as a run does.
func hopperDDPG(t *testing.T, batch int) hw.Workload {
	t.Helper()
	actor, err := nn.NewMLP([]int{11, 256, 256, 3}, nn.ReLU, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	critic, err := nn.NewMLP([]int{14, 256, 256, 1}, nn.ReLU, nn.Identity)
	if err != nil {
		t.Fatal(err)
	}
	w := hw.Workload{Name: "Hopper/DDPG", Batch: batch, Capacity: 1_000_000, Fanout: 2, Actors: 16,
		DataPointBytes: hw.TransitionBytes(11, 3)}
	hw.ActorCriticStep(agents.HWLayers(actor.Shape()), agents.HWLayers(critic.Shape()), false).Apply(&w)
	return w
}

func TestHWNetMatchesTheDSEsDescription(t *testing.T) {
	w := hopperDDPG(t, 256)
	env, err := dse.FindEnv("Hopper")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := dse.Workload(env, "DDPG", 256)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.TrainMACs(), ref.TrainMACs(); got != want {
		t.Errorf("training MACs per sample from nn shapes = %d, the DSE's Table III description gives %d", got, want)
	}
}

func TestPlace(t *testing.T) {
	p, err := LoadPlatform("")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := sim.Place(p, hopperDDPG(t, 16384))
	if err != nil {
		t.Fatal(err)
	}
	clock, err := sim.NewOffPolicy(pl)
	if err != nil {
		t.Fatal(err)
	}
	if err := remapOffPolicy(clock, AutoMapping); err != nil {
		t.Fatal(err)
	}
	// 000 Table V: Hopper at B = 16384 maps to G-F-G.
	if got := pl.Mapping.String(); got != "G-F-G" {
		t.Errorf("auto mapping = %s, want G-F-G", got)
	}
	v := placementView(pl, AutoMapping)
	if v.Chosen != "G-F-G" || v.PredictedGPS != pl.Eval.GPS || len(v.Table) != 3 || len(v.All) != 9 || v.All[0].GPS < v.All[8].GPS {
		t.Errorf("view %+v", v)
	}
	if err := remapOffPolicy(clock, MustMapping("C-C-C")); err != nil || pl.Mapping.String() != "C-C-C" || pl.Eval.GPS >= v.PredictedGPS {
		t.Errorf("manual C-C-C: %v, %s at %v GPS", err, pl.Mapping, pl.Eval.GPS)
	}
	if v := placementView(pl, MustMapping("C-C-C")); v.Note != "mapping set by hand" {
		t.Errorf("a mapping set by hand is noted %q", v.Note)
	}
	var fe *FieldError
	if _, err := ParseMapping("X-Y-Z"); !errors.As(err, &fe) || fe.Field != "mapping" {
		t.Errorf("ParseMapping(X-Y-Z) = %v", err)
	}
	if _, err := LoadPlatform("/nonexistent/devices.yaml"); err == nil || !strings.Contains(err.Error(), "table-iv") {
		t.Errorf("LoadPlatform(missing) = %v, want an error listing the embedded presets", err)
	}
}

// userDevices points the user configuration directory at a fresh
// directory and returns UserDevicesDir, created; it skips when this
// system's configuration directory does not follow the variables set.
func userDevices(t *testing.T) string {
	t.Helper()
	testenv.UserConfig(t)
	dir := UserDevicesDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// platformName is the name of the platform LoadPlatform returned, or its
// error, for failure messages.
func platformName(p *hw.Platform, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return p.Name
}

func TestUserPlatformHost(t *testing.T) {
	dir := userDevices(t)
	file := filepath.Join(dir, "host.yaml")
	testenv.PlatformCopy(t, file, "host")
	if got := platformName(LoadPlatform("host")); got != "host" {
		t.Errorf("--devices host loaded %s, want host", got)
	}
	// Errors and rlx dse --sensitivity name the file, not just "host".
	if name, _, err := PlatformFile("host"); err != nil || name != file {
		t.Errorf("PlatformFile(host) = %q, %v; want %q", name, err, file)
	}
}

func TestUserPlatformNames(t *testing.T) {
	dir := userDevices(t)
	if got := UserDeviceNames(); got != nil {
		t.Errorf("UserDeviceNames() of an empty directory = %q, want nil", got)
	}
	testenv.PlatformCopy(t, filepath.Join(dir, "lab.yaml"), "lab")
	testenv.PlatformCopy(t, filepath.Join(dir, "host.yaml"), "host")
	testenv.PlatformCopy(t, filepath.Join(dir, "notes.txt"), "notes")
	if err := os.Mkdir(filepath.Join(dir, "old.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(UserDeviceNames(), ","), "host,lab"; got != want {
		t.Errorf("UserDeviceNames() = %s, want %s (sorted, *.yaml files only)", got, want)
	}
	if got := platformName(LoadPlatform("lab")); got != "lab" {
		t.Errorf("--devices lab loaded %s, want lab", got)
	}
}

func TestUserPlatformHostMissing(t *testing.T) {
	dir := userDevices(t)
	_, err := LoadPlatform("host")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "devices" {
		t.Fatalf("--devices host without host.yaml = %v, want a devices FieldError", err)
	}
	want := `no calibrated "host" platform: run "rlx calibrate" to measure this machine (it writes ` +
		filepath.Join(dir, "host.yaml") + ")"
	if fe.Reason != want {
		t.Errorf("reason = %s\nwant     %s", fe.Reason, want)
	}
}

func TestUnknownPlatformListsEmbeddedAndUser(t *testing.T) {
	dir := userDevices(t)
	testenv.PlatformCopy(t, filepath.Join(dir, "lab.yaml"), "lab")
	testenv.PlatformCopy(t, filepath.Join(dir, "host.yaml"), "host")
	_, err := LoadPlatform("nope")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "devices" {
		t.Fatalf("--devices nope = %v, want a devices FieldError", err)
	}
	for _, want := range []string{"table-iv", "heppo-zcu106", "host, lab", dir} {
		if !strings.Contains(fe.Reason, want) {
			t.Errorf("reason %q does not name %q", fe.Reason, want)
		}
	}
}

func TestEmbeddedPlatformShadowsUserPlatform(t *testing.T) {
	dir := userDevices(t)
	testenv.PlatformCopy(t, filepath.Join(dir, "table-iv.yaml"), "mine")
	name, _, err := PlatformFile("table-iv")
	if err != nil || name != "table-iv" {
		t.Errorf("PlatformFile(table-iv) = %q, %v; want the embedded table-iv", name, err)
	}
	if got := platformName(LoadPlatform("table-iv")); got != "table-iv" {
		t.Errorf("--devices table-iv loaded %s; want the embedded table-iv, not %s", got, filepath.Join(dir, "table-iv.yaml"))
	}
}

func TestPlatformPathBesideUserPlatforms(t *testing.T) {
	dir := userDevices(t)
	testenv.PlatformCopy(t, filepath.Join(dir, "host.yaml"), "host")
	other := t.TempDir()
	for _, tc := range []struct{ file, name string }{
		{"host", "elsewhere-bare"},      // a separator in the path: a file, not your host
		{"host.yaml", "elsewhere-yaml"}, // likewise with a suffix
		{"sub.yml", "elsewhere-yml"},    // and with the short suffix
	} {
		path := filepath.Join(other, tc.file)
		testenv.PlatformCopy(t, path, tc.name)
		if got := platformName(LoadPlatform(path)); got != tc.name {
			t.Errorf("--devices %s loaded %s; want the file's platform %s", path, got, tc.name)
		}
	}
	// A ".yaml" value with no separator is a file in the working
	// directory, never UserDevicesDir/host.yaml.
	t.Chdir(other)
	if got := platformName(LoadPlatform("host.yaml")); got != "elsewhere-yaml" {
		t.Errorf("--devices host.yaml loaded %s; want the working directory's file, platform elsewhere-yaml", got)
	}
}

func TestUserPlatformParseErrorNamesFile(t *testing.T) {
	dir := userDevices(t)
	file := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(file, []byte("name: broken\ncpu: [1, 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPlatform("broken"); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("--devices broken = %v, want an error naming %s", err, file)
	}
}
