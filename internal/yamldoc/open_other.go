//go:build !unix

package yamldoc

import "os"

// openFlags opens a file for reading. Outside Unix there are no FIFOs in
// the file system to block on (Windows' named pipes live apart), so no
// flag is needed.
const openFlags = os.O_RDONLY
