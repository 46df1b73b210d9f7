package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/presets"
)

// TestPlatformAlgorithmRefusedFirst: a step whose platform loads but
// lacks a device the step's algorithm runs on is refused before step 1
// runs. engine.CheckPlatform only loaded the platform, so a walkthrough
// whose step 2 set devices: heppo-zcu106 (an FPGA alone) ran step 1's
// whole budget, then failed in the mapping exploration.
func TestPlatformAlgorithmRefusedFirst(t *testing.T) {
	testenv.UserConfig(t)
	table, err := presets.Device("table-iv")
	if err != nil {
		t.Fatal(err)
	}
	s := string(table)
	noFPGA := writeFile(t, t.TempDir(), "no-fpga.yaml", []byte(s[:strings.Index(s, "\nfpga:")]+s[strings.Index(s, "\nlink:"):]))
	dirs := map[string]string{}
	walk := func(name, run, set string) {
		dirs[name] = t.TempDir()
		writeFile(t, dirs[name], name+".yaml", []byte("name: "+name+"\nkind: walkthrough\nsummary: s\nrun: "+run+
			"\nsteps:\n  - title: one\n    text: first\n  - title: two\n    text: second\n    set: "+set+"\n"))
	}
	walk("heppo-step2", "{env: CartPole-v1, steps: 300}", "{devices: heppo-zcu106}")
	// The platform is the same in both steps: the algorithm changes.
	walk("algo-step2", "{env: CartPole-v1, algo: ppo, steps: 300, devices: "+noFPGA+"}", "{algo: dqn}")
	out := filepath.Join(t.TempDir(), "out")
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"--batch", "--presets", dirs["heppo-step2"], "--preset", "heppo-step2", "--out", out},
			[]string{filepath.Join(dirs["heppo-step2"], "heppo-step2.yaml") + ":10:20: step 2 (two): devices \"heppo-zcu106\" is not allowed",
				`platform "heppo-zcu106" has no cpu, gpu, link`, "needs a cpu, a gpu, an fpga and a link"}},
		{[]string{"--batch", "--presets", dirs["algo-step2"], "--preset", "algo-step2", "--out", out},
			[]string{filepath.Join(dirs["algo-step2"], "algo-step2.yaml") + ":10:17: step 2 (two): devices \"" + noFPGA + "\" is not allowed", "a dqn run is placed by the mapping exploration", "has no fpga"}},
		// The command line's changes are checked too (checkPlatforms).
		{[]string{"--batch", "--preset", "cartpole-dqn-per", "--set", "devices=heppo-zcu106", "--steps", "300", "--out", out},
			[]string{`devices "heppo-zcu106" is not allowed`, "has no cpu, gpu, link"}},
	} {
		code, _, stderr := runWithin(t, tt.args...)
		if code != exitUsage || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "step 1/") {
			t.Errorf("rlx %q: exit %d, stderr %q\nwant exit 2 before step 1, one line", tt.args, code, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("rlx %q: stderr %q lacks %q", tt.args, stderr, w)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("rlx %q made the output directory", tt.args)
		}
	}
}
