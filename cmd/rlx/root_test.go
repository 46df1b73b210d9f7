package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/presets"
)

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     int
		inStdout string
		inStderr string
	}{
		{"help", []string{"help"}, exitOK, "Available Commands", ""},
		{"help lists the subcommands", []string{"--help"}, exitOK, "presets", ""},
		{"unknown flag is a usage error", []string{"--no-such-flag"}, exitUsage, "", "unknown flag"},
		{"unknown subcommand is a usage error", []string{"frobnicate"}, exitUsage, "", "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(context.Background(), tt.args, &stdout, &stderr)
			if got != tt.want {
				t.Fatalf("run(%q) = %d, want %d; stderr: %s", tt.args, got, tt.want, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.inStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.inStdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.inStderr, stderr.String())
			}
		})
	}
}

// runWithin runs rlx with args and fails the test if it has not returned
// after 60 s: a FIFO given as a file blocked rlx forever.
func runWithin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		c := run(context.Background(), args, &out, &errOut)
		done <- result{c, out.String(), errOut.String()}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(60 * time.Second):
		t.Fatalf("rlx %q still running after 60 s", args)
		return 0, "", ""
	}
}

// writeFile writes data to dir/name and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUserFileUsageErrors: files and names that rlx refused late, read
// without end or accepted silently are each one line and exit 2, before
// anything runs or any output directory is made.
func TestUserFileUsageErrors(t *testing.T) {
	testenv.UserConfig(t)
	dir := t.TempDir()
	big := writeFile(t, dir, "big.yaml", append([]byte("env: CartPole-v1\n# "), bytes.Repeat([]byte("x"), 2<<20)...))
	missingDevices := writeFile(t, dir, "md.yaml", []byte("env: CartPole-v1\ndevices: /nonexistent/dev.yaml\n"))
	twoDocs := writeFile(t, dir, "two.yaml", []byte("env: CartPole-v1\n---\nbatch: 77777\n"))
	presetsDir := t.TempDir()
	writeFile(t, presetsDir, "wmd.yaml", []byte(`name: wmd
kind: walkthrough
summary: missing devices in step 2
run:
  env: CartPole-v1
  steps: 300
steps:
  - title: one
    text: first
  - title: two
    text: second
    set:
      devices: /nonexistent/dev.yaml
`))
	out := filepath.Join(t.TempDir(), "out")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch", "--config", big, "--out", out}, big + " is 2097171 bytes (2.0 MiB), more than the 1048576 bytes (1 MiB) a YAML file may hold"},
		{[]string{"--batch", "--config", missingDevices, "--out", out}, missingDevices + `:2:10: devices "/nonexistent/dev.yaml" is not allowed`},
		{[]string{"--batch", "--config", twoDocs, "--out", out}, twoDocs + ":2:1: a second YAML document starts here"},
		{[]string{"--batch", "--devices", big, "--out", out}, "more than the 1048576 bytes (1 MiB)"},
		// A walkthrough whose step 2 names a missing platform: step 1
		// ran its whole budget first, and no steps.json was written.
		{[]string{"--batch", "--presets", presetsDir, "--preset", "wmd", "--out", out}, filepath.Join(presetsDir, "wmd.yaml") + `:13:16: step 2 (two): devices "/nonexistent/dev.yaml" is not allowed`},
		{[]string{"--batch", "--preset", "", "--out", out}, "--preset needs a name"},
		{[]string{"--batch", "--config", "", "--out", out}, "--config needs a file name"},
		{[]string{"presets", "--print", ""}, "--print needs a name: an embedded preset (cartpole-dqn-per,"},
		{[]string{"presets", "--presets", big}, "presets directory " + big + " is not a directory"},
		{[]string{"--batch", "--presets", big, "--out", out}, "presets directory " + big + " is not a directory"},
	} {
		code, _, stderr := runWithin(t, tt.args...)
		if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("rlx %q: exit %d, stderr %q\nwant exit 2 and one line containing %q", tt.args, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("rlx %q made the output directory", tt.args)
		}
	}
}

// TestBrokenHostPlatformRefusedFirst: a host platform saved broken is
// refused before the first step of a walkthrough on it runs.
func TestBrokenHostPlatformRefusedFirst(t *testing.T) {
	testenv.UserConfig(t)
	if err := os.MkdirAll(engine.UserDevicesDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, engine.UserDevicesDir(), "host.yaml", []byte("name: host\n"))
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runWithin(t, "--batch", "--preset", "is-the-model-right", "--steps", "100", "--out", out)
	if want := `devices "host" is not allowed: the platform does not load: ` + filepath.Join(engine.UserDevicesDir(), "host.yaml"); code != exitUsage || !strings.Contains(stderr, want) || strings.Contains(stderr, "step 1/") {
		t.Errorf("exit %d, stderr %q\nwant exit 2 before step 1 and %q", code, stderr, want)
	}
}

// TestBadUserPresetFiles: a file in the presets directory that is not a
// valid preset (a device platform kept beside the presets, a preset with
// escape sequences) is named in one warning line, the same on every run,
// and every other preset still runs. It made every command exit 2.
func TestBadUserPresetFiles(t *testing.T) {
	testenv.UserConfig(t)
	dir := engine.UserDir("presets")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	device, err := presets.Device("table-iv")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "my-devices.yaml", device)
	writeFile(t, dir, "evil.yaml", []byte("name: \"evil\\e]0;pwned\\aRED\"\nsummary: \"ok\\e[2J\"\n"))
	writeFile(t, dir, "mine.yaml", []byte("name: mine\nsummary: \"mine, \\u00e9t\\u00e9\"\nrun: {env: CartPole-v1, steps: 100}\n"))
	// Each file's first problem in the file, so the same on every run:
	// the decoder named an unknown field in Go's map order.
	wantWarnings := []string{
		"rlx: warning: presets file skipped: " + filepath.Join(dir, "evil.yaml") + `:1:7: name "evil\x1b]0;pwned\aRED" is not allowed`,
		"rlx: warning: presets file skipped: " + filepath.Join(dir, "my-devices.yaml") + `:5:1: unknown field "doc": use one of name, kind, summary, description, run, steps, report, mujoco` + "\n",
	}
	var first string
	for i := range 5 {
		code, stdout, stderr := runWithin(t, "presets")
		if code != exitOK || !strings.Contains(stdout, "cartpole-ppo") || !strings.Contains(stdout, "mine, été") {
			t.Fatalf("rlx presets: exit %d\n%s%s", code, stdout, stderr)
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\a") {
			t.Errorf("rlx presets printed a control character:\n%q", stdout+stderr)
		}
		lines := strings.SplitAfter(stderr, "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], wantWarnings[0]) || lines[1] != wantWarnings[1] {
			t.Fatalf("rlx presets: stderr\n%s\nwant one warning for each bad file:\n%s", stderr, strings.Join(wantWarnings, "\n"))
		}
		if i == 0 {
			first = stderr
		} else if stderr != first {
			t.Fatalf("run %d warned\n%s\nrun 1 warned\n%s", i+1, stderr, first)
		}
	}
	out := t.TempDir()
	code, _, stderr := runWithin(t, "--batch", "--preset", "mine", "--out", out)
	if code != exitOK || strings.Count(stderr, "presets file skipped") != 2 {
		t.Errorf("rlx --batch --preset mine: exit %d, stderr:\n%s", code, stderr)
	}
	if _, stdout, stderr := runWithin(t, "presets", "-v"); strings.ContainsAny(stdout+stderr, "\x1b\a") {
		t.Errorf("rlx presets -v printed a control character:\n%q", stdout+stderr)
	}
}

// TestVersion: rlx --version prints one line, rlx, the module version, the
// revision and the Go release, and exits 0. A test binary embeds no
// commit, as go run does not.
func TestVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--version"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	line, rest, _ := strings.Cut(stdout.String(), "\n")
	if rest != "" || !strings.HasPrefix(line, "rlx ") || !strings.HasSuffix(line, " "+runtime.Version()) ||
		!strings.Contains(line, " revision unknown ") {
		t.Errorf("rlx --version printed %q; want one line: rlx VERSION REVISION %s", stdout.String(), runtime.Version())
	}
}

func TestBuildRevision(t *testing.T) {
	const commit = "fde1c84a01b2c3d4e5f60718293a4b5c6d7e8f90"
	for _, tt := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, "revision unknown"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "false"}}, "fde1c84a01b2"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: commit}}, "fde1c84a01b2+modified"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "abc"},
	} {
		if got := buildRevision(tt.settings); got != tt.want {
			t.Errorf("buildRevision(%v) = %q, want %q", tt.settings, got, tt.want)
		}
	}
}

// TestBuildVersion: a module version names the commit already (a
// pseudo-version since Go 1.24, "+dirty" for a dirty tree), so the line
// names it once; only a "(devel)" build adds the revision.
func TestBuildVersion(t *testing.T) {
	const commit = "fde1c84a01b2c3d4e5f60718293a4b5c6d7e8f90"
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: commit}, {Key: "vcs.modified", Value: "true"}}
	for _, tt := range []struct {
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"v0.0.0-20260301120000-fde1c84a01b2+dirty", vcs, "v0.0.0-20260301120000-fde1c84a01b2+dirty"},
		{"v1.2.0", vcs, "v1.2.0"},
		{"(devel)", vcs, "(devel) fde1c84a01b2+modified"},
		{"", vcs, "(devel) fde1c84a01b2+modified"},
		{"(devel)", nil, "(devel) revision unknown"},
	} {
		if got := strings.Join(buildVersion(tt.main, tt.settings), " "); got != tt.want {
			t.Errorf("buildVersion(%q, %v) = %q, want %q", tt.main, tt.settings, got, tt.want)
		}
	}
}
