package main

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/cabwriter"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// TestMicrosoftSymbolServer walks an x86 dump of crash.exe with a symbol
// server written as _NT_SYMBOL_PATH writes it, serving only crash.pd_
// (a cabinet of crash.pdb) in the Microsoft store layout: the frames get
// their names from the PDB, found through the FrameData program (see
// pdbsupplier.TestWalkX86FromPDB for the same dump from a local store).
func TestMicrosoftSymbolServer(t *testing.T) {
	pdbBytes, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "symbolic", "windows", "crash.pdb"))
	if err != nil {
		t.Skip("../shared/corpus/symbolic/windows is absent")
	}
	const id = "3249D99D0C4049318610F4E4FB0B69361"
	pdCab := cabwriter.Build("crash.pdb", pdbBytes, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/symbols/crash.pdb/"+id+"/crash.pd_" {
			w.Write(pdCab)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()

	guid := [16]byte{0x9d, 0xd9, 0x49, 0x32, 0x40, 0x0c, 0x31, 0x49, 0x86, 0x10, 0xf4, 0xe4, 0xfb, 0x0b, 0x69, 0x36}
	b := synth.New(minidump.ArchX86, synth.Windows)
	b.AddModule(`C:\projects\crash.exe`, 0x400000, 0x9000).SetPDB70(guid, 1, `C:\projects\crash.pdb`)
	ctx := minidump.NewContext(minidump.ArchX86)
	ctx.Set("eip", 0x401011)
	ctx.Set("esp", 0x10000)
	stack := make([]byte, 256)
	binary.LittleEndian.PutUint32(stack[0x10:], 0x402960)
	b.AddThread(1, ctx, 0x10000, stack)
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "crash.dmp")
	os.WriteFile(dump, data, 0o644)
	cache := t.TempDir()
	out, errOut, status := runCLI("--symbols-cache", cache, "--symbols-url", `srv*C:\symbols*`+srv.URL+"/symbols", dump)
	if status != 0 || !strings.Contains(out, "crash.exe!google_breakpad::CrashGenerationClient::RequestDump(_EXCEPTION_POINTERS *,MDRawAssertionInfo *)") ||
		!strings.Contains(out, "crash.exe!main [main.cpp : ") {
		t.Errorf("status %d, stderr %q, output:\n%s", status, errOut, out)
	}
	if _, err := os.Stat(filepath.Join(cache, "crash.pdb", id, "crash.pd_")); err != nil {
		t.Errorf("not cached: %v", err)
	}
}
