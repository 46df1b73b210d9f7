package machine

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
)

func TestCurrent(t *testing.T) {
	h := Current()
	if h.GOOS != runtime.GOOS || h.GOARCH != runtime.GOARCH || h.GoVersion != runtime.Version() ||
		h.CPUs != runtime.NumCPU() || h.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Errorf("Current() = %+v", h)
	}
}

// TestJSON pins the field names: run.json and the benchmark reports carry
// them under their schema versions.
func TestJSON(t *testing.T) {
	b, err := json.Marshal(Host{GOOS: "linux", GOARCH: "amd64", CPUs: 4, GOMAXPROCS: 2, GoVersion: "go1.26.8"})
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"goos":"linux","goarch":"amd64","cpus":4,"gomaxprocs":2,"go_version":"go1.26.8"}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

func ExampleHost_String() {
	h := Host{GOOS: "linux", GOARCH: "amd64", CPUs: 2, GOMAXPROCS: 2, GoVersion: "go1.26.8"}
	fmt.Println(h)
	// Output: linux/amd64, 2 CPUs, GOMAXPROCS 2, go1.26.8
}
