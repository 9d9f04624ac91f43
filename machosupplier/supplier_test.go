package machosupplier

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

const testdata = "../testdata/macos/"

func moduleOf(t *testing.T, arch string) (symfile.ModuleKey, string) {
	t.Helper()
	bin := testdata + arch + "/crash"
	f, err := machofile.Open(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	// Crashpad's code id is the UUID in hex, without Breakpad's age.
	return symfile.ModuleKey{CodeFile: "/Applications/Crash.app/Contents/MacOS/crash", CodeID: fmt.Sprintf("%X", f.UUID[:]),
		DebugFile: "crash", DebugID: f.DebugID()}, bin
}

func link(t *testing.T, target, at string) {
	t.Helper()
	abs, err := filepath.Abs(target)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, at); err != nil {
		t.Fatal(err)
	}
}

// TestLayouts finds the binary and dSYM in each layout the package
// documents, and refuses a file of another UUID.
func TestLayouts(t *testing.T) {
	for _, arch := range []string{"x86_64", "arm64"} {
		m, bin := moduleOf(t, arch)
		dsym := machofile.DSYMFile(bin)
		h := strings.ToLower(m.DebugID[:32])
		H := strings.ToUpper(h)
		for _, tc := range []struct {
			name      string
			lay       func(root string)
			bin, dsym bool
		}{
			{"by name", func(root string) {
				link(t, bin, filepath.Join(root, "crash"))
				link(t, bin+".dSYM", filepath.Join(root, "crash.dSYM"))
			}, true, true},
			{"dSYM alone", func(root string) { link(t, bin+".dSYM", filepath.Join(root, "crash.dSYM")) }, false, true},
			{"unified", func(root string) {
				link(t, bin, filepath.Join(root, h[:2], h[2:], "executable"))
				link(t, dsym, filepath.Join(root, h[:2], h[2:], "debuginfo"))
			}, true, true},
			{"lldb", func(root string) {
				link(t, dsym, filepath.Join(root, H[:4], H[4:8], H[8:12], H[12:16], H[16:20], H[20:]))
			}, false, true},
			{"another UUID", func(root string) {
				other := "x86_64"
				if arch == other {
					other = "arm64"
				}
				link(t, testdata+other+"/crash", filepath.Join(root, "crash"))
			}, false, false},
		} {
			root := t.TempDir()
			tc.lay(root)
			l := &Locator{Roots: []string{root}}
			f, err := l.Find(m)
			if err != nil {
				t.Fatalf("%s %s: %v", arch, tc.name, err)
			}
			if (f.Binary != "") != tc.bin || (f.DSYM != "") != tc.dsym {
				t.Errorf("%s %s: found %+v", arch, tc.name, f)
			}
		}
	}
}

// TestSymbols builds the .sym of the test program from its binary and
// dSYM: the functions of the dSYM (llvm-nm lists _leaf_sum at 0x430 on
// x86_64, 0x428 on arm64) and the STACK CFI of the binary.
func TestSymbols(t *testing.T) {
	for arch, leaf := range map[string]uint64{"x86_64": 0x430, "arm64": 0x428} {
		m, bin := moduleOf(t, arch)
		root := t.TempDir()
		link(t, bin, filepath.Join(root, "crash"))
		link(t, bin+".dSYM", filepath.Join(root, "crash.dSYM"))
		s := New(&Locator{Roots: []string{root}})
		f, err := s.Symbols(m)
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if sym, ok := f.Lookup(leaf + 4); !ok || sym.Name != "leaf_sum" {
			t.Errorf("%s: %#x is %+v", arch, leaf+4, sym)
		}
		if _, ok := f.CFIRules(leaf + 4); !ok {
			t.Errorf("%s: no CFI at %#x", arch, leaf+4)
		}
		if f.Module().Arch != arch || f.Module().ID != m.DebugID {
			t.Errorf("%s: MODULE %+v", arch, f.Module())
		}
	}
	m, _ := moduleOf(t, "x86_64")
	_, err := New(&Locator{Roots: []string{t.TempDir()}}).Symbols(m)
	if !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("empty root: %v", err)
	}
}
