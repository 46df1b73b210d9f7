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

func TestImportRules(t *testing.T) {
	direct, deps := graph(t)
	forbidden := func(pkg, imp string) string {
		local, ours := strings.CutPrefix(imp, module)
		switch {
		case strings.HasPrefix(pkg, "core/") && ours &&
			(local == "engine" || local == "tui" || local == "report" || strings.HasPrefix(local, "cmd/")):
			return "core packages do not import the engine, the views or commands"
		case pkg == "hw" && ours && local != "presets" && local != "internal/yamldoc":
			return "hw imports nothing of rlx but its presets and the YAML decoder"
		case pkg == "internal/yamldoc" && ours:
			return "internal/yamldoc imports nothing of rlx"
		case pkg == "core/dse" && ours && local != "hw":
			return "core/dse imports only hw"
		case pkg == "sim" && ours && local != "hw" && local != "core/dse":
			return "sim imports only hw and core/dse"
		}
		return ""
	}
	for pkg, imps := range direct {
		for _, imp := range imps {
			if why := forbidden(pkg, imp); why != "" {
				t.Errorf("%s imports %s: %s", pkg, imp, why)
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
