package dumpsyms

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
)

// TestLLDPDBFuncsMatchPdbutil writes the .sym of lld's PDB of
// testdata/windows/x64/wincrash.exe (clang -g -gcodeview for MinGW) and
// checks that every procedure record llvm-pdbutil lists (S_GPROC32 for
// main, S_LPROC32 for the static functions) is a FUNC of the same name,
// address and size, and that there are no other FUNC records.
func TestLLDPDBFuncsMatchPdbutil(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wincrash.pdb")
	if err := os.WriteFile(path, corpus.ReadZstd(t, "../testdata/windows/x64/wincrash.pdb.zst"), 0o644); err != nil {
		t.Fatal(err)
	}
	procs := oracle.PDBProcs(t, path)
	// The walks' frames are in these: a PDB without them (built with
	// -gcodeview but no -g) has publics only.
	if len(procs) < 20 {
		t.Fatalf("llvm-pdbutil lists %d procedure records in wincrash.pdb", len(procs))
	}
	pf, err := pdb.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	var b bytes.Buffer
	if err := WritePDB(&b, PDBInput{PDB: pf, PDBPath: path}, Options{}); err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	for _, l := range pdbSymRecords(b.String())["FUNC"] {
		f := strings.Fields(l) // FUNC [m] address size param_size name
		if f[1] == "m" {
			f = f[1:]
		}
		funcs[strings.Join([]string{f[1], f[2], strings.Join(f[4:], " ")}, " ")] = true
	}
	for _, p := range procs {
		want := fmt.Sprintf("%x %x %s", p.RVA, p.Size, p.Name)
		if !funcs[want] {
			t.Errorf("%s %s: no FUNC %s", p.Kind, p.Name, want)
		}
		delete(funcs, want)
	}
	for f := range funcs {
		t.Errorf("FUNC %s: no procedure record in llvm-pdbutil's dump", f)
	}
}
