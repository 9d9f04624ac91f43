package debuginfod

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/hex"
	"errors"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// testBinary returns a gcc-built ELF file of the repository and its build
// id (BuildID is checked against readelf by TestBuildID).
func testBinary(t *testing.T, name string) ([]byte, string) {
	data := corpus.ReadZstd(t, "../elfcfi/testdata/"+name+".zst")
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	id, err := BuildID(f)
	if err != nil {
		t.Fatal(err)
	}
	return data, hex.EncodeToString(id)
}

// TestBuildID checks BuildID against the build ids file(1) and readelf -n
// print for the crashdemo binaries.
func TestBuildID(t *testing.T) {
	for name, want := range map[string]string{
		"../testdata/cores/arm-crashdemo.zst":   "e7d5c19730cdb450fa08c2632e99c7bab6400cd6",
		"../testdata/cores/arm64-crashdemo.zst": "3ef178e6006abfe068d3e266005170de18c415cb",
	} {
		f, err := elf.NewFile(bytes.NewReader(corpus.ReadZstd(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		id, err := BuildID(f)
		if err != nil || hex.EncodeToString(id) != want {
			t.Errorf("%s: %x, %v; want %s", name, id, err, want)
		}
	}
}

// fastRetry keeps the tests' retries short.
var fastRetry = fetch.RetryPolicy{Retries: 2, Base: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxWait: time.Second}

// downloads is a download client with fetch's defaults, fastRetry, and
// what set changes.
func downloads(set func(*fetch.Config)) *fetch.Client {
	cfg := fetch.DefaultConfig()
	cfg.Retry = fastRetry
	if set != nil {
		set(&cfg)
	}
	return fetch.New(cfg)
}

// server is a debuginfod-protocol server on loopback serving files by
// path, counting requests.
type server struct {
	*httptest.Server
	requests atomic.Int32
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func serveFiles(files map[string][]byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}
}

// cacheFiles lists the cache's regular files, temporary ones included.
func cacheFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func TestRoundTrip(t *testing.T) {
	exe, id := testBinary(t, "amd64-eh")
	dbg, dbgID := testBinary(t, "amd64-df")
	srv := newServer(t, serveFiles(map[string][]byte{
		"/buildid/" + id + "/executable":   exe,
		"/buildid/" + dbgID + "/debuginfo": dbg,
	}))
	down := newServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 503) })
	missing := newServer(t, serveFiles(nil))
	c := &Client{URLs: []string{missing.URL, down.URL, srv.URL}, CacheDir: t.TempDir(), Downloads: downloads(nil)}
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		path, err := c.Fetch(ctx, id, Executable)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, exe) {
			t.Fatalf("%s: not the served file", path)
		}
		if want := filepath.Join(c.CacheDir, id, "executable"); path != want {
			t.Errorf("path %s, want %s", path, want)
		}
	}
	if n := srv.requests.Load(); n != 1 {
		t.Errorf("%d requests for one file: the cache was not used", n)
	}
	if _, err := c.Fetch(ctx, dbgID, DebugInfo); err != nil {
		t.Fatal(err)
	}
	if n := missing.requests.Load(); n != 2 {
		t.Errorf("the first server was asked %d times, want 2 (in order, each file once)", n)
	}
}

func TestNotFoundIsRemembered(t *testing.T) {
	srv := newServer(t, serveFiles(nil))
	now := time.Unix(1_000_000, 0)
	c := &Client{URLs: []string{srv.URL}, CacheDir: t.TempDir(), NegativeTTL: time.Minute,
		Now: func() time.Time { return now }}
	id := strings.Repeat("ab", 20)
	for i := 0; i < 2; i++ {
		if _, err := c.Fetch(context.Background(), id, DebugInfo); !errors.Is(err, ErrNotFound) {
			t.Fatalf("error %v, want ErrNotFound", err)
		}
	}
	if n := srv.requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1: the miss was not remembered", n)
	}
	now = now.Add(2 * time.Minute)
	c.Fetch(context.Background(), id, DebugInfo)
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2: the miss did not expire", n)
	}
}

// TestHostileAnswers checks every refused answer leaves nothing in the
// cache and is not remembered as a miss.
func TestHostileAnswers(t *testing.T) {
	exe, id := testBinary(t, "amd64-eh")
	other, _ := testBinary(t, "arm64-eh")
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"huge", func(w http.ResponseWriter, r *http.Request) {
			w.Write(exe)
			chunk := make([]byte, 64<<10)
			for i := 0; i < 64; i++ { // 4 MB more, over the 1 MB bound
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		}, "larger than"},
		{"huge Content-Length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000000000000")
			w.Write(exe)
		}, "Content-Length"},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			w.Write(exe[:100])
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, "deadline"},
		{"wrong build id", func(w http.ResponseWriter, r *http.Request) { w.Write(other) }, "build id"},
		{"not ELF", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>hello</html>")) }, "not an ELF"},
		{"truncated ELF", func(w http.ResponseWriter, r *http.Request) { w.Write(exe[:len(exe)/3]) }, ""},
		{"server error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", 500) }, "500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.handler)
			c := &Client{URLs: []string{srv.URL}, CacheDir: t.TempDir(), Downloads: downloads(func(cfg *fetch.Config) {
				cfg.MaxSize, cfg.Timeout = 1<<20, 300*time.Millisecond
			})}
			_, err := c.Fetch(context.Background(), id, Executable)
			var fe *FetchError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a *FetchError mentioning %q", err, tc.want)
			}
			if files := cacheFiles(t, c.CacheDir); len(files) != 0 {
				t.Errorf("cache holds %v after a refused answer", files)
			}
		})
	}
}

func TestBadBuildIDs(t *testing.T) {
	srv := newServer(t, serveFiles(nil))
	c := &Client{URLs: []string{srv.URL}, CacheDir: t.TempDir()}
	for _, id := range []string{"", "a", "../../etc/passwd", "ABCD", "ab/cd", strings.Repeat("ab", 65)} {
		if _, err := c.Fetch(context.Background(), id, DebugInfo); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("build id %q: error %v, want a refusal", id, err)
		}
	}
	if n := srv.requests.Load(); n != 0 {
		t.Errorf("%d requests made for invalid build ids", n)
	}
}

func TestParseURLs(t *testing.T) {
	got := ParseURLs(" https://debuginfod.debian.net/ \n\thttp://127.0.0.1:8002//  ")
	want := []string{"https://debuginfod.debian.net", "http://127.0.0.1:8002"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ParseURLs = %q, want %q", got, want)
	}
	if ParseURLs("") != nil {
		t.Error("empty DEBUGINFOD_URLS gives URLs")
	}
}

// TestNoUnsolicitedResponse: a server writing past its Content-Length
// (hostile.Overlong) makes Go's HTTP client log "Unsolicited response" on
// stderr once the connection is idle (issue 26); the default client's
// connections are never idle, so nothing is logged (and the answer, not
// an ELF file, is refused).
func TestNoUnsolicitedResponse(t *testing.T) {
	srv := hostile.SymbolServer(hostile.Overlong)
	defer srv.Close()
	var logged syncBuffer
	log.SetOutput(&logged) // net/http logs through the standard logger
	defer log.SetOutput(os.Stderr)
	c := &Client{URLs: []string{srv.URL}, CacheDir: t.TempDir()}
	for i := range 3 {
		id := strings.Repeat(string(rune('a'+i)), 40)
		if _, err := c.Fetch(context.Background(), id, Executable); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("build id %s: error %v, want a refusal", id, err)
		}
	}
	time.Sleep(200 * time.Millisecond) // the client's read loop peeks at idle connections
	if out := logged.String(); out != "" {
		t.Errorf("the HTTP client logged:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer safe for the log package's writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
