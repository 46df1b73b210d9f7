//go:build unix

package engine

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUserFilesAreNotFIFOs: a FIFO given as a run configuration, as a
// device platform (by path, by name in your platforms, from a
// configuration's devices field) or put in a presets directory is refused
// at once. Each blocked rlx forever: the read waited for a writer. (A
// device such as /dev/zero, which was read until memory ran out, goes
// the same way: internal/yamldoc's tests read it.)
func TestUserFilesAreNotFIFOs(t *testing.T) {
	devices := userDevices(t)
	dir, presetsDir := t.TempDir(), t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	for _, f := range []string{fifo, filepath.Join(presetsDir, "fifo.yaml"), filepath.Join(devices, "lab.yaml")} {
		if err := syscall.Mkfifo(f, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, dir, map[string][]byte{"cfg.yaml": []byte("env: CartPole-v1\ndevices: " + fifo + "\n")})
	writeFiles(t, presetsDir, map[string][]byte{"mine.yaml": []byte("name: mine\nsummary: s\n")})
	const notRegular = "is a named pipe (FIFO), not a regular file"
	for _, c := range []struct {
		what string
		call func() error
		want string
	}{
		{"LoadConfig(a FIFO)", func() error { _, err := LoadConfig(fifo); return err }, fifo + " " + notRegular},
		{"LoadPlatform(a FIFO)", func() error { _, err := LoadPlatform(fifo); return err }, `devices "` + fifo + `" is not allowed: the file cannot be read: ` + fifo + " " + notRegular},
		{"LoadPlatform(a FIFO in your platforms)", func() error { _, err := LoadPlatform("lab"); return err }, `devices "lab" is not allowed: your platform ` + filepath.Join(devices, "lab.yaml") + " cannot be read"},
		{"LoadConfig(devices: a FIFO)", func() error { _, err := LoadConfig(filepath.Join(dir, "cfg.yaml")); return err }, filepath.Join(dir, "cfg.yaml") + ":2:10: devices"},
		{"Presets(a directory with a FIFO)", func() error {
			all, err := loadAll(presetsDir)
			if !slices.ContainsFunc(all, isDefault) || !slices.ContainsFunc(all, func(p Preset) bool { return p.Name == "mine" }) {
				return errors.New("the other presets are missing")
			}
			return err
		}, filepath.Join(presetsDir, "fifo.yaml") + " " + notRegular},
	} {
		done := make(chan error, 1)
		go func() { done <- c.call() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), notRegular) {
				t.Errorf("%s = %v\nwant an error containing %q", c.what, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s still blocked after 10 s", c.what)
		}
	}
}
