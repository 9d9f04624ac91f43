package pdbsupplier

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/cabwriter"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/hostile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symsrv"
)

var crashKey = symfile.ModuleKey{CodeFile: `C:\x\crash.exe`, CodeID: "5AB380779000", DebugFile: `C:\projects\crash.pdb`, DebugID: crashID}

// storeServer serves a symbol store directory on loopback, counting the
// requests.
func storeServer(t *testing.T, root string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	fs := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func msClient(t *testing.T, url, cache string, opts ...symsrv.Option) *symsrv.Supplier {
	t.Helper()
	opts = append([]symsrv.Option{symsrv.WithPDBs(FileSymbols), symsrv.WithRetry(symsrv.RetryPolicy{})}, opts...)
	s, err := symsrv.NewSupplier([]string{url}, cache, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func checkCrashSymbols(t *testing.T, what string, f *symfile.File, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if sym, ok := f.Lookup(0x1011); !ok || !strings.HasPrefix(sym.Name, "google_breakpad::CrashGenerationClient::RequestDump(") {
		t.Errorf("%s: 0x1011 is %+v", what, sym)
	}
}

// TestMicrosoftServer: a PDB, or only its .pd_ cabinet, is downloaded from
// a Microsoft-protocol server, checked, cached in the store layout and
// read from the cache by the next run without a request; the .pdb's 404
// is remembered.
func TestMicrosoftServer(t *testing.T) {
	pdbBytes := corpusFile(t, "crash.pdb")
	for _, compressed := range []bool{false, true} {
		root, cache := t.TempDir(), t.TempDir()
		name := "crash.pdb"
		body := pdbBytes
		if compressed {
			name, body = "crash.pd_", cabwriter.Build("crash.pdb", pdbBytes, true)
		}
		put(t, filepath.Join(root, "crash.pdb", crashID, name), body)
		srv, n := storeServer(t, root)
		f, err := msClient(t, srv.URL, cache).Symbols(crashKey)
		checkCrashSymbols(t, name, f, err)
		if _, err := os.Stat(filepath.Join(cache, "crash.pdb", crashID, name)); err != nil {
			t.Errorf("%s: not cached: %v", name, err)
		}
		asked := n.Load()
		f, err = msClient(t, srv.URL, cache).Symbols(crashKey)
		checkCrashSymbols(t, name+" from the cache", f, err)
		if n.Load() != asked {
			t.Errorf("%s: the second run asked the server %d times", name, n.Load()-asked)
		}
		// The cache is a symbol store the PDB supplier reads.
		f, err = New(cache).Symbols(crashKey)
		checkCrashSymbols(t, name+" by pdbsupplier from the cache", f, err)
	}
}

// TestMicrosoftServerRefusals: a PDB of another module, an HTML page and
// the hostile servers of the Breakpad server tests give an error, within
// the bounds, and leave nothing in the cache.
func TestMicrosoftServerRefusals(t *testing.T) {
	other := corpusFile(t, "CrashWithException.pdb")
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(other)
	}))
	defer wrong.Close()
	cases := map[string]string{"wrong PDB": wrong.URL}
	for _, mode := range []hostile.ServerMode{hostile.NotSymbols, hostile.Trickle, hostile.Endless,
		hostile.GzipBomb, hostile.RedirectLoop, hostile.ShortBody} {
		srv := hostile.SymbolServer(mode)
		defer srv.Close()
		cases[string(mode)] = srv.URL
	}
	for name, url := range cases {
		cache := t.TempDir()
		start := time.Now()
		bounds := fetch.DefaultConfig()
		bounds.Timeout, bounds.MaxSize, bounds.MinRate, bounds.RateWindow = 3*time.Second, 4<<20, 4096, 500*time.Millisecond
		bounds.Retry = fetch.RetryPolicy{}
		s := msClient(t, url, cache, symsrv.WithDownloader(fetch.New(bounds)))
		f, err := s.Symbols(crashKey)
		if err == nil || errors.Is(err, symfile.ErrNotFound) && name == "wrong PDB" {
			t.Errorf("%s: %v, %v", name, f, err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (d.Name() == "crash.pdb" || d.Name() == "crash.pd_") {
				t.Errorf("%s: %s cached", name, p)
			}
			return nil
		})
	}
}
