package symsrv

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Which modules are asked for in the Mach-O layout: a UUID and age 0,
// and no Windows or ELF debug file name.
func TestMachOUUID(t *testing.T) {
	const id = "4C4C448755553144A1295B98CD93D3020"
	for _, tc := range []struct {
		file, id, want string
	}{
		{"crash", id, "4c4c448755553144a1295b98cd93d302"},
		{"/usr/lib/libSystem.B.dylib", id, "4c4c448755553144a1295b98cd93d302"},
		{"Electron Framework", id, "4c4c448755553144a1295b98cd93d302"},
		{"crash.pdb", id, ""},
		{`C:\x\crash.PDB`, id, ""},
		{"libc.so.6", id, ""},
		{"libfoo.so", id, ""},
		{"crash", id[:32] + "1", ""}, // an age: a PDB's id
		{"crash", id[:32], ""},       // no age
		{"crash", "Z" + id[1:], ""},  // not hex
		{"crash", "00000000000000000", ""},
	} {
		if got := machoUUID(symfile.ModuleKey{DebugFile: tc.file, DebugID: tc.id}); got != tc.want {
			t.Errorf("%q %q: %q, want %q", tc.file, tc.id, got, tc.want)
		}
	}
}

// A Mach-O module's files are fetched in the unified layout after its
// .sym, checked, cached in the same layout and read together; a refused
// file is not cached and fails naming its URL; a Linux module is not
// asked for; without WithMachO nothing is.
func TestSupplierMachO(t *testing.T) {
	const id = "4C4C448755553144A1295B98CD93D3020"
	const dir = "/4c/4c448755553144a1295b98cd93d302/"
	good := "\xcf\xfa\xed\xfe good"
	bad := "\xcf\xfa\xed\xfe bad"
	srv := newSymbolServer(t, files(map[string]string{dir + "debuginfo": good, dir + "executable": bad,
		"/5c" + dir[3:] + "debuginfo": bad, "/5c" + dir[3:] + "executable": bad}))
	check := func(path string, m symfile.ModuleKey) error {
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasSuffix(b, []byte("good")) {
			return fmt.Errorf("%s: another UUID", path)
		}
		return nil
	}
	var gotBin, gotDSYM string
	symbols := func(binary, dsym string, m symfile.ModuleKey) (*symfile.File, error) {
		gotBin, gotDSYM = binary, dsym
		return symfile.NewFile([]byte("MODULE mac x86_64 "+m.DebugID+" crash\nPUBLIC 10 0 f\n"), "x")
	}
	cache := t.TempDir()
	s, err := NewSupplier([]string{srv.URL}, cache, WithMachO(check, symbols), WithRetry(RetryPolicy{}))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Symbols(symfile.ModuleKey{CodeFile: "/x/crash", DebugFile: "crash", DebugID: id})
	if f == nil || err != nil {
		t.Fatalf("file %v, error %v: want the dSYM's symbols", f, err)
	}
	// Both files refused: the error names them.
	_, err = s.Symbols(symfile.ModuleKey{DebugFile: "other", DebugID: "5" + id[1:]})
	var de *DownloadError
	if !errors.Is(err, ErrWrongModule) || !errors.As(err, &de) || de.URL != srv.URL+"/5c"+dir[3:]+"debuginfo" {
		t.Errorf("error %v: want ErrWrongModule naming the debuginfo's URL", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "5c")); err == nil {
		t.Error("a refused file was cached")
	}
	cached := filepath.Join(cache, "4c", "4c448755553144a1295b98cd93d302")
	if gotDSYM != filepath.Join(cached, "debuginfo") || gotBin != "" {
		t.Errorf("read binary %q, dSYM %q; want only the cached debuginfo", gotBin, gotDSYM)
	}
	if _, err := os.Stat(filepath.Join(cached, "executable")); err == nil {
		t.Error("the refused executable was cached")
	}
	if srv.count("/crash/"+id+"/crash.sym") != 1 {
		t.Error("the .sym was not asked for first")
	}
	if _, err := s.Symbols(symfile.ModuleKey{DebugFile: "libc.so.6", DebugID: id}); !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("libc.so.6: %v", err)
	}
	if n := srv.count(dir + "debuginfo"); n != 1 {
		t.Errorf("debuginfo asked %d times, want 1 (an ELF module is not asked in this layout)", n)
	}
	plain, err := NewSupplier([]string{srv.URL}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plain.Symbols(symfile.ModuleKey{DebugFile: "crash", DebugID: id})
	if n := srv.count(dir + "debuginfo"); n != 1 {
		t.Errorf("without WithMachO: debuginfo asked %d times, want 1", n)
	}
}
