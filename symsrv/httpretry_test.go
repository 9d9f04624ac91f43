package symsrv

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// fastRetry keeps the tests' retries short.
var fastRetry = RetryPolicy{Retries: 2, Base: 5 * time.Millisecond, MaxDelay: 20 * time.Millisecond, MaxWait: time.Second}

// failThenServe answers the first n requests with fail, then serves body.
func failThenServe(n int32, body string, fail func(w http.ResponseWriter)) func(http.ResponseWriter, *http.Request) {
	var seen atomic.Int32
	return func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) <= n {
			fail(w)
			return
		}
		w.Write([]byte(body))
	}
}

func TestSupplierRetriesTransient(t *testing.T) {
	key := symfile.ModuleKey{DebugFile: "libr.so", DebugID: "ID"}
	path := "/libr.so/ID/libr.so.sym"
	body := appSym("libr.so", "ID")
	for _, tc := range []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"503", func(w http.ResponseWriter) { http.Error(w, "busy", http.StatusServiceUnavailable) }},
		{"502", func(w http.ResponseWriter) { http.Error(w, "gateway", http.StatusBadGateway) }},
		{"429", func(w http.ResponseWriter) { http.Error(w, "slow down", http.StatusTooManyRequests) }},
		{"reset", func(w http.ResponseWriter) {
			// Headers promise a body that the closed connection cuts off.
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte("MODULE Linux"))
			panic(http.ErrAbortHandler)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSymbolServer(t, failThenServe(2, body, tc.fail))
			s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithRetry(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.Symbols(key)
			if err != nil || lookupName(t, f) != "libr.so_fn" {
				t.Fatalf("after two failures: %v", err)
			}
			if n := srv.count(path); n != 3 {
				t.Errorf("asked %d times, want 3", n)
			}
		})
	}
}

// Retries stop at the policy's count, and the error says how many attempts
// were made; 4xx answers other than 429 are never retried.
func TestSupplierRetryBounds(t *testing.T) {
	key := symfile.ModuleKey{DebugFile: "libr.so", DebugID: "ID"}
	path := "/libr.so/ID/libr.so.sym"
	for _, tc := range []struct {
		status, asks int
	}{
		{http.StatusServiceUnavailable, 1 + fastRetry.Retries},
		{http.StatusInternalServerError, 1 + fastRetry.Retries},
		{http.StatusForbidden, 1},
		{http.StatusBadRequest, 1},
		{http.StatusNotFound, 1},
		{http.StatusGone, 1},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", tc.status) })
			s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithRetry(fastRetry))
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Symbols(key)
			if n := srv.count(path); n != tc.asks {
				t.Errorf("asked %d times, want %d (%v)", n, tc.asks, err)
			}
			var de *DownloadError
			switch {
			case tc.status == http.StatusNotFound || tc.status == http.StatusGone:
				if !errors.Is(err, symfile.ErrNotFound) {
					t.Errorf("%v: want ErrNotFound", err)
				}
			case !errors.As(err, &de) || de.Status != tc.status:
				t.Errorf("%v: want a DownloadError with status %d", err, tc.status)
			case tc.asks > 1 && !strings.HasPrefix(de.Err.Error(), "Service Unavailable (3 attempts)") &&
				!strings.HasPrefix(de.Err.Error(), "Internal Server Error (3 attempts)"):
				t.Errorf("error %q does not count the attempts", de.Err)
			}
		})
	}
}

// A 429's Retry-After is waited for when within MaxDelay, and makes the
// supplier give up at once when beyond it.
func TestSupplierRetryAfter(t *testing.T) {
	key := symfile.ModuleKey{DebugFile: "libr.so", DebugID: "ID"}
	body := appSym("libr.so", "ID")
	policy := RetryPolicy{Retries: 2, Base: time.Millisecond, MaxDelay: 2 * time.Second, MaxWait: 5 * time.Second}

	srv := newSymbolServer(t, failThenServe(1, body, func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "later", http.StatusTooManyRequests)
	}))
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithRetry(policy))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f, err := s.Symbols(key)
	if err != nil || lookupName(t, f) != "libr.so_fn" {
		t.Fatalf("after a 429: %v", err)
	}
	// The server asked for a second: the retry did not come sooner (a
	// lower bound, which a slow machine cannot break).
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v, before the 1 s Retry-After", d)
	}

	long := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		http.Error(w, "much later", http.StatusTooManyRequests)
	})
	s, err = NewSupplier([]string{long.URL}, t.TempDir(), WithRetry(policy))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Symbols(key)
	var de *DownloadError
	if !errors.As(err, &de) || de.Status != http.StatusTooManyRequests {
		t.Errorf("%v: want the 429 reported", err)
	}
	if n := long.count("/libr.so/ID/libr.so.sym"); n != 1 {
		t.Errorf("asked %d times; a Retry-After of an hour is not waited for", n)
	}
}

// A request that times out is retried; the server answers the retry.
func TestSupplierRetriesTimeout(t *testing.T) {
	var seen atomic.Int32
	srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) == 1 {
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		w.Write([]byte(appSym("libt.so", "ID")))
	})
	s, err := NewSupplier([]string{srv.URL}, t.TempDir(), WithTimeout(200*time.Millisecond), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Symbols(symfile.ModuleKey{DebugFile: "libt.so", DebugID: "ID"})
	if err != nil || lookupName(t, f) != "libt.so_fn" {
		t.Fatalf("after a timeout: %v", err)
	}
	if n := srv.total(); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
}

// A server that fails every request costs the retries once: it is not
// asked for the run's next files, and said so once; another server still
// is.
func TestSupplierFailingServerDown(t *testing.T) {
	bad := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	})
	good := newSymbolServer(t, files(map[string]string{"/c.so/ID/c.so.sym": appSym("c.so", "ID")}))
	s, err := NewSupplier([]string{bad.URL, good.URL}, t.TempDir(), WithRetry(fastRetry))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "a.so", DebugID: "ID"})
	var de *DownloadError
	if !errors.As(err, &de) || !de.ServerDown || errors.Is(err, ErrServerDown) || !strings.Contains(err.Error(), "not asked again") {
		t.Errorf("first module: %v; want the 503, marking the server down", err)
	}
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "b.so", DebugID: "ID"})
	if !errors.Is(err, ErrServerDown) || !errors.As(err, &de) || !de.ServerDown {
		t.Errorf("second module: %v; want ErrServerDown", err)
	}
	if f, err := s.Symbols(symfile.ModuleKey{DebugFile: "c.so", DebugID: "ID"}); err != nil || lookupName(t, f) != "c.so_fn" {
		t.Errorf("third module, from the other server: %v", err)
	}
	if a, n := bad.count("/a.so/ID/a.so.sym"), bad.total(); a != 1+fastRetry.Retries || n != a {
		t.Errorf("failing server asked %d times for the first file, %d in all; want %d, and nothing more", a, n, 1+fastRetry.Retries)
	}
}
