package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

// macOSFrames is the function column of the crashing thread of a -m
// output, and the functions of a crash.truth.
func macOSFrames(t *testing.T, out, truthPath string) (got, want []string) {
	t.Helper()
	truth, err := os.ReadFile(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(truth)), "\n") {
		want = append(want, strings.Fields(l)[0])
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Split(line, "|"); len(f) == 7 && f[0] == "0" {
			got = append(got, f[3])
		}
	}
	return got, want
}

// unifiedServer serves files in symbolicator's unified layout under
// /symbols: files maps "debuginfo" and "executable" to their bytes.
func unifiedServer(t *testing.T, uuid string, files map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for kind, b := range files {
			if r.URL.Path == "/symbols/"+uuid[:2]+"/"+uuid[2:]+"/"+kind {
				w.Write(b)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSymbolServerMachO walks the synthetic macOS dumps of testdata/macos
// (x86_64 and arm64) with a symbol server serving only their binary and
// dSYM DWARF file in Sentry's symbolicator unified layout: the frames are
// the truth by construction (crash.truth), as from --debuginfo-path
// (TestDebuginfoPathMachO), and the files are cached in the same layout.
// A second run, the server gone, walks from the cache.
func TestSymbolServerMachO(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		dir := "../../testdata/macos/" + arch
		bin, err := os.ReadFile(dir + "/crash")
		if err != nil {
			t.Fatal(err)
		}
		dsym, err := os.ReadFile(machofile.DSYMFile(dir + "/crash"))
		if err != nil {
			t.Fatal(err)
		}
		mf, err := machofile.Open(dir+"/crash", "")
		if err != nil {
			t.Fatal(err)
		}
		uuid := fmt.Sprintf("%x", mf.UUID[:])
		mf.Close()
		srv := unifiedServer(t, uuid, map[string][]byte{"debuginfo": dsym, "executable": bin})
		cache := t.TempDir()
		out, errOut, status := runCLI("-m", "--symbols-cache", cache, "--symbols-url", srv.URL+"/symbols", dir+"/crash.dmp")
		got, want := macOSFrames(t, out, dir+"/crash.truth")
		if status != exitOK || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: status %d, frames %v, want %v; stderr %q", arch, status, got, want, errOut)
		}
		for _, kind := range []string{"debuginfo", "executable"} {
			if _, err := os.Stat(filepath.Join(cache, uuid[:2], uuid[2:], kind)); err != nil {
				t.Errorf("%s: %s not cached: %v", arch, kind, err)
			}
		}
		srv.Close()
		out, errOut, _ = runCLI("-m", "--symbols-cache", cache, "--symbols-url", srv.URL+"/symbols", dir+"/crash.dmp")
		if got, _ := macOSFrames(t, out, dir+"/crash.truth"); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s from the cache: frames %v, want %v; stderr %q", arch, got, want, errOut)
		}
	}
}

// TestSymbolServerMachOHostile: a server answering in the unified layout
// with the other architecture's files (another UUID), an HTML page or a
// truncated binary caches nothing; the wrong file is named in a warning.
func TestSymbolServerMachOHostile(t *testing.T) {
	dir := "../../testdata/macos/x86_64"
	mf, err := machofile.Open(dir+"/crash", "")
	if err != nil {
		t.Fatal(err)
	}
	uuid := fmt.Sprintf("%x", mf.UUID[:])
	mf.Close()
	bin, err := os.ReadFile(dir + "/crash")
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile("../../testdata/macos/arm64/crash")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"wrong UUID": other,
		"HTML":       []byte("<html><body>sign in</body></html>"),
		"truncated":  bin[:len(bin)/3],
	}
	for name, body := range cases {
		srv := unifiedServer(t, uuid, map[string][]byte{"debuginfo": body, "executable": body})
		cache := t.TempDir()
		_, errOut, _ := runCLI("-m", "--symbols-cache", cache, "--symbols-url", srv.URL+"/symbols", dir+"/crash.dmp")
		if !strings.Contains(errOut, srv.URL+"/symbols/"+uuid[:2]+"/"+uuid[2:]+"/executable") || strings.Contains(errOut, ".partial") {
			t.Errorf("%s: no warning naming the URL: %q", name, errOut)
		}
		if _, err := os.Stat(filepath.Join(cache, uuid[:2])); err == nil {
			t.Errorf("%s: something was cached under %s", name, uuid[:2])
		}
	}
}
