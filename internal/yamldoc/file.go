package yamldoc

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxFileSize is the largest file ReadFile reads: 1 MiB. The embedded
// presets and platforms are at most 6 KB each, and a walkthrough of 20,000
// steps written by a program is 0.9 MB: the limit leaves room for any
// preset or platform written by hand or generated. It also bounds the
// decoder, which holds from 50 times a document's size (prose) to 550
// times (a list of one-letter items) in memory: at most about 550 MB,
// where a 60 MB file took 1.9 GB and /dev/zero all there was.
const MaxFileSize = 1 << 20

// ReadFile reads the user's file at path, a YAML document for Decode. It
// is the one way rlx reads a file it is given (a run configuration, a
// preset, a device platform), so that every such file meets the same
// limits:
//
//   - it must be a regular file, after following symbolic links. A FIFO
//     would block the read until someone writes to it, and a device such
//     as /dev/zero never ends: both are refused without being read.
//   - it must hold at most MaxFileSize bytes, whatever its size said when
//     it was opened: a file that grows is cut off at the limit and
//     refused.
//
// A byte order mark at the start is dropped here, once, as Decode and the
// position helpers drop it: the bytes returned are the ones they read.
// The errors name the file and, for one too large, its size and the
// limit. A missing file's error wraps fs.ErrNotExist.
func ReadFile(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO for reading blocks until a
	// writer opens it, and opening a device may have effects of its own.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := readable(path, info); err != nil {
		return nil, err
	}
	// The path may name something else by the time it is opened (a FIFO
	// in place of the file): open without blocking, then check what was
	// opened.
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := readable(path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s is larger than the %d bytes (1 MiB) a YAML file may hold: it grew while it was read", path, MaxFileSize)
	}
	return TrimBOM(data), nil
}

// readable returns why the file at path, described by info, is not one
// ReadFile reads, or nil.
func readable(path string, info fs.FileInfo) error {
	if m := info.Mode(); !m.IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file: give a YAML file", path, kindOf(m))
	}
	if n := info.Size(); n > MaxFileSize {
		return fmt.Errorf("%s is %d bytes (%.1f MiB), more than the %d bytes (1 MiB) a YAML file may hold", path, n, float64(n)/(1<<20), MaxFileSize)
	}
	return nil
}

// kindOf names the kind of a file that is not regular, for messages.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (mode " + m.String() + ")"
}
