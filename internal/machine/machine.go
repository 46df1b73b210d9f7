package machine

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Host is the machine a measurement ran on.
type Host struct {
	GOOS   string `json:"goos"`
	GOARCH string `json:"goarch"`
	CPUs   int    `json:"cpus"` // logical CPUs the process may use
	// GOMAXPROCS is the number of goroutines that run at once: the
	// parallelism a measurement had, which a benchmark may set below the
	// CPUs (or a container's CPU limit may lower).
	GOMAXPROCS int    `json:"gomaxprocs"`
	GoVersion  string `json:"go_version"`
}

// Current returns the host this process runs on, with GOMAXPROCS as it is
// now: call it while the measurement's setting is in force.
func Current() Host {
	return Host{
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version(),
	}
}

// String is the host for people: "linux/amd64, 2 CPUs, GOMAXPROCS 2,
// go1.26.8".
func (h Host) String() string {
	return fmt.Sprintf("%s/%s, %d CPUs, GOMAXPROCS %d, %s", h.GOOS, h.GOARCH, h.CPUs, h.GOMAXPROCS, h.GoVersion)
}

// MemTotalKB returns MemTotal of a /proc/meminfo text in KiB, 0 if it is
// absent or malformed.
func MemTotalKB(meminfo string) float64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseFloat(f[1], 64); err == nil && kb > 0 {
				return kb
			}
		}
	}
	return 0
}

// TotalMemory returns the memory the system has in bytes (MemTotal of
// /proc/meminfo), and false where that is not known.
func TotalMemory() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	kb := MemTotalKB(string(b))
	return int64(kb * 1024), kb > 0
}
