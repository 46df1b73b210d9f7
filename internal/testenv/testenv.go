// Package testenv sets up, for the tests of several packages, what they
// all need alike: a user configuration directory of the test's own (rlx
// reads your platforms and presets from it, and the devices editor saves
// there), and a platform file to put in it.
//
// It is imported by tests only. It may import presets and the standard
// library.
package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxdev/rlx/presets"
)

// UserConfig points os.UserConfigDir at a fresh temporary directory for
// the rest of tb (through XDG_CONFIG_HOME on Linux and the BSDs, AppData on
// Windows, HOME on macOS) and returns it. Where the configuration
// directory does not follow these variables it skips tb, so that no test
// reads the real user's platforms or writes into them.
func UserConfig(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	tb.Setenv("XDG_CONFIG_HOME", dir)
	tb.Setenv("AppData", dir)
	tb.Setenv("HOME", dir)
	if got, err := os.UserConfigDir(); err != nil || !strings.HasPrefix(got, dir) {
		tb.Skipf("the user configuration directory is %s (%v) here, not under %s", got, err, dir)
	}
	return dir
}

// PlatformCopy writes the embedded table-iv platform, renamed to name, at
// file: a platform of the user's, as rlx calibrate or the devices editor
// writes one.
func PlatformCopy(tb testing.TB, file, name string) {
	tb.Helper()
	data, err := presets.Device(presets.DefaultDevices)
	if err != nil {
		tb.Fatal(err)
	}
	data = bytes.Replace(data, []byte("name: "+presets.DefaultDevices), []byte("name: "+name), 1)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}
