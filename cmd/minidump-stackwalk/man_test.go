package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

var updateMan = flag.Bool("update-man", false, "rewrite docs/man from the command tree")

// manDate is the date the manual pages carry: fixed, so that regenerating
// them changes nothing unless the command line changed.
var manDate = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)

// The manual pages in docs/man are cobra's rendering of the command tree;
// a flag added, removed or re-worded without regenerating them fails this
// test. Regenerate with: go test ./cmd/minidump-stackwalk -run TestManPages -update-man
func TestManPages(t *testing.T) {
	dir := corpus.Testdata(t, "..", "docs", "man")
	var status int
	o := &options{}
	cmd := newCommand(o, flagGroups(), io.Discard, io.Discard, &status)
	addSubcommands(cmd, o, io.Discard, io.Discard, &status)
	cmd.InitDefaultCompletionCmd()
	tmp := t.TempDir()
	header := &doc.GenManHeader{Title: "MINIDUMP-STACKWALK", Section: "1", Date: &manDate, Source: "minidump-stackwalk", Manual: "minidump-stackwalk manual"}
	cmd.DisableAutoGenTag = true
	escapeForMarkdown(cmd)
	if err := doc.GenManTree(cmd, header, tmp); err != nil {
		t.Fatal(err)
	}
	made, _ := filepath.Glob(filepath.Join(tmp, "*.1"))
	if len(made) == 0 {
		t.Fatal("no manual page made")
	}
	if *updateMan {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range made {
		name := filepath.Base(p)
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got = withoutUserPaths(got)
		if *updateMan {
			if err := os.WriteFile(filepath.Join(dir, name), got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("docs/man/%s is not the command tree's page (%v): regenerate it with -update-man", name, err)
		}
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if !*updateMan && len(kept) != len(made) {
		t.Errorf("docs/man has %d pages, the command tree %d: regenerate with -update-man", len(kept), len(made))
	}
}

// escapeForMarkdown escapes the angle brackets of the command tree's texts
// (<minidump>, <debug id>), which cobra's man renderer would otherwise
// drop as HTML tags.
func escapeForMarkdown(cmd *cobra.Command) {
	esc := strings.NewReplacer("<", "\\<", ">", "\\>")
	cmd.Use, cmd.Long = esc.Replace(cmd.Use), esc.Replace(cmd.Long)
	for _, c := range cmd.Commands() {
		escapeForMarkdown(c)
	}
}

// withoutUserPaths replaces the user's cache directory, which flag
// defaults contain (--symbols-cache), with the variable it comes from, so
// the pages are the same for every user.
func withoutUserPaths(page []byte) []byte {
	if dir, err := os.UserCacheDir(); err == nil && dir != "" {
		page = bytes.ReplaceAll(page, []byte(dir), []byte("$XDG_CACHE_HOME"))
	}
	return page
}
