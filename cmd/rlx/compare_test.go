package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareWritesAPage runs two experiments, shortened, and checks the
// page: how it was made, a section per experiment with its report, and
// each experiment's own results beside it.
func TestCompareWritesAPage(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "page", "comparison.md")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"compare", "--only", "relaxed-d,heppo", "--quick", "--steps", "300",
		"--duration", "1s", "--out", dir, "--doc", doc}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	page, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	for _, want := range []string{
		comparisonMarker, "# rlx against the seed papers", "--only relaxed-d,heppo", "**Quick run:**", "**Shortened run:**",
		"\n## relaxed-d\n", "\n## heppo\n", "rlx --batch --preset heppo --out DIR", "000 Fig. 10",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The order of --only is kept.
	if strings.Index(p, "## relaxed-d") > strings.Index(p, "## heppo") {
		t.Error("the sections are not in the order of --only")
	}
	for _, name := range []string{"relaxed-d", "heppo"} {
		if _, err := os.Stat(filepath.Join(dir, name, "steps.json")); err != nil {
			t.Errorf("no steps.json of %s: %v", name, err)
		}
	}
	// A shortened page is not one that may stand in docs/.
	if err := checkComparisonPage(page); err == nil {
		t.Error("checkComparisonPage accepts a quick, shortened page of two experiments")
	}
	if !strings.Contains(stdout.String(), "compared 2 of 2 experiments") {
		t.Errorf("stdout: %s", stdout.String())
	}
}

func TestCompareRejectsBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", "--only", "cartpole-ppo"}, `--only "cartpole-ppo" is not an experiment preset`},
		{[]string{"compare", "--steps", "-1"}, "--steps -1"},
		// --only '' is an empty list, not "all": it ran nothing and wrote
		// an empty page.
		{[]string{"compare", "--only", ""}, "--only is empty: name some of fanout, heppo"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q, want usage error with %q", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// TestCompareDocPath: --doc is refused before any work when it names a
// directory, or a page in a directory that does not exist outside --out
// (it was created, parents and all, wherever it pointed).
func TestCompareDocPath(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	missing := filepath.Join(dir, "no", "such", "dir")
	// Shortened, so that a regression runs one quick experiment.
	short := []string{"--only", "heppo", "--quick", "--steps", "300", "--duration", "1s", "--out", out}
	for _, tt := range []struct {
		doc  string
		want string
	}{
		{filepath.Join(missing, "x.md"), "the directory " + missing + " does not exist"},
		{dir, "is a directory"},
		{dir + "/", "names a directory"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"compare", "--doc", tt.doc}, short...), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("--doc %s: exit %d, stderr %q; want exit 2 with %q", tt.doc, code, stderr.String(), tt.want)
		}
		if strings.Contains(stderr.String(), "experiment 1/") {
			t.Errorf("--doc %s: an experiment ran before the refusal", tt.doc)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the missing directory was created: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--out was created before the refusal: %v", err)
	}
	// Under --out, which rlx creates, a new directory is fine.
	if err := checkDocPath(filepath.Join(out, "pages", "x.md"), out); err != nil {
		t.Errorf("a page under --out: %v", err)
	}
	if err := checkDocPath(filepath.Join(dir, "x.md"), out); err != nil {
		t.Errorf("a page in an existing directory: %v", err)
	}
}

// TestComparisonPageIsCurrent keeps docs/comparison.md a full, generated
// page with a section for every experiment preset: adding an experiment
// without regenerating the page fails here.
func TestComparisonPageIsCurrent(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkComparisonPage(page); err != nil {
		t.Errorf("docs/comparison.md: %v (regenerate: go run ./cmd/rlx compare --doc docs/comparison.md)", err)
	}
}

// TestComparisonPageHasClaims: the comparison page ends with the claims
// section and lists it in its contents; a claims section that failed makes
// the page one that may not stand in docs/.
func TestComparisonPageHasClaims(t *testing.T) {
	page := comparisonMarkdown(nil, 0, compareOptions{}, comparedClaims{markdown: "the claims table"})
	for _, want := range []string{"| [claims](#claims) |", "\n## claims\n\nthe claims table\n"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	exps, err := experimentPresets(nil)
	if err != nil {
		t.Fatal(err)
	}
	secs := make([]comparedSection, len(exps))
	for i, p := range exps {
		secs[i] = comparedSection{preset: p}
	}
	if err := checkComparisonPage([]byte(comparisonMarkdown(secs, len(exps), compareOptions{}, comparedClaims{markdown: "ok"}))); err != nil {
		t.Fatalf("a whole page: %v", err)
	}
	failed := comparisonMarkdown(secs, len(exps), compareOptions{}, comparedClaims{err: errors.New("no platform")})
	if !strings.Contains(failed, "*The claims did not complete: no platform.*") {
		t.Errorf("a failed claims section:\n%s", failed)
	}
	if err := checkComparisonPage([]byte(failed)); err == nil || !strings.Contains(err.Error(), "did not complete") {
		t.Errorf("checkComparisonPage on a page whose claims did not complete: %v", err)
	}
}

// TestComparisonPageNeedsClaims: a page without the claims section, as
// rlx compare wrote it before the claims, is out of date.
func TestComparisonPageNeedsClaims(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	old := bytes.Replace(page, []byte("\n## claims\n"), []byte("\n## notes\n"), 1)
	if err := checkComparisonPage(old); err == nil || !strings.Contains(err.Error(), "claims") {
		t.Errorf("checkComparisonPage on a page without claims: %v", err)
	}
}
