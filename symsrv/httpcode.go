package symsrv

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/fetch"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Mozilla's symbol server, Tecken, finds a Windows module's symbols by its
// code file and code id as well: GET /<code file>/<code id>/<symbol file>
// redirects to /<debug file>/<debug id>/<symbol file> when a file uploaded
// with that code file and id exists (Tecken's download view,
// lookup_by_code_file_code_id). rust-minidump's breakpad-symbols asks for
// <code file>/<CODE ID>/<code file with .dll replaced by .sym>, does not
// follow the redirect, and reads the debug file and id from its last path
// elements. We do the same, with the debug file's symbol name when the dump
// has one, after the debug-id path and the code-id path have missed.

// codeInfoPath is the store-relative path of m's code-info lookup, or ""
// when m has no usable code file and id, or when its code file is its
// debug file (the lookup would find only what the debug id did).
func codeInfoPath(m symfile.ModuleKey) string {
	code, debug := symfile.BaseName(m.CodeFile), symfile.BaseName(m.DebugFile)
	if !symfile.SafePathElement(code) || !symfile.SafePathElement(m.CodeID) || (m.DebugID != "" && code == debug) {
		return ""
	}
	sym := teckenSymName(code)
	if symfile.SafePathElement(debug) {
		sym = symfile.SymbolFileName(debug)
	}
	return code + "/" + strings.ToUpper(m.CodeID) + "/" + sym
}

// teckenSymName is rust-minidump's symbol file name for a code file: .dll
// replaced by .sym, otherwise .sym appended.
func teckenSymName(code string) string {
	if len(code) > 4 && strings.EqualFold(code[len(code)-4:], ".dll") {
		return code[:len(code)-4] + ".sym"
	}
	return code + ".sym"
}

// codeInfo runs the code-info lookup at rel once: a file cached there is
// used; else each server is asked without following redirects. A 200 is
// the symbol file itself. A redirect names the debug file and id, whose
// file is then fetched as any other (cache, servers) and linked at rel in
// the cache, so that a later run needs no request.
func (s *Supplier) codeInfo(rel string, want symfile.ModuleKey) (*symfile.File, error) {
	return s.lookups.Get(rel, func() (*symfile.File, error) { return s.lookupCodeInfo(rel, want) })
}

func (s *Supplier) lookupCodeInfo(rel string, want symfile.ModuleKey) (*symfile.File, error) {
	local, err := s.cachePath(rel)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(local); err == nil && fi.Mode().IsRegular() {
		// Checked when it was linked there (linkCached).
		if f, err := openCorrupt(s.index, local); err == nil {
			return f, nil
		}
	}
	var failures []error
	var remembered []string
	for _, u := range s.urls {
		target := joinURL(u, rel)
		if at, ok := s.store.Miss(target); ok {
			remembered = append(remembered, missNote(u, at))
			continue
		}
		f, err := s.download(symFormat, u, target, local, true, want)
		var redirect *fetch.Redirect
		if errors.As(err, &redirect) {
			f, err = s.followCodeInfo(u, rel, local, redirect, want)
		}
		if err == nil || errors.As(err, new(*symfile.CorruptError)) {
			return f, err
		}
		if !errors.Is(err, symfile.ErrNotFound) {
			failures = append(failures, err)
		}
	}
	if len(failures) > 0 {
		return nil, errors.Join(failures...)
	}
	return nil, notFound(rel, remembered)
}

// followCodeInfo fetches the file a code-info redirect points to: by its
// debug file and id when the location ends in
// <debug file>/<debug id>/<name>, else (a redirect to the file itself,
// such as a storage URL) by following it.
func (s *Supplier) followCodeInfo(base *url.URL, rel, local string, r *fetch.Redirect, want symfile.ModuleKey) (*symfile.File, error) {
	loc, err := r.Request.Parse(r.Location)
	if err != nil || r.Location == "" {
		return nil, &DownloadError{URL: joinURL(base, rel), Status: 302, Err: fmt.Errorf("unusable redirect %q", r.Location)}
	}
	parts := strings.Split(strings.TrimRight(loc.Path, "/"), "/")
	if len(parts) >= 3 {
		debug, id := parts[len(parts)-3], parts[len(parts)-2]
		if symfile.SafePathElement(debug) && isHexID(id) {
			target := debug + "/" + id + "/" + symfile.SymbolFileName(debug)
			if target != rel {
				// The server's redirect names the module: its file
				// must be that one.
				f, err := s.file(target, symfile.ModuleKey{DebugFile: debug, DebugID: id})
				if err == nil {
					s.linkCached(target, local)
				}
				return f, err
			}
		}
	}
	return s.download(symFormat, base, joinURL(base, rel), local, false, want)
}

// isHexID reports whether id looks like a Breakpad debug id.
func isHexID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// linkCached makes the cached file at rel reachable at local too; on any
// failure the next run asks the server again.
func (s *Supplier) linkCached(rel, local string) {
	src := filepath.Join(s.cacheDir, filepath.FromSlash(rel))
	fi, err := os.Lstat(src)
	if err != nil || !fi.Mode().IsRegular() || !inCache(s.cacheDir, local) {
		return
	}
	if os.MkdirAll(filepath.Dir(local), 0o755) != nil {
		return
	}
	os.Link(src, local)
}
