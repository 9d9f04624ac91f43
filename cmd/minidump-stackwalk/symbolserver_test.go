package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// serveSymbols serves dir over HTTP on loopback, counting requests.
func serveSymbols(t *testing.T, dir string) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	n := 0
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		n++
		mu.Unlock()
		http.StripPrefix("/symbols", files).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return n }
}

// The walk with symbols from a symbol server equals the walk with the same
// files on disk, in every output format; a later run reads the cache.
func TestSymbolServerWalkEqualsLocal(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	symbols := corpus.Testdata(t, "symbols")
	srv, requests := serveSymbols(t, symbols)
	url := srv.URL + "/symbols"
	for _, mode := range [][]string{nil, {"-m"}, {"-s"}, {"--json"}} {
		t.Run(strings.Join(append([]string{"mode"}, mode...), ""), func(t *testing.T) {
			cache := t.TempDir()
			want, wantErr, status := runCLI(append(append([]string{}, mode...), dump, symbols)...)
			if status != exitOK {
				t.Fatalf("local: status %d: %s", status, wantErr)
			}
			if !strings.Contains(want, "fp_leaf") {
				t.Fatalf("local walk has no symbols:\n%s", want)
			}
			for _, args := range [][]string{
				{"--symbols-url", url, "--symbols-cache", cache, dump},
				{"--symbols-cache", cache, dump, url}, // positional URL, and now from the cache
			} {
				args = append(append([]string{}, mode...), args...)
				got, gotErr, status := runCLI(args...)
				if status != exitOK || gotErr != wantErr {
					t.Errorf("%q: status %d, stderr %q (local: %q)", args, status, gotErr, wantErr)
				}
				if mode != nil && mode[0] == "--json" {
					// The JSON names the files it loaded: the cached copy here.
					got = strings.ReplaceAll(got, cache, symbols)
				}
				if got != want {
					t.Errorf("%q: output differs from the local walk:\n%s\nwant:\n%s", args, got, want)
				}
			}
			cached := filepath.Join(cache, "crashdemo", "D83F6001E70265BE29AD592DD70C2F4F0", "crashdemo.sym")
			if _, err := os.Stat(cached); err != nil {
				t.Errorf("not cached: %v", err)
			}
		})
	}
	before := requests()
	// With the cache filled, a closed server is not missed. One job: only
	// the module the walk needs is asked for (no prefetch).
	cache := t.TempDir()
	if _, _, status := runCLI("--symbols-download-jobs", "1", "--symbols-cache", cache, dump, url); status != exitOK {
		t.Fatal(status)
	}
	srv.Close()
	after := requests()
	if after-before != 1 {
		t.Errorf("%d requests for one module, want 1", after-before)
	}
	got, gotErr, status := runCLI("--symbols-cache", cache, dump, url)
	want, _, _ := runCLI(dump, symbols)
	if status != exitOK || got != want || gotErr != "" {
		t.Errorf("from the cache with the server gone: status %d, stderr %q, same output %v", status, gotErr, got == want)
	}
}

// A failing symbol server is a warning: the module is walked without
// symbols and the exit status stays 0.
func TestSymbolServerFailureIsAWarning(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	// No retries: they are symfile's tests' business, and take seconds.
	got, gotErr, status := runCLI("--symbols-retries", "0", "--symbols-cache", t.TempDir(), dump, srv.URL)
	want, _, _ := runCLI(dump, t.TempDir()) // a symbol path without the module's symbols
	if status != exitOK {
		t.Errorf("status %d", status)
	}
	lines := strings.Split(strings.TrimSuffix(gotErr, "\n"), "\n")
	// One line: a failure past the retries (none here) puts the server
	// down, so the code id and the other modules are not asked, and that
	// is said once.
	if len(lines) != 1 {
		t.Errorf("stderr %q: want one warning", gotErr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "minidump-stackwalk: warning: symbols of /tmp/gen-testdata/amd64/crashdemo D83F6001E70265BE29AD592DD70C2F4F0: ") ||
			!strings.Contains(l, "status 503") || !strings.Contains(l, srv.URL+" not asked again") {
			t.Errorf("warning %q: want the module and the status named", l)
		}
	}
	if got != want {
		t.Errorf("output differs from the walk without the module's symbols:\n%s\nwant:\n%s", got, want)
	}
}

func TestSymbolServerUsageErrors(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	for _, args := range [][]string{
		{"--symbols-url", "ftp://127.0.0.1/", dump},
		{"--symbols-url", "127.0.0.1/symbols", dump},
		{"--symbols-url", "http://127.0.0.1/", "--symbols-cache", "", dump},
		{"--symbol-download-timeout", "0s", dump},
		{"--symbol-download-timeout", "soon", dump},
		{"--symbols-total-timeout", "-1s", dump},
		{"--symbols-miss-ttl", "-1h", dump},
		{"--symbols-miss-ttl", "forever", dump},
		{"--symbols-retries", "-1", dump},
		{"--symbols-retries", "11", dump},
		{"--symbols-download-jobs", "0", dump},
		{"--symbols-download-jobs", "65", dump},
	} {
		if _, errOut, status := runCLI(args...); status != exitUsage {
			t.Errorf("%q: status %d, want %d (%s)", args, status, exitUsage, errOut)
		}
	}
}

// An unreachable server gives one warning, not one per module.
func TestSymbolServerUnreachableWarnsOnce(t *testing.T) {
	core := unpackCore(t, "amd64-dynamic") // seven modules
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	_, gotErr, status := runCLI("--symbols-cache", t.TempDir(), core, url)
	if status != exitOK {
		t.Errorf("status %d", status)
	}
	if n := strings.Count(gotErr, "\n"); n != 1 || !strings.Contains(gotErr, "warning: symbols of") {
		t.Errorf("stderr %q: want one warning", gotErr)
	}
}

// Microdumps take their symbols from symbol servers too: served over HTTP,
// Breakpad's microdump symbols give output identical to microdump_stackwalk's
// with the same files on disk (../shared/corpus/breakpad/expected).
func TestSymbolServerMicrodump(t *testing.T) {
	dir := corpus.Shared(t, "corpus", "breakpad")
	srv, requests := serveSymbols(t, filepath.Join(dir, "symbols", "microdump"))
	for _, name := range []string{"arm64", "x86"} {
		for _, machine := range []bool{false, true} {
			stderr := checkMicrodump(t, dir, name, machine, []string{"--symbols-cache", t.TempDir()}, srv.URL+"/symbols")
			if stderr != "" {
				t.Errorf("microdump-%s (-m %v) with a symbol server: stderr %q", name, machine, stderr)
			}
		}
	}
	if requests() == 0 {
		t.Error("the symbol server was never asked")
	}
}
