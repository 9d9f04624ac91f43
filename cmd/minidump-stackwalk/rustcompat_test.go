package main

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// notYetAccepted lists rust-minidump flags we do not take yet, each with
// the reason; the test fails when one is accepted and still listed.
var notYetAccepted = map[string]string{}

// Every flag of rust-minidump's minidump-stackwalk, as its CLI manual (the
// markdown-help snapshot of its tests) lists them, is one of ours.
func TestRustMinidumpFlagsAccepted(t *testing.T) {
	manual, err := os.ReadFile(corpus.Shared(t, "corpus", "rust-minidump", "minidump-stackwalk", "tests", "snapshots",
		"test_minidump_stackwalk__markdown-help.snap"))
	if err != nil {
		t.Fatal(err)
	}
	var status int
	cmd := newCommand(&options{}, flagGroups(), io.Discard, io.Discard, &status)
	flags := regexp.MustCompile("(?m)^#### `(?:-(\\w), )?--([a-z0-9-]+)").FindAllStringSubmatch(string(manual), -1)
	if len(flags) < 20 {
		t.Fatalf("found %d flags in rust-minidump's manual, want its whole list", len(flags))
	}
	for _, m := range flags {
		short, long := m[1], m[2]
		f := cmd.Flags().Lookup(long)
		if long == "help" {
			continue // cobra's
		}
		reason, excused := notYetAccepted["--"+long]
		switch {
		case f == nil && !excused:
			t.Errorf("rust-minidump's --%s is not accepted", long)
		case f != nil && excused:
			t.Errorf("--%s is accepted now: drop it from notYetAccepted (%s)", long, reason)
		case f != nil && short != "" && f.Shorthand != short:
			t.Errorf("--%s: shorthand %q, rust-minidump's is -%s", long, f.Shorthand, short)
		}
	}
}

// --symbols-download-timeout-secs is --symbol-download-timeout in seconds;
// giving both, or a non-positive number, is a usage error.
func TestSymbolsDownloadTimeoutSecs(t *testing.T) {
	o := &options{}
	var status int
	cmd := newCommand(o, flagGroups(), io.Discard, io.Discard, &status)
	if err := cmd.ParseFlags([]string{"--symbols-download-timeout-secs", "7"}); err != nil {
		t.Fatal(err)
	}
	if err := o.check(); err != nil || o.symbolServer.timeout != 7*time.Second {
		t.Errorf("check: %v, timeout %v; want 7s", err, o.symbolServer.timeout)
	}
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	for _, args := range [][]string{
		{"--symbols-download-timeout-secs", "0", dump},
		{"--symbols-download-timeout-secs", "5", "--symbol-download-timeout", "5s", dump},
	} {
		if _, errOut, status := runCLI(args...); status != exitUsage || !strings.Contains(errOut, "symbols-download-timeout-secs") {
			t.Errorf("%q: status %d, stderr %q", args, status, errOut)
		}
	}
	for _, flag := range []string{"--no-color", "--no-interactive", "--recover-function-args"} {
		if _, errOut, status := runCLI(flag, "-b", dump); status != exitOK || errOut != "" {
			t.Errorf("%s: status %d, stderr %q", flag, status, errOut)
		}
	}
}

// Every rust-minidump flag that takes a value takes it in both of clap's
// forms, "--flag value" and "--flag=value": "--verbose trace" must not
// read "trace" as the dump (issue 28).
func TestRustMinidumpValueFlagForms(t *testing.T) {
	manual, err := os.ReadFile(corpus.Shared(t, "corpus", "rust-minidump", "minidump-stackwalk", "tests", "snapshots",
		"test_minidump_stackwalk__markdown-help.snap"))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]string{"features": "stable-all", "verbose": "trace", "symbols-download-timeout-secs": "7"}
	flags := regexp.MustCompile("(?m)^#### `--([a-z0-9-]+) <").FindAllStringSubmatch(string(manual), -1)
	if len(flags) < 8 {
		t.Fatalf("found %d flags with a value in rust-minidump's manual, want its whole list", len(flags))
	}
	for _, m := range flags {
		name := m[1]
		value := values[name]
		if value == "" {
			value = "v1"
		}
		for _, args := range [][]string{{"--" + name, value, "DUMP"}, {"--" + name + "=" + value, "DUMP"}} {
			var status int
			cmd := newCommand(&options{}, flagGroups(), io.Discard, io.Discard, &status)
			if err := cmd.ParseFlags(args); err != nil {
				t.Errorf("%q: %v", args, err)
				continue
			}
			got := cmd.Flags().Lookup(name).Value.String()
			if !strings.Contains(got, value) || !slices.Equal(cmd.Flags().Args(), []string{"DUMP"}) {
				t.Errorf("%q: --%s = %q, positional %q; want %q and [DUMP]", args, name, got, cmd.Flags().Args(), value)
			}
		}
	}
}
