package symsrv

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// tecken serves symbol files as Mozilla's Tecken does (its download view):
// a file at its debug path is a redirect to storage; a miss there is
// looked up as /<code file>/<code id>/<name>, which redirects to
// /<debug file>/<debug id>/<name> (query kept) when a file was uploaded
// with that code file and id.
func tecken(stored map[string]string, byCode map[string]string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/storage/") {
			body, ok := stored[strings.TrimPrefix(r.URL.Path, "/storage")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(body))
			return
		}
		if _, ok := stored[r.URL.Path]; ok {
			http.Redirect(w, r, "/storage"+r.URL.Path, http.StatusFound)
			return
		}
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if len(parts) == 3 {
			if debug, ok := byCode[parts[0]+"/"+parts[1]]; ok {
				http.Redirect(w, r, "/"+debug+"/"+parts[2], http.StatusFound)
				return
			}
		}
		http.NotFound(w, r)
	}
}

func TestSupplierTeckenCodeInfo(t *testing.T) {
	xul := "MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 xul.pdb\nPUBLIC 1000 0 xul_fn\n"
	srv := newSymbolServer(t, tecken(
		map[string]string{"/xul.pdb/0123456789ABCDEF0123456789ABCDEF1/xul.sym": xul},
		map[string]string{"xul.dll/5F5C0D2F1AD4000": "xul.pdb/0123456789ABCDEF0123456789ABCDEF1"},
	))
	cache := t.TempDir()
	for _, tc := range []struct {
		name  string
		key   symfile.ModuleKey
		tried string // the code-info path asked
	}{
		// A dump without debug info: the code file's name, .dll replaced
		// by .sym, as rust-minidump asks; the code id upper-cased.
		{"no-debug-info", symfile.ModuleKey{CodeFile: `C:\Program Files\Firefox\xul.dll`, CodeID: "5F5C0D2F1ad4000"}, "/xul.dll/5F5C0D2F1AD4000/xul.sym"},
		// A dump whose debug id the server does not know (for example
		// a module rebuilt): the debug file's symbol name.
		{"stale-debug-id", symfile.ModuleKey{CodeFile: "xul.dll", CodeID: "5F5C0D2F1AD4000", DebugFile: "xul.pdb", DebugID: "FFFF"}, "/xul.dll/5F5C0D2F1AD4000/xul.sym"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSupplier([]string{srv.URL}, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			before := srv.count(tc.tried)
			f, err := s.Symbols(tc.key)
			if err != nil || lookupName(t, f) != "xul_fn" {
				t.Fatalf("%v", err)
			}
			if srv.count(tc.tried) != before+1 {
				t.Errorf("requests %v: want %s once", srv.requests, tc.tried)
			}
		})
	}
	// A later run over the same cache finds the lookup's answer in the
	// cache (linked at the code-info path): no request.
	key := symfile.ModuleKey{CodeFile: "xul.dll", CodeID: "5F5C0D2F1AD4000"}
	s, _ := NewSupplier([]string{srv.URL}, cache)
	if _, err := s.Symbols(key); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cache, "xul.pdb", "0123456789ABCDEF0123456789ABCDEF1", "xul.sym")); err != nil {
		t.Errorf("not cached at its debug path: %v", err)
	}
	n := srv.total()
	s, _ = NewSupplier([]string{srv.URL}, cache)
	f, err := s.Symbols(key)
	if err != nil || lookupName(t, f) != "xul_fn" || srv.total() != n {
		t.Errorf("second run: %v, %d requests", err, srv.total()-n)
	}
}

// A module whose code file is its debug file (Linux, macOS) makes no
// code-info request: it could only find what the debug id found.
func TestSupplierNoCodeInfoForSameNames(t *testing.T) {
	srv := newSymbolServer(t, files(nil))
	s, _ := NewSupplier([]string{srv.URL}, t.TempDir())
	s.Symbols(symfile.ModuleKey{CodeFile: "/usr/lib/libc.so.6", CodeID: "abcdef", DebugFile: "libc.so.6", DebugID: "ID"})
	if srv.total() != 2 {
		t.Errorf("requests %v: want the debug-id and code-id paths only", srv.requests)
	}
}

// Hostile redirects of a code-info lookup stay within the store: names
// that are not safe path elements are not used, and a location that names
// no debug file and id is followed as an ordinary redirect.
func TestSupplierCodeInfoHostileRedirect(t *testing.T) {
	for _, loc := range []string{
		"/../../etc/ID/x.sym", "/x.pdb/not-hex!/x.sym", "/..%2F../0123/x.sym", "", "file:///etc/passwd",
	} {
		t.Run(loc, func(t *testing.T) {
			srv := newSymbolServer(t, func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/a.dll/") {
					w.Header().Set("Location", loc)
					w.WriteHeader(http.StatusFound)
					return
				}
				http.NotFound(w, r)
			})
			parent := t.TempDir()
			cache := filepath.Join(parent, "cache")
			s, _ := NewSupplier([]string{srv.URL}, cache, WithRetry(fastRetry))
			f, err := s.Symbols(symfile.ModuleKey{CodeFile: "a.dll", CodeID: "ABC"})
			if f != nil || err == nil {
				t.Fatalf("got a file from redirect %q", loc)
			}
			var de *DownloadError
			if !errors.Is(err, symfile.ErrNotFound) && !errors.As(err, &de) {
				t.Errorf("%v: want not found or a download error", err)
			}
			ents, _ := os.ReadDir(parent)
			if len(ents) > 1 {
				t.Errorf("wrote outside the cache: %v", ents)
			}
		})
	}
}
