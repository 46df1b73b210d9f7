package yamldoc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	small := write("small.yaml", []byte("name: a\n"))
	if data, err := ReadFile(small); err != nil || string(data) != "name: a\n" {
		t.Errorf("ReadFile(small) = %q, %v", data, err)
	}
	limit := write("limit.yaml", bytes.Repeat([]byte("#"), MaxFileSize))
	if data, err := ReadFile(limit); err != nil || len(data) != MaxFileSize {
		t.Errorf("ReadFile of exactly MaxFileSize: %d bytes, %v", len(data), err)
	}
	big := write("big.yaml", bytes.Repeat([]byte("#"), MaxFileSize+1))
	_, err := ReadFile(big)
	if want := big + " is 1048577 bytes (1.0 MiB), more than the 1048576 bytes (1 MiB) a YAML file may hold"; err == nil || err.Error() != want {
		t.Errorf("ReadFile(big) = %v, want %s", err, want)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), dir+" is a directory, not a regular file") {
		t.Errorf("ReadFile(dir) = %v", err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(small, link); err == nil {
		if data, err := ReadFile(link); err != nil || string(data) != "name: a\n" {
			t.Errorf("ReadFile(a symbolic link to a file) = %q, %v", data, err)
		}
	}
}
