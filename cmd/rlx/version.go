package main

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// revisionDigits is how much of a commit hash --version prints: the
// length Go's pseudo-versions use, unique in any repository of this size.
const revisionDigits = 12

// versionLine is what rlx --version prints: the module version, the
// commit it was built from and the Go release, e.g.
//
//	rlx (devel) fde1c84a01b2+modified go1.26.0
//
// from the build information the Go toolchain embeds. A binary built by go
// build or go install in a checkout names its commit, "+modified" when the
// tree had uncommitted changes; go run and go test embed no commit, and
// the line says "revision unknown".
func versionLine() string {
	version, revision := "(devel)", "revision unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		revision = buildRevision(bi.Settings)
	}
	return strings.Join([]string{"rlx", version, revision, runtime.Version()}, " ")
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
