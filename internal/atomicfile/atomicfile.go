// Package atomicfile writes a file whole or not at all: through a
// temporary file in the same directory and a rename over the name, so
// that a reader, or a run interrupted by Ctrl-C or a full disk, never
// leaves or sees a half-written file.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path: into a new temporary file in path's
// directory (".NAME.tmp*"), given the permissions perm, then renamed
// over path. On any error path is as it was and the temporary file is
// removed. perm is set as given, not masked by the umask: the temporary
// file is created private, and the file written is for whoever perm says.
// Write does not sync to disk; it guards against torn files, not against
// a crash of the machine.
func Write(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
