package layering

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rlxdev/rlx/"

// graph returns every package of the module with its imports, direct and
// transitive, as `go list -deps` resolves them.
func graph(t *testing.T) (direct, deps map[string][]string) {
	t.Helper()
	direct, deps = map[string][]string{}, map[string][]string{}
	for _, q := range []struct {
		m      map[string][]string
		format string
	}{
		{direct, `{{.ImportPath}} {{join .Imports " "}}`},
		{deps, `{{.ImportPath}} {{join .Deps " "}}`},
	} {
		cmd := exec.Command("go", "list", "-f", q.format, module+"...")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) > 0 {
				q.m[strings.TrimPrefix(f[0], module)] = f[1:]
			}
		}
	}
	if len(direct) < 10 {
		t.Fatalf("go list found %d packages", len(direct))
	}
	return direct, deps
}

// isUI reports whether an import path is the terminal UI: rlx's own or a
// Charm package.
func isUI(path string) bool {
	return path == module+"tui" || strings.HasPrefix(path, "charm.land/") ||
		strings.HasPrefix(path, "github.com/charmbracelet/")
}

// mayImport lists, for every package of the module, the packages of the
// module it may import directly; "core/*" stands for every package under
// core/. A package missing from the list fails the test: a new package
// states its place in the layers when it is added. The layers, bottom up:
// internal helpers and presets; hw; core (numeric kernels, replay,
// runtime, learners; core/dse explores hw); sim (the simulated platform
// clock); engine, bench and calibrate; report, experiment (which uses
// report's labels) and tui; cmd.
var mayImport = map[string][]string{
	"internal/yamldoc":    nil,
	"internal/baseline":   nil,
	"internal/layering":   nil,
	"internal/machine":    nil,
	"internal/units":      nil,
	"internal/papers":     nil,
	"internal/atomicfile": nil,         // a file written whole or not at all
	"internal/testenv":    {"presets"}, // tests' user configuration directory
	"internal/parallel":   nil,         // the worker pool of the multi-core kernels
	"internal/testalloc":  nil,         // allocation counts for tests, at the real GOMAXPROCS
	"presets":             nil,
	"hw":                  {"internal/yamldoc"},
	"core/sumtree":        nil,
	"core/env":            nil,
	"core/gae":            {"internal/parallel"},
	"core/nn/kernel":      {"internal/parallel"},
	"core/nn":             {"core/nn/kernel", "internal/parallel"},
	"core/replay":         {"core/sumtree"},
	"core/runtime":        {"core/env", "core/nn", "core/replay", "core/sumtree"},
	"core/dqn":            {"core/env", "core/nn", "core/replay", "core/runtime"},
	"core/ddpg":           {"core/env", "core/nn", "core/replay", "core/runtime"},
	"core/ppo":            {"core/env", "core/gae", "core/nn"},
	"core/dse":            {"hw", "internal/papers"},
	"core/agents":         {"core/env", "core/nn", "core/runtime", "core/dqn", "core/ddpg", "hw"},
	"sim":                 {"hw", "core/dse"},
	"engine":              {"core/*", "hw", "sim", "presets", "internal/yamldoc", "internal/machine", "internal/units", "internal/atomicfile"},
	"bench":               {"core/*", "internal/baseline", "internal/machine"},
	"calibrate":           {"core/*", "hw", "presets", "internal/machine"},
	"report":              {"engine", "internal/atomicfile", "internal/machine", "internal/units"},
	"experiment":          {"engine", "report", "bench", "core/*", "hw", "presets", "internal/machine", "internal/papers", "internal/units"},
	"tui":                 {"engine", "internal/units"},
	"cmd/rlx":             {"tui", "engine", "report", "experiment", "bench", "calibrate", "sim", "core/*", "hw", "presets", "internal/atomicfile", "internal/machine", "internal/units"},
}

// allowed reports whether pkg may import imp (both module-relative).
func allowed(pkg, imp string) bool {
	for _, a := range mayImport[pkg] {
		if a == imp || strings.HasSuffix(a, "/*") && strings.HasPrefix(imp, strings.TrimSuffix(a, "*")) {
			return true
		}
	}
	return false
}

func TestImportRules(t *testing.T) {
	direct, deps := graph(t)
	for pkg, imps := range direct {
		if _, ok := mayImport[pkg]; !ok {
			t.Errorf("%s is not in the import rules: add it to mayImport with what it may import", pkg)
			continue
		}
		for _, imp := range imps {
			if local, ours := strings.CutPrefix(imp, module); ours && !allowed(pkg, local) {
				t.Errorf("%s imports %s: the import rules allow it only %v", pkg, local, mayImport[pkg])
			}
		}
	}
	// The engine and everything a headless run needs must build without a
	// terminal UI, also indirectly.
	for pkg, all := range deps {
		headless := pkg == "engine" || pkg == "report" || pkg == "hw" || pkg == "sim" || pkg == "bench" || pkg == "experiment" ||
			strings.HasPrefix(pkg, "core/") || pkg == "presets"
		if !headless {
			continue
		}
		for _, imp := range all {
			if isUI(imp) {
				t.Errorf("%s depends on %s: only cmd and tui may use the terminal UI", pkg, imp)
			}
		}
	}
}

// TestBatchImportsNoUI checks the headless code of cmd/rlx file by file:
// the batch mode must run where no terminal exists, so its files use the
// engine and the report writer and never the TUI.
func TestBatchImportsNoUI(t *testing.T) {
	var files []string
	// batch*.go runs one preset headless; steps.go and compare.go run a
	// walkthrough's or experiment's steps and rlx compare on top of it.
	for _, pattern := range []string{"batch*.go", "steps.go", "compare.go"} {
		m, err := filepath.Glob(filepath.Join("../../cmd/rlx", pattern))
		if err != nil || len(m) == 0 {
			t.Fatalf("no %s in cmd/rlx: %v", pattern, err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range ast.Imports {
			p, _ := strconv.Unquote(is.Path.Value)
			if isUI(p) {
				t.Errorf("%s imports %s", filepath.Base(f), p)
			}
		}
	}
}
