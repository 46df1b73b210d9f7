package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     int
		inStdout string
		inStderr string
	}{
		{"help", []string{"help"}, exitOK, "Available Commands", ""},
		{"help lists the subcommands", []string{"--help"}, exitOK, "presets", ""},
		{"unknown flag is a usage error", []string{"--no-such-flag"}, exitUsage, "", "unknown flag"},
		{"unknown subcommand is a usage error", []string{"frobnicate"}, exitUsage, "", "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(context.Background(), tt.args, &stdout, &stderr)
			if got != tt.want {
				t.Fatalf("run(%q) = %d, want %d; stderr: %s", tt.args, got, tt.want, stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.inStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.inStdout, stdout.String())
			}
			if !strings.Contains(stderr.String(), tt.inStderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.inStderr, stderr.String())
			}
		})
	}
}
