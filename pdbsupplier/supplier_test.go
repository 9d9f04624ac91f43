package pdbsupplier

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/cabwriter"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// crash.pdb's debug id, as crash.sym's MODULE line (Breakpad's dump_syms)
// and the executable's RSDS record give it.
const crashID = "3249D99D0C4049318610F4E4FB0B69361"

func corpusFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "shared", "corpus", "symbolic", "windows", name))
	if err != nil {
		t.Skip("../shared/corpus/symbolic/windows is absent")
	}
	return b
}

func put(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLayouts: a PDB is found flat, in a symbol store, in a two-tier
// store and compressed (MSZIP and stored cabinets), and gives the
// symbols of crash.sym: RequestDump at 0x1000, the IsRegistered call
// inlined at 0x1011, STACK WIN frame data.
func TestLayouts(t *testing.T) {
	pdbBytes := corpusFile(t, "crash.pdb")
	layouts := map[string]func(root string){
		"flat":       func(r string) { put(t, filepath.Join(r, "crash.pdb"), pdbBytes) },
		"store":      func(r string) { put(t, filepath.Join(r, "crash.pdb", crashID, "crash.pdb"), pdbBytes) },
		"lower case": func(r string) { put(t, filepath.Join(r, "crash.pdb", strings.ToLower(crashID), "crash.pdb"), pdbBytes) },
		"two-tier": func(r string) {
			put(t, filepath.Join(r, "index2.txt"), []byte("#\n"))
			put(t, filepath.Join(r, "cr", "crash.pdb", crashID, "crash.pdb"), pdbBytes)
		},
		"mszip .pd_": func(r string) {
			put(t, filepath.Join(r, "crash.pdb", crashID, "crash.pd_"), cabwriter.Build("crash.pdb", pdbBytes, true))
		},
		"stored .pd_": func(r string) {
			put(t, filepath.Join(r, "crash.pdb", crashID, "crash.pd_"), cabwriter.Build("crash.pdb", pdbBytes, false))
		},
	}
	m := symfile.ModuleKey{CodeFile: `C:\x\crash.exe`, CodeID: "5AB380779000", DebugFile: `C:\projects\crash.pdb`, DebugID: crashID}
	for name, layout := range layouts {
		root := t.TempDir()
		layout(root)
		key := m
		if name == "lower case" { // a store written by a tool that lower-cased the id
			key.DebugID = strings.ToLower(crashID)
		}
		f, err := New(t.TempDir(), root).Symbols(key)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sym, ok := f.Lookup(0x1011)
		if !ok || sym.Base != 0x1000 || !strings.HasPrefix(sym.Name, "google_breakpad::CrashGenerationClient::RequestDump(") ||
			len(sym.Inlines) == 0 || sym.Line != 319 {
			t.Errorf("%s: 0x1011 is %+v", name, sym)
		}
		if sw, ok := f.StackWin(0x1000); !ok || sw.Type != 4 || !sw.HasProgramString {
			t.Errorf("%s: no STACK WIN 4 at 0x1000: %+v", name, sw)
		}
	}
}

// TestRefusals: a PDB of another id is refused with the reason, and the
// error wraps symfile.ErrNotFound so a chain goes on; a non-PDB module is
// not looked for; ids and names cannot step out of a store.
func TestRefusals(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "crash.pdb", crashID, "crash.pdb"), corpusFile(t, "CrashWithException.pdb"))
	m := symfile.ModuleKey{DebugFile: "crash.pdb", DebugID: crashID}
	_, err := New(root).Symbols(m)
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, symfile.ErrNotFound) || len(nf.Refused) != 1 ||
		!strings.Contains(nf.Refused[0].Reason, "F535C5FB2AE84BB8AA206C30BE566C5A1") {
		t.Errorf("wrong PDB: %v", err)
	}
	if _, err := New(root).Symbols(symfile.ModuleKey{DebugFile: "libc.so.6", DebugID: crashID}); !errors.Is(err, symfile.ErrNotFound) {
		t.Errorf("ELF module: %v", err)
	}
	for _, c := range [][2]string{{"crash.pdb", "../../x"}, {"..", crashID}, {"", crashID}} {
		if got := Candidates(root, c[0], c[1]); got != nil {
			t.Errorf("Candidates(%q, %q) = %q", c[0], c[1], got)
		}
	}
	if DebugName(`C:\a\b\crash.pdb`) != "crash.pdb" || DebugName(`/x/..`) != "" {
		t.Error("DebugName")
	}
}
