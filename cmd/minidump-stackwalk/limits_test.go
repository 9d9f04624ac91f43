package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/hostile"
)

// TestDecompressedSymbolLimit: a .sym.gz over --symbols-max-decompressed-file
// is not used (its module's symbols are reported corrupt); raising the flag
// loads it.
func TestDecompressedSymbolLimit(t *testing.T) {
	dir := t.TempDir()
	dump, err := hostile.BombDump()
	if err != nil {
		t.Fatal(err)
	}
	dumpPath := filepath.Join(dir, "bomb.dmp")
	syms := filepath.Join(dir, "syms")
	symPath := filepath.Join(syms, hostile.BombDebugFile, hostile.BombDebugID, "app.sym.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if err := hostile.SymbolBomb(zw, 3<<20); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.MkdirAll(filepath.Dir(symPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(symPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dumpPath, dump, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit, want string
	}{
		{"1M", "WARNING: Corrupt symbols, app.pdb"},
		{"4M", "app.exe!bomb"},
	} {
		var out, errOut bytes.Buffer
		status := run([]string{"--symbols-max-decompressed-file", tc.limit, dumpPath, syms}, &out, &errOut)
		if status != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("limit %s: status %d, output lacks %q:\n%s%s", tc.limit, status, tc.want, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if status := run([]string{"--symbols-max-decompressed", "-1", dumpPath}, &out, &errOut); status != 2 {
		t.Errorf("negative size: status %d, want 2 (usage)", status)
	}
}
