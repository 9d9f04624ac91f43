package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestSubcommandWords checks that every word that can select a subcommand
// builds the subcommands: a name or alias missing from subcommandWords would
// be taken for a dump path.
func TestSubcommandWords(t *testing.T) {
	var status int
	o := &options{}
	cmd := newCommand(o, flagGroups(), io.Discard, io.Discard, &status)
	addSubcommands(cmd, o, io.Discard, io.Discard, &status)
	cmd.InitDefaultHelpCmd()
	cmd.InitDefaultCompletionCmd()
	cmd.InitDefaultHelpFlag()
	var words []string
	for _, sub := range cmd.Commands() {
		words = append(words, sub.Name())
		words = append(words, sub.Aliases...)
	}
	words = append(words, "--"+cmd.Flags().Lookup("help").Name, "-"+cmd.Flags().Lookup("help").Shorthand)
	for _, w := range words {
		if !slices.Contains(subcommandWords[:], w) {
			t.Errorf("%q selects a subcommand or the help but is not in subcommandWords", w)
		}
		if !needsSubcommands([]string{"-m", w}) {
			t.Errorf("needsSubcommands(-m %s) = false", w)
		}
	}
	for _, args := range [][]string{{"-mh"}, {"--help=true"}} {
		if !needsSubcommands(args) {
			t.Errorf("needsSubcommands(%q) = false", args)
		}
	}
	if needsSubcommands([]string{"-m", "-t", "2", "--symbols-url", "https://x/", "dump.dmp", "syms"}) {
		t.Error("a plain walk builds the subcommands")
	}
}

// TestHelpListsSubcommands runs the help and a subcommand through run, which
// builds the subcommands only when the arguments ask for them.
func TestHelpListsSubcommands(t *testing.T) {
	var out, errOut bytes.Buffer
	if st := run([]string{"--help"}, &out, &errOut); st != exitOK {
		t.Fatalf("--help: status %d, stderr %s", st, errOut.String())
	}
	for _, want := range []string{"batch", "core2md", "completion"} {
		if !strings.Contains(out.String(), "\n  "+want+" ") {
			t.Errorf("--help does not list %s:\n%s", want, out.String())
		}
	}
	out.Reset()
	if st := run([]string{"completion", "bash"}, &out, &errOut); st != exitOK || !strings.Contains(out.String(), "bash completion") {
		t.Errorf("completion bash: status %d, output %.80q", st, out.String())
	}
}
