package symsrv

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// A server whose answer streams past the download bound (an endless file,
// a gzip-encoded body inflating past it) costs the bound once: it is put
// down, its requests in flight are cut short, the run's remaining modules
// are not asked for, and one error says so; nothing is left on disk.
func TestSupplierOversizedServerDown(t *testing.T) {
	const (
		maxSize = 4 << 20
		jobs    = 4
		modules = 8
	)
	for _, mode := range []hostile.ServerMode{hostile.Endless, hostile.GzipBomb} {
		t.Run(string(mode), func(t *testing.T) {
			srv := newSymbolServer(t, hostile.SymbolHandler(mode).ServeHTTP)
			t.Cleanup(srv.CloseClientConnections) // before Close waits for the handlers
			cache := t.TempDir()
			var mu sync.Mutex
			var received int64
			s, err := NewSupplier([]string{srv.URL}, cache, WithMaxDownload(maxSize), WithRetry(fastRetry),
				WithDownloadJobs(jobs), WithProgress(func(p DownloadProgress) {
					if p.Done {
						mu.Lock()
						received += p.Received
						mu.Unlock()
					}
				}))
			if err != nil {
				t.Fatal(err)
			}
			var keys []symfile.ModuleKey
			for i := range modules {
				keys = append(keys, symfile.ModuleKey{DebugFile: fmt.Sprintf("lib%d.so", i), DebugID: "ID"})
			}
			s.Prefetch(keys)
			// Each module's error is ErrTooLarge, saying the server is not
			// asked again (the answers that passed the bound before the
			// first put the server down and cut them short), or
			// ErrServerDown (cut short, or not asked).
			tooLarge := 0
			for _, k := range keys {
				_, err := s.Symbols(k)
				var de *DownloadError
				switch {
				case !errors.As(err, &de) || !de.ServerDown:
					t.Errorf("%s: %v; want a DownloadError marking the server down", k.DebugFile, err)
				case errors.Is(err, ErrServerDown):
				case !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), srv.URL+" not asked again"):
					t.Errorf("%s: %v; want ErrTooLarge putting the server down, or ErrServerDown", k.DebugFile, err)
				default:
					tooLarge++
				}
			}
			if tooLarge < 1 {
				t.Error("no error put the server down")
			}
			// Only the requests in flight when the first answer passed the
			// bound were made.
			if n := srv.total(); n < 1 || n > jobs {
				t.Errorf("server asked %d times for %d modules, want 1 to %d", n, modules, jobs)
			}
			if limit := int64(jobs * (maxSize + 128<<10)); received > limit {
				t.Errorf("%d bytes read, want at most %d", received, limit)
			}
			filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					t.Errorf("file left in the cache: %s", p)
				}
				return nil
			})
		})
	}
}

// A file announced (Content-Length) over the bound costs nothing: it is
// refused, and the server is asked for the next modules.
func TestSupplierAnnouncedTooLargeKeepsServer(t *testing.T) {
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big.so/ID/big.so.sym" {
			w.Header().Set("Content-Length", fmt.Sprint(1<<30))
			w.WriteHeader(http.StatusOK)
			return
		}
		files(map[string]string{"/lib.so/ID/lib.so.sym": appSym("lib.so", "ID")})(w, r)
	})
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithMaxDownload(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "big.so", DebugID: "ID"})
	var de *DownloadError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &de) || de.ServerDown {
		t.Errorf("announced oversized file: %v; want ErrTooLarge, the server kept", err)
	}
	if f, err := s.Symbols(symfile.ModuleKey{DebugFile: "lib.so", DebugID: "ID"}); err != nil || lookupName(t, f) != "lib.so_fn" {
		t.Errorf("next module: %v", err)
	}
}

// Misses (404) say nothing against a server: however many, it is asked
// for every module, and serves the one it has.
func TestSupplierMissesKeepServer(t *testing.T) {
	srv := newSymbolServer(t, files(map[string]string{"/lib9.so/ID/lib9.so.sym": appSym("lib9.so", "ID")}))
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 9 {
		_, err := s.Symbols(symfile.ModuleKey{DebugFile: fmt.Sprintf("lib%d.so", i), DebugID: "ID"})
		if !errors.Is(err, symfile.ErrNotFound) {
			t.Errorf("lib%d.so: %v; want ErrNotFound", i, err)
		}
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "lib9.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "lib9.so_fn" {
		t.Errorf("after 9 misses: %v", err)
	}
	if n := srv.total(); n != 10 {
		t.Errorf("%d requests, want 10", n)
	}
}

// bufferedBody is a response body that answers its first read, then waits
// for the request's end (its deadline), then keeps answering without
// error: what an HTTP client's buffered data, or its gzip reader inflating
// a bomb from a few buffered kilobytes, does after the deadline.
type bufferedBody struct {
	done      <-chan struct{}
	reads     int
	afterDone atomic.Int64 // bytes returned after done
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	b.reads++
	if b.reads == 1 {
		return copy(p, "MODULE Linux x86_64 ID lib.so\nFUNC 1000 10 0 f\n"), nil
	}
	<-b.done
	n := copy(p, strings.Repeat("1000 10 1 0\n", len(p)/12+1))
	b.afterDone.Add(int64(n))
	return n, nil
}

func (b *bufferedBody) Close() error { return nil }

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The download deadline stops the copy of a body that would still answer
// after it: the total bound ends the download (not the size bound, after
// reading it all), and the body is read no further than the read in
// progress.
func TestSupplierDeadlineStopsBufferedBody(t *testing.T) {
	var body *bufferedBody
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body = &bufferedBody{done: r.Context().Done()}
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, ContentLength: -1, Body: body, Request: r}, nil
	})
	cache := t.TempDir()
	s, err := NewSupplier([]string{"http://symbols.invalid"}, cache, WithTransport(rt),
		WithTotalTimeout(200*time.Millisecond), WithMaxDownload(256<<20), WithMinRate(0, 0), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "lib.so", DebugID: "ID"})
	if !errors.Is(err, ErrDownloadBudget) || errors.Is(err, ErrTooLarge) {
		t.Errorf("%v; want ErrDownloadBudget", err)
	}
	if body == nil {
		t.Fatal("no request made")
	}
	if n := body.afterDone.Load(); n > 64<<10 {
		t.Errorf("%d bytes read after the deadline, want at most one read's", n)
	}
	if ents, _ := os.ReadDir(filepath.Join(cache, fetch.PartialDirName)); len(ents) != 0 {
		t.Errorf("partial files left: %v", ents)
	}
}

// A server that redirects in a loop would cost fetch.MaxRedirects requests for
// every module: after the first module it is not asked again, while a
// redirect out of http(s), which is about one file, leaves it up.
func TestSupplierRedirectLoopPutsServerDown(t *testing.T) {
	loop := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	})
	s, err := NewSupplier([]string{loop.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		_, err := s.Symbols(symfile.ModuleKey{DebugFile: fmt.Sprintf("lib%d.so", i), DebugID: "ID"})
		var de *DownloadError
		if !errors.As(err, &de) || errors.Is(err, symfile.ErrNotFound) {
			t.Errorf("lib%d.so: %v; want a *DownloadError", i, err)
		}
		if i > 0 && !errors.Is(err, ErrServerDown) {
			t.Errorf("lib%d.so: %v; want ErrServerDown", i, err)
		}
	}
	if n := loop.total(); n != fetch.MaxRedirects {
		t.Errorf("looping server asked %d times, want %d (the first module's redirects)", n, fetch.MaxRedirects)
	}

	scheme := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	s, err = NewSupplier([]string{scheme.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := s.Symbols(symfile.ModuleKey{DebugFile: fmt.Sprintf("lib%d.so", i), DebugID: "ID"}); errors.Is(err, ErrServerDown) {
			t.Errorf("lib%d.so: %v; a redirect out of http(s) must not put the server down", i, err)
		}
	}
	if n := scheme.total(); n != 3 {
		t.Errorf("server redirecting to file: asked %d times, want 3", n)
	}
}
