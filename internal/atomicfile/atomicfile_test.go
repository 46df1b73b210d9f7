package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// entries returns the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// TestWrite writes a file, replaces it, and checks its content, its
// permissions and that no temporary file is left.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	for _, tc := range []struct {
		data string
		perm os.FileMode
	}{{"first", 0o644}, {"second, longer than the first", 0o600}, {"", 0o644}} {
		if err := Write(path, []byte(tc.data), tc.perm); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != tc.data {
			t.Errorf("read %q, %v; want %q", got, err, tc.data)
		}
		if info, err := os.Stat(path); err != nil {
			t.Errorf("stat: %v", err)
		} else if info.Mode().Perm() != tc.perm {
			t.Errorf("mode %v; want %v", info.Mode().Perm(), tc.perm)
		}
		if names := entries(t, dir); len(names) != 1 || names[0] != "run.json" {
			t.Errorf("the directory holds %q, want only run.json", names)
		}
	}
}

// TestWriteFails: where the file cannot be written, Write says so and
// leaves the directory as it was, the old file unchanged.
func TestWriteFails(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("a file in a directory that does not exist was written")
	}
	// A directory stands where the file goes: the rename fails.
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "taken", "keep"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "taken"), []byte("new"), 0o644); err == nil {
		t.Error("a file was written over a directory")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "taken" {
		t.Errorf("after the failures the directory holds %q, want only taken (a temporary file left behind?)", names)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "taken", "keep")); err != nil || string(got) != "old" {
		t.Errorf("the directory's file: %q, %v", got, err)
	}
}

func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "summary.json")
	if err := Write(path, []byte(`{"schema": "v1"}`+"\n"), 0o644); err != nil {
		panic(err)
	}
	data, _ := os.ReadFile(path)
	os.Stdout.Write(data)
	// Output: {"schema": "v1"}
}
