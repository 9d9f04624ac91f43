package symsrv

import (
	"compress/gzip"
	"errors"
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
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// symbolServer is an httptest server (loopback only) over a map of paths to
// bodies, counting the requests per path.
type symbolServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests map[string]int
}

func newSymbolServer(t *testing.T, handler func(w http.ResponseWriter, r *http.Request)) *symbolServer {
	t.Helper()
	s := &symbolServer{requests: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.URL.Path]++
		s.mu.Unlock()
		handler(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *symbolServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[path]
}

func (s *symbolServer) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.requests {
		n += c
	}
	return n
}

// files serves fixed bodies; other paths are 404.
func files(m map[string]string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ok := m[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}
}

func appSym(name, id string) string {
	return "MODULE Linux x86_64 " + id + " " + name + "\nPUBLIC 1000 0 " + name + "_fn\n"
}

// writeFile writes data at p, making its directories.
func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func lookupName(t *testing.T, f *symfile.File) string {
	t.Helper()
	if f == nil {
		t.Fatal("nil File")
	}
	sym, ok := f.Lookup(0x1000)
	if !ok {
		t.Fatal("no symbol at 0x1000")
	}
	return sym.Name
}

func TestSupplierHitAndCache(t *testing.T) {
	srv := newSymbolServer(t, files(map[string]string{
		"/store/app.pdb/ABC1/app.sym":         appSym("app.pdb", "ABC1"),
		"/store/code.dll/CODEID/code.dll.sym": appSym("code.dll", "CODEID"),
	}))
	cache := t.TempDir()
	s, err := NewSupplier([]string{srv.URL + "/store/"}, cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key  symfile.ModuleKey
		want string
		file string
	}{
		{symfile.ModuleKey{DebugFile: `C:\build\app.pdb`, DebugID: "ABC1", CodeFile: `C:\build\app.exe`}, "app.pdb_fn", "app.pdb/ABC1/app.sym"},
		// Code file fallback when the debug names give nothing.
		{symfile.ModuleKey{DebugFile: "code.pdb", DebugID: "NOPE", CodeFile: "code.dll", CodeID: "CODEID"}, "code.dll_fn", "code.dll/CODEID/code.dll.sym"},
	} {
		f, err := s.Symbols(tc.key)
		if err != nil {
			t.Fatalf("%v: %v", tc.key, err)
		}
		if got := lookupName(t, f); got != tc.want {
			t.Errorf("%v: symbol %q, want %q", tc.key, got, tc.want)
		}
		cached := filepath.Join(cache, filepath.FromSlash(tc.file))
		if data, err := os.ReadFile(cached); err != nil || !strings.HasPrefix(string(data), "MODULE ") {
			t.Errorf("cache file %s: %v %q", cached, err, data)
		}
	}
	// No partial files are left.
	if ents, _ := os.ReadDir(filepath.Join(cache, fetch.PartialDirName)); len(ents) != 0 {
		t.Errorf("partial files left: %v", ents)
	}
	before := srv.total()
	if before != 3 { // app.sym, code.pdb/NOPE (404), code.dll.sym
		t.Errorf("%d requests, want 3: %v", before, srv.requests)
	}

	// A new supplier (as in a later process) reads the cache without asking.
	s2, err := NewSupplier([]string{srv.URL + "/store"}, cache)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s2.Symbols(symfile.ModuleKey{DebugFile: "app.pdb", DebugID: "ABC1"})
	if err != nil || lookupName(t, f) != "app.pdb_fn" {
		t.Fatalf("cached: %v", err)
	}
	if got := srv.total(); got != before {
		t.Errorf("cached read made %d requests", got-before)
	}
}

func TestSupplierNotFound(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	s, err := NewSupplier([]string{srv.URL}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	key := symfile.ModuleKey{DebugFile: "libx.so", DebugID: "ID1", CodeFile: "libx.so", CodeID: "CODE1"}
	for range 3 {
		_, err = s.Symbols(key)
		if !errors.Is(err, symfile.ErrNotFound) {
			t.Fatalf("err %v, want ErrNotFound", err)
		}
		var de *DownloadError
		if errors.As(err, &de) {
			t.Errorf("404 reported as a download error: %v", err)
		}
	}
	if srv.count("/libx.so/ID1/libx.so.sym") != 1 || srv.count("/libx.so/CODE1/libx.so.sym") != 1 || srv.total() != 2 {
		t.Errorf("requests %v: want each candidate once", srv.requests)
	}
}

func TestSupplierErrors(t *testing.T) {
	key := symfile.ModuleKey{DebugFile: "liby.so", DebugID: "ID2"}
	for _, tc := range []struct {
		name    string
		handler func(http.ResponseWriter, *http.Request)
		opts    []Option
		status  int
		is      error
	}{
		{"500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, nil, 500, nil},
		{"html", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>login</html>")) }, nil, 200, nil},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, []Option{WithTimeout(100 * time.Millisecond)}, 0, nil},
		{"oversize-declared", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(appSym("liby.so", "ID2") + strings.Repeat("x", 100)))
		}, []Option{WithMaxDownload(64)}, 200, ErrTooLarge},
		{"oversize-streamed", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(appSym("liby.so", "ID2")))
			w.(http.Flusher).Flush() // chunked: no Content-Length
			w.Write([]byte(strings.Repeat("x", 100)))
		}, []Option{WithMaxDownload(64)}, 200, ErrTooLarge},
		{"redirect-scheme", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		}, nil, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSymbolServer(t, tc.handler)
			cache := t.TempDir()
			s, err := NewSupplier([]string{srv.URL}, cache, append([]Option{WithRetry(fastRetry)}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.Symbols(key)
			var de *DownloadError
			if f != nil || !errors.As(err, &de) {
				t.Fatalf("got %v, %v; want a *DownloadError", f, err)
			}
			if errors.Is(err, symfile.ErrNotFound) {
				t.Errorf("%v: must not read as not found", err)
			}
			if de.Status != tc.status {
				t.Errorf("status %d, want %d (%v)", de.Status, tc.status, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v: want %v", err, tc.is)
			}
			// Nothing, not even a partial file, is cached.
			ents, _ := os.ReadDir(filepath.Join(cache, "liby.so", "ID2"))
			if len(ents) != 0 {
				t.Errorf("cache holds %v", ents)
			}
			// Asked again, the answer is remembered: no new request.
			n := srv.total()
			if _, err2 := s.Symbols(key); err2 == nil || srv.total() != n {
				t.Errorf("second ask: %v, %d new requests", err2, srv.total()-n)
			}
		})
	}
}

// A failing server does not hide a later one that has the file.
func TestSupplierFallsThroughServers(t *testing.T) {
	bad := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "down", 503) })
	good := newSymbolServer(t, files(map[string]string{"/liby.so/ID2/liby.so.sym": appSym("liby.so", "ID2")}))
	s, err := NewSupplier([]string{bad.URL, good.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "liby.so", DebugID: "ID2"})
	if err != nil || lookupName(t, f) != "liby.so_fn" {
		t.Fatalf("%v", err)
	}
}

func TestSupplierGzipEncoding(t *testing.T) {
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("client did not offer gzip: %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write([]byte(appSym("libz.so", "ID3")))
		zw.Close()
	})
	s, err := NewSupplier([]string{srv.URL}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "libz.so", DebugID: "ID3"})
	if err != nil || lookupName(t, f) != "libz.so_fn" {
		t.Fatalf("%v", err)
	}
}

// Module names from a dump never make a request for, or a cache path
// outside, the store.
func TestSupplierTraversal(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	parent := t.TempDir()
	cache := filepath.Join(parent, "cache")
	// A file the traversal names would reach if they were used.
	writeFile(t, filepath.Join(parent, "evil.sym"), []byte(appSym("evil", "ID")))
	s, err := NewSupplier([]string{srv.URL + "/store"}, cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []symfile.ModuleKey{
		{DebugFile: "..", DebugID: ".."},
		{DebugFile: "evil", DebugID: ".."},
		{DebugFile: "evil", DebugID: "../.."},
		{DebugFile: "evil", DebugID: `..\..`},
		{DebugFile: "evil", DebugID: "/abs"},
		{DebugFile: "evil", DebugID: "a\x00b"},
		{DebugFile: "evil\x00", DebugID: "ID"},
		{DebugFile: "/", DebugID: "ID"},
		{DebugFile: `C:\`, DebugID: "ID"},
		{DebugFile: "", DebugID: ""},
		{CodeFile: "..", CodeID: "."},
	} {
		f, err := s.Symbols(key)
		if f != nil || !errors.Is(err, symfile.ErrNotFound) {
			t.Errorf("%q: %v, %v; want not found", key, f, err)
		}
	}
	if srv.total() != 0 {
		t.Errorf("requests made: %v", srv.requests)
	}
	// Names that are odd but safe stay inside the store when escaped.
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "/usr/lib/a b%2F..?#.so", DebugID: "ID"})
	if f != nil || !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("odd name: %v", err)
	}
	if n := srv.count("/store/a b%2F..?#.so/ID/a b%2F..?#.so.sym"); n != 1 {
		t.Errorf("odd name requested %d times at the escaped path: %v", n, srv.requests)
	}
	// Nothing but the negative cache (and its partial directory) is
	// written: no directory named after the module names.
	ents, _ := os.ReadDir(cache)
	for _, e := range ents {
		if e.Name() != fetch.MissDirName && e.Name() != fetch.PartialDirName {
			t.Errorf("cache holds %q although nothing was downloaded", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(parent, "store")); err == nil {
		t.Error("a directory was created outside the cache")
	}
}

func TestSupplierConcurrent(t *testing.T) {
	var inFlight atomic.Int32
	release := make(chan struct{})
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		<-release
		w.Write([]byte(appSym("libc.so", "ID4")))
	})
	s, err := NewSupplier([]string{srv.URL}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	files := make([]*symfile.File, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// Two keys naming the same file: still one request.
			key := symfile.ModuleKey{DebugFile: "libc.so", DebugID: "ID4"}
			if i%2 == 1 {
				key.CodeFile = "/lib/libc.so"
			}
			files[i], errs[i] = s.Symbols(key)
		})
	}
	for inFlight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the other goroutines pile up
	close(release)
	wg.Wait()
	for i := range n {
		if errs[i] != nil || files[i] != files[0] {
			t.Errorf("goroutine %d: %p %v", i, files[i], errs[i])
		}
	}
	if srv.total() != 1 {
		t.Errorf("%d requests, want 1: %v", srv.total(), srv.requests)
	}
}

func TestNewSupplierRejects(t *testing.T) {
	for _, tc := range []struct {
		urls  []string
		cache string
	}{
		{[]string{"ftp://example.invalid/"}, "c"},
		{[]string{"file:///tmp"}, "c"},
		{[]string{"/just/a/path"}, "c"},
		{[]string{"http://"}, "c"},
		{[]string{"http://127.0.0.1/"}, ""},
	} {
		if _, err := NewSupplier(tc.urls, tc.cache); err == nil {
			t.Errorf("%v %q: accepted", tc.urls, tc.cache)
		}
	}
}

func TestChainSupplier(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "local.so", "ID", "local.so.sym"), []byte(appSym("local.so", "ID")))
	writeFile(t, filepath.Join(root, "bad.so", "ID", "bad.so.sym"), []byte("MODULE Linux x86_64 ID bad.so\nFUNC 10\n"))
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/remote.so/ID/remote.so.sym", "/local.so/ID/local.so.sym", "/bad.so/ID/bad.so.sym":
			w.Write([]byte(appSym("remote.so", "ID")))
		case "/broken.so/ID/broken.so.sym":
			http.Error(w, "x", 500)
		default:
			http.NotFound(w, r)
		}
	})
	hs, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	c := symfile.ChainSupplier{symfile.NewDirSupplier(root), hs}

	f, err := c.Symbols(symfile.ModuleKey{DebugFile: "local.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "local.so_fn" {
		t.Errorf("local: %v", err)
	}
	f, err = c.Symbols(symfile.ModuleKey{DebugFile: "remote.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "remote.so_fn" {
		t.Errorf("remote: %v", err)
	}
	// A corrupt local file is the answer, as with local roots alone.
	_, err = c.Symbols(symfile.ModuleKey{DebugFile: "bad.so", DebugID: "ID"})
	if !errors.As(err, new(*symfile.CorruptError)) {
		t.Errorf("corrupt: %v", err)
	}
	_, err = c.Symbols(symfile.ModuleKey{DebugFile: "none.so", DebugID: "ID"})
	if !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("none: %v", err)
	}
	_, err = c.Symbols(symfile.ModuleKey{DebugFile: "broken.so", DebugID: "ID"})
	if !errors.As(err, new(*DownloadError)) || errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("broken: %v", err)
	}
	if srv.count("/local.so/ID/local.so.sym") != 0 || srv.count("/bad.so/ID/bad.so.sym") != 0 {
		t.Errorf("server asked for locally present files: %v", srv.requests)
	}
}

// A server that does not answer is asked once, not once per module.
func TestSupplierServerDown(t *testing.T) {
	slow := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	good := newSymbolServer(t, files(map[string]string{"/libb.so/ID/libb.so.sym": appSym("libb.so", "ID")}))
	retry := RetryPolicy{Retries: 2, Base: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond, MaxWait: time.Second}
	s, err := NewSupplier([]string{slow.URL, good.URL}, t.TempDir(), WithTimeout(100*time.Millisecond), WithRetry(retry))
	if err != nil {
		t.Fatal(err)
	}
	// Its debug id times out, after the retries; its code id is then not
	// asked for.
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "liba.so", DebugID: "ID", CodeFile: "liba.so", CodeID: "CODE"})
	var de *DownloadError
	if !errors.As(err, &de) || de.URL != slow.URL+"/liba.so/ID/liba.so.sym" || errors.Is(de, ErrServerDown) || !errors.Is(err, ErrServerDown) {
		t.Errorf("first module: %v; want the timeout, then the code id skipped", err)
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "libb.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "libb.so_fn" {
		t.Errorf("second module from the other server: %v", err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "libc.so", DebugID: "ID"})
	if !errors.Is(err, ErrServerDown) {
		t.Errorf("third module: %v; want ErrServerDown", err)
	}
	if n := slow.total(); n != 1+retry.Retries {
		t.Errorf("unresponsive server asked %d times, want %d (the first module's retries): %v", n, 1+retry.Retries, slow.requests)
	}
}

// A server that answers, but slowly (a trickle of bytes per module), is not
// marked down; the total budget stops the downloads instead.
func TestSupplierTotalTimeout(t *testing.T) {
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("MODULE Linux x86_64 ID lib.so\n"))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	cache := t.TempDir()
	s, err := NewSupplier([]string{srv.URL}, cache, WithTimeout(5*time.Second), WithTotalTimeout(300*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "liba.so", DebugID: "ID"})
	if !errors.Is(err, ErrDownloadBudget) || errors.Is(err, ErrServerDown) {
		t.Errorf("first module: %v; want ErrDownloadBudget", err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "libb.so", DebugID: "ID"})
	if !errors.Is(err, ErrDownloadBudget) {
		t.Errorf("second module: %v; want ErrDownloadBudget", err)
	}
	// The budget, not the 5 s request timeout, ended the first download
	// (a generous bound: this is about which limit applied, not speed).
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("downloads took %v with a 300ms budget", d)
	}
	if n := srv.count("/libb.so/ID/libb.so.sym"); n != 0 {
		t.Errorf("second module asked %d times after the budget was spent", n)
	}
	// A file already in the cache is still read.
	dir := filepath.Join(cache, "libc.so", "ID")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "libc.so.sym"), []byte(appSym("libc.so", "ID")), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "libc.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "libc.so_fn" {
		t.Errorf("cached module after the budget: %v", err)
	}
}

// TestSupplierWithIndex: a supplier given WithIndex opens its cache's files
// through the index. The index built to check a download before caching it
// is adopted (one index file once the download is cached), and a later
// supplier (as a later process) maps it rather than building another.
func TestSupplierWithIndex(t *testing.T) {
	srv := newSymbolServer(t, files(map[string]string{"/app.pdb/ABC1/app.sym": appSym("app.pdb", "ABC1")}))
	cache, idxDir := t.TempDir(), t.TempDir()
	key := symfile.ModuleKey{DebugFile: "app.pdb", DebugID: "ABC1"}
	warn := func(err error) { t.Errorf("index warning: %v", err) }
	var idx []byte
	for run := range 2 {
		s, err := NewSupplier([]string{srv.URL}, cache, WithIndex(symfile.NewIndexDir(idxDir, warn)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Symbols(key)
		if err != nil || lookupName(t, f) != "app.pdb_fn" {
			t.Fatalf("run %d: err %v", run, err)
		}
		names, _ := filepath.Glob(filepath.Join(idxDir, "*.idx"))
		if len(names) != 1 {
			t.Fatalf("run %d: index files %v, want one", run, names)
		}
		data, err := os.ReadFile(names[0])
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && string(data) != string(idx) {
			t.Errorf("run 2 rewrote the index that run 1 adopted")
		}
		idx = data
	}
	if n := srv.total(); n != 1 {
		t.Errorf("%d requests, want 1 (the second run reads the cache)", n)
	}
}
