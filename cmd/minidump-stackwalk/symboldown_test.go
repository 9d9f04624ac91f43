package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
)

// A symbol server that proves hostile or broken for one file (an answer
// streamed past the download bound, a gzip bomb, 5xx past the retries)
// is not asked for the run's other modules, and one warning names it.
func TestSymbolServerDownWarnedOnce(t *testing.T) {
	dump := corpus.Testdata(t, "dumps", "amd64-threads.dmp") // several modules
	for _, tc := range []struct {
		name    string
		handler http.Handler
		args    []string
	}{
		{"endless", hostile.SymbolHandler(hostile.Endless), []string{"--symbols-max-decompressed-file", "1M"}},
		{"gzip-bomb", hostile.SymbolHandler(hostile.GzipBomb), []string{"--symbols-max-decompressed-file", "1M"}},
		{"500", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}), []string{"--symbols-retries", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var requests atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				tc.handler.ServeHTTP(w, r)
			}))
			defer srv.Close()
			defer srv.CloseClientConnections()
			var out, errOut bytes.Buffer
			args := append([]string{"--symbols-cache", filepath.Join(t.TempDir(), "cache"), "--symbols-download-jobs", "2",
				dump, srv.URL}, tc.args...)
			if status := run(args, &out, &errOut); status != exitOK {
				t.Fatalf("status %d:\n%s", status, errOut.String())
			}
			stderr := errOut.String()
			if n := strings.Count(stderr, "not asked again"); n != 1 || !strings.Contains(stderr, srv.URL+" not asked again") {
				t.Errorf("%d warnings say the server is not asked again, want 1 naming it:\n%s", n, stderr)
			}
			lines := 0
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, srv.URL) {
					lines++
				}
			}
			if n := lines; n != 1 {
				t.Errorf("%d stderr lines name the server, want 1:\n%s", n, stderr)
			}
			// The first file's attempts (2 with one retry), and at most the
			// other request in flight with 2 jobs.
			if n := requests.Load(); n > 4 {
				t.Errorf("server asked %d times, want at most 4:\n%s", n, stderr)
			}
		})
	}
}
