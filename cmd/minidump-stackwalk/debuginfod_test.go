package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// elfModulesDump writes a Linux amd64 dump of n threads, each stopped in
// its own module (so that every module's symbols are looked up), the
// modules with distinct GNU build ids, and returns its path.
func elfModulesDump(t *testing.T, n int) string {
	t.Helper()
	b := synth.New(minidump.ArchAMD64, synth.Linux)
	for i := range n {
		base := uint64(0x7f0000000000) + uint64(i)*0x100000
		b.AddModule(fmt.Sprintf("/usr/lib/libm%d.so", i), base, 0x10000).SetBuildID(bytes.Repeat([]byte{byte(0x10 + i)}, 20))
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.SetIP(base + 0x1000)
		stack := uint64(0x7ffe00000000) + uint64(i)*0x10000
		ctx.SetSP(stack)
		b.AddThread(uint32(100+i), ctx, stack, make([]byte, 64))
	}
	b.SetException(100, 11, 0)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "elf-modules.dmp")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// stallingServer is a server on loopback that takes requests and never
// answers; it counts the requests, and those still open.
func stallingServer(t *testing.T) (srv *httptest.Server, asked, open *atomic.Int32) {
	asked, open = new(atomic.Int32), new(atomic.Int32)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		open.Add(1)
		defer open.Add(-1)
		select { // headers never come
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections) // runs first
	return srv, asked, open
}

// TestDebuginfodStallingServerBounded (issue 26, item 7): a debuginfod
// server that never answers, asked for the files of 10 modules with
// --symbols-total-timeout 3s, costs the bound once (the issue measured
// 40 s: 20 requests, each to its own timeout), and the run says why the
// modules have no symbols.
func TestDebuginfodStallingServerBounded(t *testing.T) {
	dump := elfModulesDump(t, 10)
	srv, requests, _ := stallingServer(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // debuginfod's cache
	start := time.Now()
	_, stderr, status := runCLI("--debuginfod-url", srv.URL, "--symbols-total-timeout", "3s", dump)
	took := time.Since(start)
	if status != exitOK {
		t.Fatalf("status %d:\n%s", status, stderr)
	}
	if took > 6*time.Second {
		t.Errorf("took %v with a 3 s total bound", took)
	}
	if !strings.Contains(stderr, "symbol download time budget spent") || !strings.Contains(stderr, "libm0.so") {
		t.Errorf("stderr does not say the download budget was spent:\n%s", stderr)
	}
	if n := requests.Load(); n > 4 {
		t.Errorf("%d requests to a server that never answered", n)
	}
}

// TestDebuginfodWrongBuildIDIsCorrupt: a debuginfod server answering with
// an ELF file of another build id gives the module corrupt symbols, as a
// malformed .sym does (module marked in the report, JSON corrupt_symbols,
// exit 0), and nothing enters the cache.
func TestDebuginfodWrongBuildIDIsCorrupt(t *testing.T) {
	dump := elfModulesDump(t, 1)
	other := corpus.ReadZstd(t, corpus.Testdata(t, "..", "elfcfi", "testdata", "amd64-eh.zst"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(other) }))
	defer srv.Close()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	out, stderr, status := runCLI("--debuginfod-url", srv.URL, dump)
	if status != exitOK || !strings.Contains(out, "WARNING: Corrupt symbols") {
		t.Errorf("status %d; want 0 and the module's symbols corrupt:\n%s%s", status, out, stderr)
	}
	out, _, _ = runCLI("--json", "--debuginfod-url", srv.URL, dump)
	var report struct {
		Modules []struct {
			Filename       string `json:"filename"`
			CorruptSymbols bool   `json:"corrupt_symbols"`
		} `json:"modules"`
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil || len(report.Modules) != 1 || !report.Modules[0].CorruptSymbols {
		t.Errorf("JSON modules %+v (%v); want corrupt_symbols", report.Modules, err)
	}
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.Contains(p, ".misses") {
			t.Errorf("cached: %s", p)
		}
		return nil
	})
}
