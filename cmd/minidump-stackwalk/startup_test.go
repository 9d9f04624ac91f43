package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// Start-up budget of the single-dump path (issue 29). Every package linked
// into the command runs its initialiser at every start, whatever the
// arguments, so a package whose initialiser builds tables is paid for by
// `minidump-stackwalk DUMP` even when only a server or a decompressor uses
// it. docs/performance.md ("Start-up: package initialisers") has the list.
const (
	// initCostBytes is the heap an initialiser may take without a place in
	// knownInitCost: error values, sync.OnceValue holders, small lists.
	initCostBytes = 1024
	// ownInitBytes bounds each of our own packages: they build nothing at
	// start (GUIDE: no init() work); tables are arrays, switches or
	// sync.OnceValue.
	ownInitBytes = 128
	// initTotalBytes bounds the sum over every initialiser: about 174,000
	// bytes before issue 29's work, 144,000 after it, 163,000 once
	// batch's JUnit output brought encoding/xml, 136,000 once net/http
	// and TLS moved to the download helper (minidump-stackwalk-fetch),
	// 66,000 once encoding/xml, html/template and ulikunitz/xz's root
	// package were no longer linked.
	initTotalBytes = 75_000
)

// knownInitCost lists the packages whose initialisers take initCostBytes
// or more today, and what links them. A package not listed here that
// comes to cost that much fails TestStartupInitialisers: keep it off the
// single-dump path, or list it here with the reason it must be linked.
var knownInitCost = map[string]string{
	"github.com/klauspost/compress/internal/snapref": "CRC-32C table; linked by klauspost's zstd (.zst dumps and symbols)",
	"github.com/ianlancetaylor/demangle":             "operator tables; demangling (internal/demangle, dumpsyms)",
	"net":                                            "github.com/spf13/pflag (its IP flags)",
	"encoding/base64":                                "encoding/json, pflag",
	"debug/dwarf":                                    "debug/elf, DWARF symbols (elfsym, dumpsyms)",
	"golang.org/x/arch/arm64/arm64asm":               "prologue analysis (internal/prologue)",
	"unicode":                                        "the standard library's tables",
	"compress/flate":                                 "compress/gzip: .gz dumps and symbols",
	"hash/crc32":                                     "compress/gzip, zstd, the symbol index",
	"regexp/syntax":                                  "regexp (triage/signature, cobra)",
	"github.com/spf13/cobra":                         "the command line",
}

// initRecord is one line of GODEBUG=inittrace=1: a package's initialiser
// and the heap it took.
type initRecord struct {
	pkg    string
	bytes  int
	allocs int
}

// TestStartupInitialisers builds the command and runs it on --version and
// on a tiny dump with GODEBUG=inittrace=1: no initialiser that takes
// initCostBytes or more may run unless knownInitCost names it, none of our
// packages may take more than ownInitBytes, and all together no more than
// initTotalBytes. Heap bytes are deterministic where clock times are not.
func TestStartupInitialisers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not building the binary")
	}
	bin := filepath.Join(t.TempDir(), "minidump-stackwalk")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dump := corpus.Testdata(t, "dumps", "amd64-threads.dmp")
	for _, args := range [][]string{{"--version"}, {dump}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.Bytes())
		}
		records := parseInitTrace(t, stderr.Bytes())
		if len(records) == 0 {
			t.Fatalf("%v: no inittrace lines on stderr:\n%s", args, stderr.Bytes())
		}
		total, seen := 0, map[string]bool{}
		for _, r := range records {
			total += r.bytes
			seen[r.pkg] = true
		}
		for _, p := range initCostProblems(records) {
			t.Errorf("%v: %s", args, p)
		}
		for pkg := range knownInitCost {
			if !seen[pkg] {
				t.Logf("%v: %s no longer runs at start; drop it from knownInitCost", args, pkg)
			}
		}
		t.Logf("%v: %d initialisers, %d bytes", args, len(records), total)
	}
}

// initCostProblems applies TestStartupInitialisers' three bounds to
// records and says what breaks them.
func initCostProblems(records []initRecord) []string {
	const module = "github.com/minidump-stackwalk/minidump-stackwalk"
	var problems []string
	total := 0
	for _, r := range records {
		total += r.bytes
		own := r.pkg == "main" || r.pkg == module || strings.HasPrefix(r.pkg, module+"/")
		switch {
		case own && r.bytes > ownInitBytes:
			problems = append(problems, fmt.Sprintf("our package %s builds %d bytes in %d allocations at start; "+
				"make it lazy or static", r.pkg, r.bytes, r.allocs))
		case !own && r.bytes >= initCostBytes && knownInitCost[r.pkg] == "":
			problems = append(problems, fmt.Sprintf("%s's initialiser takes %d bytes in %d allocations at every start; "+
				"keep it off the single-dump path or list it in knownInitCost", r.pkg, r.bytes, r.allocs))
		}
	}
	if total > initTotalBytes {
		problems = append(problems, fmt.Sprintf("initialisers take %d bytes in all, over the budget of %d",
			total, initTotalBytes))
	}
	return problems
}

// TestInitCostProblems feeds initCostProblems inittrace lines of the
// command before issue 29's work: klauspost's flate (since replaced by
// compress/gzip), ulikunitz/xz's root package (since replaced by
// internal/xz) and pdb's map literals (now arrays) are caught, listed and
// small packages are not.
func TestInitCostProblems(t *testing.T) {
	trace := []byte(`init github.com/klauspost/compress/flate @3.1 ms, 0.13 ms clock, 26880 bytes, 15 allocs
init github.com/minidump-stackwalk/minidump-stackwalk/pdb @4.0 ms, 0.050 ms clock, 3120 bytes, 8 allocs
init github.com/minidump-stackwalk/minidump-stackwalk/symfile @4.1 ms, 0.038 ms clock, 72 bytes, 2 allocs
init github.com/ulikunitz/xz @2.0 ms, 0.2 ms clock, 33024 bytes, 4 allocs
init debug/dwarf @2.2 ms, 0.1 ms clock, 7656 bytes, 12 allocs
init crypto/rsa @1.0 ms, 0.074 ms clock, 48 bytes, 2 allocs
minidump-stackwalk 1.0
`)
	records := parseInitTrace(t, trace)
	if len(records) != 6 {
		t.Fatalf("parsed %d records, want 6: %+v", len(records), records)
	}
	got := strings.Join(initCostProblems(records), "\n")
	for _, want := range []string{"klauspost/compress/flate's initialiser takes 26880 bytes",
		"ulikunitz/xz's initialiser takes 33024 bytes", "our package github.com/minidump-stackwalk/minidump-stackwalk/pdb builds 3120 bytes"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
	for _, quiet := range []string{"debug/dwarf", "symfile", "crypto/rsa", "in all"} {
		if strings.Contains(got, quiet) {
			t.Errorf("problems name %s:\n%s", quiet, got)
		}
	}
	over := append(records, initRecord{pkg: "unicode", bytes: initTotalBytes})
	if got := initCostProblems(over); !strings.Contains(strings.Join(got, "\n"), "over the budget") {
		t.Errorf("a total over %d bytes passes: %q", initTotalBytes, got)
	}
}

// parseInitTrace reads the "init PKG @T ms, C ms clock, B bytes, N allocs"
// lines of GODEBUG=inittrace=1 and skips any other line.
func parseInitTrace(t *testing.T, stderr []byte) []initRecord {
	t.Helper()
	var records []initRecord
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		n, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		records = append(records, initRecord{pkg: f[1], bytes: b, allocs: n})
	}
	return records
}

// startupLinks lists heavy packages: each one linked into the command runs
// its initialisers, adds code, interface tables and function-table entries
// the runtime walks at every start (docs/performance.md, "Start-up: what
// each part costs"). A package with a reason is linked today for that
// reason and is what issue 29 means to move off the single-dump path; one
// with "" must not be linked at all.
var startupLinks = map[string]string{
	"net/http":                            "", // symbol servers and debuginfod: the helper, cmd/minidump-stackwalk-fetch
	"crypto/tls":                          "",
	"crypto/x509":                         "",
	"mime/multipart":                      "",
	"vendor/golang.org/x/net/http2/hpack": "",
	"html/template":                       "", // the HTML report escapes by hand, as html/template would (triage/htmlreport)
	"text/template":                       "cobra's help; the batch HTML report's template (triage/htmlreport)",
	"encoding/xml":                        "", // JUnit is written by hand (triage/ciformat)
	"github.com/ulikunitz/xz":             "", // its CRC-64 tables at start; internal/xz reads .xz over its lzma package
	"github.com/klauspost/compress/zstd":  ".zst dumps and symbols (internal/input, symcompress)",
	"debug/dwarf":                         "debug/elf, debug/macho, DWARF symbols (internal/dwarfsyms)",
	"debug/macho":                         "Mach-O modules and dSYMs (machofile, machosupplier)",
	"compress/zlib":                       "debug/elf's compressed sections",
	"net/http/httputil":                   "",
	"net/http/httptest":                   "",
	"net/http/pprof":                      "",
	"net/rpc":                             "",
	"net/smtp":                            "",
	"expvar":                              "",
	"runtime/pprof":                       "",
	"runtime/trace":                       "",
	"database/sql":                        "",
	"encoding/gob":                        "",
	"go/parser":                           "",
	"go/types":                            "",
	"plugin":                              "",
	"testing":                             "",
	"archive/zip":                         "",
	"image":                               "",
	"github.com/chromedp/chromedp":        "",
	"github.com/google/go-cmp/cmp":        "",
}

// TestStartupLinks fails when the command links a package startupLinks
// says it must not, or one that needs a reason and has none: `go list
// -deps` of this package, the same list the linker starts from.
func TestStartupLinks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running go list")
	}
	list := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
	list.Env = append(os.Environ(), "GOFLAGS=", "CGO_ENABLED=0")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range linkProblems(deps) {
		t.Error(p)
	}
	linked := map[string]bool{}
	for _, d := range deps {
		linked[d] = true
	}
	for pkg, why := range startupLinks {
		if why != "" && !linked[pkg] {
			t.Logf("%s is no longer linked: make its entry in startupLinks \"\"", pkg)
		}
	}
	t.Logf("%d packages linked", len(deps))
}

// linkProblems says which of deps startupLinks forbids.
func linkProblems(deps []string) []string {
	var problems []string
	for _, d := range deps {
		if why, heavy := startupLinks[d]; heavy && why == "" {
			problems = append(problems, fmt.Sprintf("the command links %s: keep it out of the binary every "+
				"single-dump run starts (issue 29), or give startupLinks the reason it must be linked", d))
		}
	}
	return problems
}

// TestLinkProblems: a forbidden package is named, a heavy one with a
// reason and an ordinary one are not.
func TestLinkProblems(t *testing.T) {
	got := strings.Join(linkProblems([]string{"fmt", "debug/dwarf", "net/http", "runtime/pprof", "github.com/chromedp/chromedp"}), "\n")
	for _, want := range []string{"links net/http:", "links runtime/pprof:", "links github.com/chromedp/chromedp:"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not say %q:\n%s", want, got)
		}
	}
	for _, quiet := range []string{"fmt", "debug/dwarf"} {
		if strings.Contains(got, "links "+quiet+":") {
			t.Errorf("problems name %s:\n%s", quiet, got)
		}
	}
}
