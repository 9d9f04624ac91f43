package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// readDoc reads a documentation file of the repository.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The README's sample output is the command's real output: the lines of
// its code block appear in the output in order, those between two "..."
// lines one after the other (issue 28.5). On a mismatch the test prints
// the output to paste.
func TestReadmeSampleOutput(t *testing.T) {
	readme := readDoc(t, "README.md")
	const intro = "the top of its output:\n\n```\n"
	i := strings.Index(readme, intro)
	if i < 0 {
		t.Fatal("README.md has no sample output after \"the top of its output:\"")
	}
	block, _, ok := strings.Cut(readme[i+len(intro):], "```")
	if !ok {
		t.Fatal("README.md's sample output block is not closed")
	}
	out, errOut, status := runCLI(corpus.Testdata(t, "dumps", "amd64-fp.dmp"), corpus.Testdata(t, "symbols"))
	if status != exitOK {
		t.Fatalf("exit %d\n%s", status, errOut)
	}
	lines := strings.Split(out, "\n")
	at, contiguous := 0, false
	for _, want := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.TrimSpace(want) == "..." {
			contiguous = false
			continue
		}
		j := at
		for j < len(lines) && lines[j] != want && !contiguous {
			j++
		}
		if j >= len(lines) || lines[j] != want {
			t.Fatalf("README.md's sample line %q is not in the output where expected (after line %d); the output:\n%s", want, at, out)
		}
		at, contiguous = j+1, true
	}
}

// countFiles counts the files under dir (relative to the repository)
// whose names match pattern.
func countFiles(t *testing.T, dir, pattern string) (n int, bytes int64) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join("..", "..", dir), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ok, _ := filepath.Match(pattern, d.Name()); ok && d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n, bytes = n+1, bytes+info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n, bytes
}

// The counts and sizes that README.md and docs/testdata.md give of
// testdata/ are the real ones (sizes within 15%: they are rounded). Other
// changes add test data all the time: on a mismatch the test prints the
// numbers to write (issue 28.5).
func TestDocsTestdataCounts(t *testing.T) {
	dumps, dumpBytes := countFiles(t, "testdata/dumps", "*.dmp")
	_, symBytes := countFiles(t, "testdata/symbols", "*.sym")
	_, coreBytes := countFiles(t, "testdata/cores", "*")
	_, allBytes := countFiles(t, "testdata", "*")
	cases := 0
	for _, line := range strings.Split(readDoc(t, "testdata/cases.txt"), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			cases++
		}
	}
	kb, mb := func(b int64) float64 { return float64(b) / 1024 }, func(b int64) float64 { return float64(b) / (1 << 20) }
	for _, c := range []struct {
		doc, pattern string
		want         float64
		exact        bool
		wording      string
	}{
		{"README.md", "on the (\\d+) dumps of `testdata/`", float64(dumps), true, "on the %.0f dumps of `testdata/`"},
		{"docs/testdata.md", "the (\\d+) dumps [\\d.]+ KB", float64(dumps), true, "the %.0f dumps"},
		{"docs/testdata.md", "the \\d+ dumps ([\\d.]+) KB", kb(dumpBytes), false, "dumps %.0f KB"},
		{"docs/testdata.md", "`cores/` ([\\d.]+) MB", mb(coreBytes), false, "`cores/` %.1f MB"},
		{"docs/testdata.md", "the .sym files ([\\d.]+) MB", mb(symBytes), false, "the .sym files %.1f MB"},
		{"docs/testdata.md", "the whole of `testdata/` is about ([\\d.]+) MB", mb(allBytes), false, "the whole of `testdata/` is about %.0f MB"},
		{"docs/testdata.md", "\\(all (\\d+) dumps; compared", float64(cases), true, "(all %.0f dumps; compared"},
	} {
		m := regexp.MustCompile(c.pattern).FindStringSubmatch(readDoc(t, c.doc))
		if m == nil {
			t.Errorf("%s: no %q; write %q", c.doc, c.pattern, fmt.Sprintf(c.wording, c.want))
			continue
		}
		got, _ := strconv.ParseFloat(m[1], 64)
		if (c.exact && got != c.want) || (!c.exact && (got < 0.85*c.want || got > 1.15*c.want)) {
			t.Errorf("%s says %q; write %q", c.doc, m[0], fmt.Sprintf(c.wording, c.want))
		}
	}
}
