//go:build unix

package yamldoc

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadFileSpecial: a device and a FIFO, directly or behind a symbolic
// link, are refused at once: /dev/zero was read until memory ran out, and
// a FIFO blocked rlx forever.
func TestReadFileSpecial(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is a character device, not a regular file"},
		{zero, zero + " is a character device, not a regular file"},
		{fifo, fifo + " is a named pipe (FIFO), not a regular file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(c.path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadFile(%s) = %v, want %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still blocked after 10 s", c.path)
		}
	}
}
