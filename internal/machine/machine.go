package machine

import (
	"fmt"
	"runtime"
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
