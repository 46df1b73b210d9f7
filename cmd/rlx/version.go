package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// revisionDigits is how much of a commit hash --version prints: the
// length Go's pseudo-versions use, unique in any repository of this size.
const revisionDigits = 12

// versionLine is what rlx --version prints: rlx, the version of the
// build and the Go release, from the build information the Go toolchain
// embeds, e.g.
//
//	rlx v0.0.0-20260301120000-fde1c84a01b2+dirty go1.26.0
//
// for a binary built by go build or go install in a checkout: since Go
// 1.24 its module version names the commit, "+dirty" when the tree had
// uncommitted changes. A build without one, "(devel)", names the commit
// after it when it knows it ("rlx (devel) fde1c84a01b2+modified
// go1.26.0"); go run and go test embed no commit, and the line says
// "rlx (devel) revision unknown go1.26.0".
func versionLine() string {
	fields := []string{"(devel)", "revision unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fields = buildVersion(bi.Main.Version, bi.Settings)
	}
	return strings.Join(append(append([]string{"rlx"}, fields...), runtime.Version()), " ")
}

// buildVersion returns the version fields of --version for a build of
// module version main with the VCS settings: main alone when it is a
// release or a pseudo-version, which holds the commit already; otherwise
// "(devel)" and the commit (buildRevision).
func buildVersion(main string, settings []debug.BuildSetting) []string {
	if main != "" && main != "(devel)" {
		return []string{main}
	}
	return []string{"(devel)", buildRevision(settings)}
}

// buildRevision reads the VCS settings of a build: the commit shortened to
// revisionDigits, "+modified" for a dirty tree, or "revision unknown".
func buildRevision(settings []debug.BuildSetting) string {
	var rev string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "revision unknown"
	}
	if len(rev) > revisionDigits {
		rev = rev[:revisionDigits]
	}
	if modified {
		rev += "+modified"
	}
	return rev
}
