//go:build unix

package yamldoc

import (
	"os"
	"syscall"
)

// openFlags opens a file for reading without blocking: a FIFO put in
// place of a checked file is then opened at once, and refused, instead of
// blocking until a writer comes. For a regular file the flag changes
// nothing.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
