package main

import (
	"encoding/json"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The HTML report of a real run links each example dump and each failed
// input to the report --output-dir wrote for it, by a path relative to the
// page that resolves to the file; the page names the run.
func TestBatchHTMLLinksToReports(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "site", "report.html")
	reports := filepath.Join(dir, "reports dir") // a space: the link must encode it
	if err := os.Mkdir(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.dmp")
	if err := os.WriteFile(bad, []byte("MDMPgarbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	syms := corpus.Testdata(t, "symbols")
	dumps := []string{corpus.Testdata(t, "dumps", "amd64-fp.dmp"), corpus.Testdata(t, "dumps", "arm64-cpp.dmp"), bad}
	_, stderr, status := runBatchCLI("", append([]string{"--html", page, "--output-dir", reports,
		"--symbols-path", syms, "--symbols-url", "https://user:secret@symbols.example.invalid/"}, dumps...)...)
	if status != exitDump { // bad.dmp
		t.Fatalf("status %d\n%s", status, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	var links []string
	m := regexp.MustCompile(`<script type="application/json" id="data">(.*?)</script>`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no data block in the page")
	}
	var d struct {
		Groups []struct {
			Examples [][2]string `json:"e"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	for _, g := range d.Groups {
		for _, e := range g.Examples {
			links = append(links, e[1])
		}
	}
	for _, a := range regexp.MustCompile(`<a href="([^"]*)">report</a>`).FindAllStringSubmatch(text, -1) {
		links = append(links, html.UnescapeString(a[1]))
	}
	if len(links) != len(dumps) {
		t.Fatalf("%d links (%q), want one per input", len(links), links)
	}
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "" || !strings.HasPrefix(l, "../reports%20dir/") {
			t.Errorf("link %q: want a relative URL into ../reports%%20dir (%v)", l, err)
			continue
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))); err != nil {
			t.Errorf("link %q does not resolve: %v", l, err)
		}
	}
	for _, want := range []string{"Symbol paths", syms, "https://symbols.example.invalid/", "--output-dir=" + reports, "3 inputs", "2 signatures"} {
		if !strings.Contains(html.UnescapeString(text), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(text, "secret") {
		t.Error("the page shows a symbol server's password")
	}
}

func TestRedactURLs(t *testing.T) {
	got := redactURLs([]string{"--symbols-url=https://u:pw@h.example/p?x=1", "https://u@h.example/", "/plain/path", "--jobs=2"})
	want := []string{"--symbols-url=https://h.example/p?x=1", "https://h.example/", "/plain/path", "--jobs=2"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("redactURLs: %q, want %q", got, want)
	}
}
