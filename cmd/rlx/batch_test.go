package main

import (
	"github.com/rlxdev/rlx/core/env"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rlxdev/rlx/engine"
	"github.com/rlxdev/rlx/internal/testenv"
	"github.com/rlxdev/rlx/report"
)

// TestMain lets the test binary act as rlx when re-executed by a test, so
// that a test can send it real signals.
func TestMain(m *testing.M) {
	switch os.Getenv("RLX_TEST_AS_MAIN") {
	case "1":
		main()
		return
	case "stuck":
		// A run whose stopping never ends, for TestSecondSignal.
		ctx, _ := interruptContext()
		fmt.Fprintln(os.Stderr, "running")
		<-ctx.Done()
		fmt.Fprintln(os.Stderr, "stopping")
		select {}
	}
	os.Exit(m.Run())
}

func readRun(t *testing.T, dir string) report.Run {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run report.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatalf("run.json does not parse: %v", err)
	}
	for _, f := range run.Files {
		if info, err := os.Stat(filepath.Join(dir, f)); err != nil || info.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	return run
}

func TestBatchRun(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "cartpole-ppo", "--steps", "10000", "--out", dir, "--json"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var printed report.Run
	if err := json.Unmarshal(stdout.Bytes(), &printed); err != nil {
		t.Fatalf("stdout is not the JSON summary: %v\n%s", err, stdout.String())
	}
	run := readRun(t, dir)
	if run.Schema != report.Schema || run.Partial || run.State != "finished" || run.Final.EnvSteps < 10000 || printed.Final != run.Final {
		t.Errorf("run.json %+v", run)
	}
}

func TestBatchSummaryText(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "cartpole-dqn-per", "--steps", "6000", "--out", dir}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"CartPole-v1 dqn: finished, 6000 env steps",
		"mapping F-F-F (requested auto), predicted",
		// The whole run's averages, then the steady state, each named.
		"throughput, whole run: host ",
		"throughput, last quarter (steady state): simulated ",
		// One actor feeds the FPGA learner: the actor's core sets the pace.
		"busiest simulated unit at the end: CPU actors (",
		"wrote " + dir + ": metrics.csv",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("escape sequences on a non-terminal stdout:\n%q", out)
	}
}

// TestBatchInterrupted cancels a run mid-way, as SIGINT does through
// main's context: the files are whole, marked partial, and the exit status
// says so.
func TestBatchInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"--batch", "--preset", "cartpole-ppo", "--duration", "1m", "--out", dir}, &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "interrupted: the results in "+dir+" are partial") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	run := readRun(t, dir)
	if !run.Partial || run.State != "stopped" || run.Final.EnvSteps == 0 {
		t.Errorf("run.json after an interrupt: %+v", run)
	}
}

// TestBatchSIGINT sends a real SIGINT to a headless rlx process.
func TestBatchSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "--batch", "--preset", "cartpole-ppo", "--duration", "1m", "--out", dir, "--progress", "100ms")
	cmd.Env = append(os.Environ(), "RLX_TEST_AS_MAIN=1")
	var stderr lockedBuffer // exec copies into it while the test reads it
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for progress, then interrupt.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "steps") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitFailure {
		t.Fatalf("exit %v, want status %d; stderr:\n%s", err, exitFailure, stderr.String())
	}
	if !strings.Contains(stderr.String(), "partial") {
		t.Errorf("stderr does not say the results are partial:\n%s", stderr.String())
	}
	if run := readRun(t, dir); !run.Partial {
		t.Errorf("run.json not marked partial: %+v", run)
	}
}

// TestSecondSignal: the first Ctrl-C asks rlx to stop and keep its
// results; when stopping takes too long, a second one ends it at once.
func TestSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "RLX_TEST_AS_MAIN=stuck")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor := func(text string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(stderr.String(), text) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("no %q on stderr: %q", text, stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("running")
	cmd.Process.Signal(syscall.SIGINT)
	waitFor("stopping")
	// The handler is removed right after the first signal is delivered;
	// give that goroutine a moment before the second.
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != -1 { // -1: ended by a signal
			t.Errorf("exit %v, want the process ended by the second SIGINT", err)
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("the second SIGINT did not end the process")
	}
}

func TestBatchErrors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	runJSONDir := t.TempDir()
	os.Mkdir(filepath.Join(runJSONDir, "run.json"), 0o755)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("env: CartPole-v1\nfanout: 1\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--batch", "--preset", "nope"}, `preset "nope" is not known: use one of`},
		{[]string{"--batch", "--config", bad}, bad + ":2:9: fanout 1 is not allowed"},
		{[]string{"--batch", "--preset", "cartpole-ppo", "--out", filepath.Join(file, "sub")}, "cannot be created"},
		{[]string{"--batch", "--preset", "cartpole-ppo", "--config", bad}, "give one"},
		{[]string{"--batch", "--steps", "-5"}, "--steps -5 is not allowed"},
		{[]string{"--batch", "--progress", "-1s"}, "--progress -1s is not allowed: it must be >= 0"},
		{[]string{"--batch", "--steps", "100", "--out", ""}, "the output directory is empty: give one with --out"},
		{[]string{"--batch", "--steps", "100", "--out", runJSONDir}, "run.json is not a regular file: a run writes its run.json there"},
		// A run above the memory limit is refused before it starts.
		{[]string{"--batch", "--memory-limit", "64MiB", "--set", "capacity=2097152"}, "replay buffer 188.7 MiB (capacity); that is more than the memory limit of 64.0 MiB (--memory-limit)"},
		{[]string{"--batch", "--memory-limit", "lots"}, `--memory-limit "lots" is not allowed: give a size of at least 64MiB`},
		// --set gives a bad value the message a file gives it.
		{[]string{"--batch", "--set", "fanout=1"}, "--set fanout=1: fanout 1 is not allowed: sum-tree fanout K must be 2..1024"},
		{[]string{"--batch", "--set", "batch=70000"}, "batch 70000 is not allowed: learner batch size B must be 1..65536"},
		{[]string{"--batch", "--set", "batchh=4"}, `"batchh" is not a setting: use one of env, algo`},
		{[]string{"--batch", "--set", "batch"}, "write FIELD=VALUE"},
		{[]string{"--batch", "--set", "env=Pendulum-v1"}, "Pendulum-v1 has continuous actions"},
		{[]string{"--batch", "--devices", "nope"}, `devices "nope" is not allowed: name a device YAML file or one of`},
		// A platform that does not load is refused from --set as from
		// --devices, before the explorer (here: no terminal) is tried.
		{[]string{"--set", "devices=nope"}, `--set devices=nope: devices "nope" is not allowed: name a device YAML file or one of`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, &stdout, &stderr)
		lines := strings.Count(strings.TrimSpace(stderr.String()), "\n") + 1
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || lines != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line containing %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

func TestNotATerminal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "use --batch") {
		t.Errorf("rlx without a terminal: exit %d, stderr %q", code, stderr.String())
	}
}

func TestPresetsCommand(t *testing.T) {
	testenv.UserConfig(t)
	if err := os.MkdirAll(engine.UserDevicesDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(engine.HostPlatformPath(), []byte("name: host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"presets"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"cartpole-dqn-per  run", "where-rmm  walkthrough", "table5  experiment"} {
		if !strings.Contains(strings.Join(strings.Fields(stdout.String()), "  "), want) {
			t.Errorf("presets lacks %q:\n%s", want, stdout.String())
		}
	}
	// heppo-zcu106 is an FPGA alone: it cannot take a run or rlx dse,
	// so it is not listed as one that can.
	if !strings.Contains(stdout.String(), "device platforms: table-iv (devices: NAME in a run") ||
		!strings.Contains(stdout.String(), "single-device platforms, for the experiments that size one device: heppo-zcu106") {
		t.Errorf("presets lacks the device platforms:\n%s", stdout.String())
	}
	if !strings.Contains(stdout.String(), "your platforms: host (in "+engine.UserDevicesDir()+")") {
		t.Errorf("presets lacks your platforms:\n%s", stdout.String())
	}
	// --print writes an embedded file, which parses as what it is.
	stdout.Reset()
	if code := run(context.Background(), []string{"presets", "--print", "where-rmm"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("--print where-rmm: exit %d: %s", code, stderr.String())
	}
	if p, err := engine.ParsePreset("printed", stdout.Bytes()); err != nil || p.Name != "where-rmm" {
		t.Errorf("--print where-rmm: %v", err)
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"presets", "--print", "table-iv"}, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "Alveo U200") {
		t.Errorf("--print table-iv: exit %d:\n%s", code, stdout.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"presets", "--print", "nope"}, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "neither an embedded preset") {
		t.Errorf("--print nope: exit %d: %s", code, stderr.String())
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestUserPresetsDir reads presets from rlx/presets under the user
// configuration directory, and --presets replaces one of the same name.
func TestUserPresetsDir(t *testing.T) {
	testenv.UserConfig(t)
	mine := userPresetsDir()
	if err := os.MkdirAll(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(dir, summary string) {
		yaml := "name: my-acrobot\nsummary: " + summary + "\nrun: {env: Acrobot-v1, algo: ppo, steps: 1000}\n"
		if err := os.WriteFile(filepath.Join(dir, "acrobot.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(mine, "from the config dir")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"presets"}, &stdout, &stderr); code != exitOK || !strings.Contains(stdout.String(), "from the config dir") {
		t.Fatalf("exit %d: the config dir's preset is not listed:\n%s%s", code, stdout.String(), stderr.String())
	}
	flagDir := t.TempDir()
	write(flagDir, "from --presets")
	stdout.Reset()
	if code := run(context.Background(), []string{"presets", "--presets", flagDir}, &stdout, &stderr); code != exitOK ||
		!strings.Contains(stdout.String(), "from --presets") || strings.Contains(stdout.String(), "from the config dir") {
		t.Errorf("exit %d: --presets does not replace the config dir's preset:\n%s%s", code, stdout.String(), stderr.String())
	}
}

// TestBatchSet: --set and --devices change the preset's run, as run.json
// records.
func TestBatchSet(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"--batch", "--set", "env=Pendulum-v1", "--set", "algo=td3", "--set", "batch=64",
		"--set", "mapping=C-C-C", "--devices", "table-iv", "--steps", "600", "--out", dir}
	if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	c := readRun(t, dir).Config
	if c.Env != "Pendulum-v1" || c.Algo != engine.TD3 || c.Batch != 64 || c.Mapping.String() != "C-C-C" || c.Devices != "table-iv" {
		t.Errorf("run.json config: env %s, algo %s, batch %d, mapping %s, devices %q", c.Env, c.Algo, c.Batch, c.Mapping, c.Devices)
	}
}

// --progress 0 turns the progress lines off where stderr is not a
// terminal (it printed one at every tick).
func TestBatchProgressOff(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "cartpole-ppo", "--steps", "150000", "--progress", "0", "--out", t.TempDir()}, &stdout, &stderr)
	if code != exitOK || stderr.Len() != 0 {
		t.Errorf("exit %d, stderr %q; want exit 0 and nothing on stderr", code, stderr.String())
	}
}

// help and completion refuse a name they do not know, as every other
// command does (cobra's own printed help and exited 0).
func TestUnknownHelpTopics(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"help", "nope"}, exitUsage},
		{[]string{"help", "bench", "nope"}, exitUsage},
		{[]string{"completion", "nope"}, exitUsage},
		{[]string{"help", "bench", "sumtree"}, exitOK},
		{[]string{"completion", "bash"}, exitOK},
	} {
		var stdout, stderr bytes.Buffer
		if got := run(context.Background(), c.args, &stdout, &stderr); got != c.want {
			t.Errorf("rlx %v: exit %d, want %d; stderr %q", c.args, got, c.want, stderr.String())
		}
	}
}

// An error quoting the user's input never passes a control sequence to
// the terminal (an OSC title, a screen clear).
func TestErrorsEscapeControlCharacters(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--config", "evil\x1b]0;owned\x07\x1b[2J.yaml"}, &stdout, &stderr)
	if code != exitUsage || strings.ContainsAny(stderr.String(), "\x1b\x07") || !strings.Contains(stderr.String(), `evil\x1b]0;owned\x07\x1b[2J`) {
		t.Errorf("exit %d, stderr %q: want exit 2 and the escapes written out", code, stderr.String())
	}
}

// A run into a directory that holds an earlier experiment's steps.json
// says so: the run's files do not replace it.
func TestBatchNamesAStaleStepsFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "steps.json"), []byte("{}\n"), 0o644)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--batch", "--preset", "cartpole-ppo", "--steps", "1000", "--progress", "0", "--out", dir}, &stdout, &stderr)
	if code != exitOK || !strings.Contains(stderr.String(), "holds steps.json of an earlier walkthrough or experiment") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// TestReachedSaysStepsAndTime: an interrupted run says how far it got in
// the terms of its budget, steps counted as steps and time as time, never
// a count "of" a duration ("173k of 20s").
func TestReachedSaysStepsAndTime(t *testing.T) {
	s := &engine.Snapshot{Counters: engine.Counters{EnvSteps: 173_100}, HostElapsed: 3 * time.Second}
	for _, tc := range []struct {
		steps    int64
		duration time.Duration
		want     string
	}{
		{0, 20 * time.Second, "173k steps in 3s of 20s"},
		{500_000, 0, "173k of 500k steps"},
		{0, 0, "173k steps in 3s, no budget"},
	} {
		s.Config.Steps, s.Config.Duration = tc.steps, tc.duration
		if got := reached(s); got != tc.want {
			t.Errorf("budget %d steps, %v: %q, want %q", tc.steps, tc.duration, got, tc.want)
		}
	}
}

// TestMuJoCoNeedsTheBuild: without -tags mujoco, every way of asking for a
// MuJoCo environment or preset is one line saying how to get it.
func TestMuJoCoNeedsTheBuild(t *testing.T) {
	if env.MuJoCo {
		t.Skip("this build has MuJoCo")
	}
	for _, args := range [][]string{
		{"--batch", "--preset", "hopper-ppo"},
		{"--batch", "--set", "env=Humanoid-v4"},
		{"dse", "--env", "Hopper-v4"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		lines := strings.Count(strings.TrimSpace(stderr.String()), "\n") + 1
		if code != exitUsage || !strings.Contains(stderr.String(), "install libmujoco-dev") || !strings.Contains(stderr.String(), "-tags mujoco") || lines != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line saying how to get MuJoCo", args, code, stderr.String())
		}
	}
}
