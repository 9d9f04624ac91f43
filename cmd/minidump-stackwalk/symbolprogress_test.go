package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// fakeTerminal is a stderr that says it is a terminal, as a pty would.
type fakeTerminal struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (f *fakeTerminal) IsTerminal() bool { return true }

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.b.Write(p)
}

func (f *fakeTerminal) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.b.String()
}

// slowSymbolServer serves one symbol file, padded with INFO lines (which
// change no lookup) to 1.5 MiB, in pieces with pauses, so that a download
// lasts long enough to be drawn.
func slowSymbolServer(t *testing.T, path, file string) *httptest.Server {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(data)
	for b.Len() < 3<<19 {
		b.WriteString("INFO padding to make a large download\n")
	}
	body := b.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for i := 0; i < len(body); i += 128 << 10 {
			w.Write(body[i:min(i+128<<10, len(body))])
			w.(http.Flusher).Flush()
			time.Sleep(25 * time.Millisecond)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// progressLineRE matches one drawing of the progress line.
var progressLineRE = regexp.MustCompile(`downloading crashdemo\.sym: [0-9.]+/1\.5 MiB(, [0-9.]+ MiB/s)?`)

// On a terminal a large download shows a progress line, redrawn with \r
// and cleared at the end; stdout is the same as without it, in every
// format. Not on a pipe, not with --no-interactive; --no-color clears
// with spaces.
func TestSymbolDownloadProgress(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	sym := corpus.Testdata(t, "symbols", "crashdemo", "D83F6001E70265BE29AD592DD70C2F4F0", "crashdemo.sym")
	srv := slowSymbolServer(t, "/crashdemo/D83F6001E70265BE29AD592DD70C2F4F0/crashdemo.sym", sym)
	for _, mode := range [][]string{nil, {"-m"}, {"--json"}} {
		name := strings.Join(append([]string{"mode"}, mode...), "")
		t.Run(name, func(t *testing.T) {
			walk := func(stderr interface {
				Write([]byte) (int, error)
				String() string
			}, extra ...string) (string, string) {
				t.Helper()
				cache := t.TempDir()
				args := append(append(append([]string{}, mode...), extra...), "--symbols-cache", cache, dump, srv.URL)
				var out bytes.Buffer
				if status := run(args, &out, stderr); status != exitOK {
					t.Fatalf("%q: exit %d: %s", args, status, stderr.String())
				}
				// The JSON names the cached file it loaded.
				return strings.ReplaceAll(out.String(), cache, "CACHE"), stderr.String()
			}
			plainOut, plainErr := walk(&bytes.Buffer{})
			if plainErr != "" {
				t.Errorf("not a terminal: stderr %q", plainErr)
			}
			out, errOut := walk(&fakeTerminal{})
			if out != plainOut {
				t.Errorf("stdout differs with the progress line:\n%s\nwant:\n%s", out, plainOut)
			}
			draws := progressLineRE.FindAllString(errOut, -1)
			if len(draws) == 0 || !strings.Contains(errOut, "\r\x1b[K") {
				t.Fatalf("terminal: no progress line in %q", errOut)
			}
			if !strings.HasSuffix(errOut, "\r\x1b[K") {
				t.Errorf("progress line not cleared at the end: %q", errOut)
			}
			if rest := progressLineRE.ReplaceAllString(strings.ReplaceAll(errOut, "\r\x1b[K", ""), ""); rest != "" {
				t.Errorf("stderr holds more than the progress line: %q", rest)
			}
			if _, errOut := walk(&fakeTerminal{}, "--no-interactive"); errOut != "" {
				t.Errorf("--no-interactive: stderr %q", errOut)
			}
			_, errOut = walk(&fakeTerminal{}, "--no-color")
			if strings.Contains(errOut, "\x1b") || !progressLineRE.MatchString(errOut) || !strings.HasSuffix(errOut, "\r") {
				t.Errorf("--no-color: stderr %q; want the line, cleared with spaces, no escapes", errOut)
			}
		})
	}
}

// Parallel downloads give the output of serial ones, with the same
// symbols found locally, and the server never sees more than
// --symbols-download-jobs requests at once.
func TestSymbolDownloadJobs(t *testing.T) {
	core := unpackCore(t, "amd64-dynamic") // seven modules
	symbols := corpus.Testdata(t, "symbols")
	var inFlight, peak, total atomic.Int32
	files := http.StripPrefix("/symbols", http.FileServer(http.Dir(symbols)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		total.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	for _, mode := range [][]string{nil, {"-m"}, {"--json"}} {
		want, wantErr, status := runCLI(append(append([]string{}, mode...), core, symbols)...)
		if status != exitOK {
			t.Fatalf("local: exit %d: %s", status, wantErr)
		}
		for _, jobs := range []string{"1", "2", "4"} {
			peak.Store(0)
			total.Store(0)
			cache := t.TempDir()
			args := append(append([]string{}, mode...), "--symbols-download-jobs", jobs, "--symbols-cache", cache, core, srv.URL+"/symbols")
			got, gotErr, status := runCLI(args...)
			got = strings.ReplaceAll(got, cache, symbols)
			if status != exitOK || got != want || gotErr != wantErr {
				t.Errorf("%q: exit %d, stderr %q, same output as local %v", args, status, gotErr, got == want)
			}
			if p := peak.Load(); p > int32(jobs[0]-'0') || (jobs != "1" && p < 2) {
				t.Errorf("%q: %d requests at once", args, p)
			}
			if jobs != "1" && total.Load() < 7 {
				t.Errorf("%q: %d requests; the seven modules were not prefetched", args, total.Load())
			}
			if _, err := os.Stat(filepath.Join(cache, "crashdemo-dyn")); err != nil {
				t.Errorf("%q: nothing cached: %v", args, err)
			}
		}
	}
}

// A 404 is remembered across runs for --symbols-miss-ttl; 0 asks again.
func TestSymbolServerMissTTL(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-fp.dmp")
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	cache := t.TempDir()
	runCLI("--symbols-cache", cache, dump, srv.URL)
	first := n.Load()
	if first == 0 {
		t.Fatal("the server was not asked")
	}
	runCLI("--symbols-cache", cache, dump, srv.URL)
	if n.Load() != first {
		t.Errorf("second run made %d requests; the misses were not remembered", n.Load()-first)
	}
	runCLI("--symbols-miss-ttl", "0", "--symbols-cache", cache, dump, srv.URL)
	if n.Load() != 2*first {
		t.Errorf("--symbols-miss-ttl 0 made %d requests, want %d", n.Load()-first, first)
	}
}

// /dev/null is a character device, not a terminal: no progress there.
func TestIsTTYDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTTY(f) {
		t.Errorf("%s taken for a terminal", os.DevNull)
	}
	o := &options{}
	if o.showProgress(f) {
		t.Errorf("progress shown on %s", os.DevNull)
	}
}
