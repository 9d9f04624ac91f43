package oracle

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePDBProcs reads an excerpt of llvm-pdbutil 14's dump of lld's
// wincrash.pdb: the procedure's section:offset becomes an RVA through the
// section header listed after it.
func TestParsePDBProcs(t *testing.T) {
	const out = "" +
		"  3388 | S_LPROC32 [size = 48] `step_mid`\n" +
		"         parent = 0, end = 3500, addr = 0001:3088, code size = 56\n" +
		"         type = `0x1036 (void (void*))`, debug start = 0, debug end = 0, flags = none\n" +
		"  3436 | S_FRAMEPROC [size = 32]\n" +
		"  SECTION HEADER #1\n" +
		"     .text name\n" +
		"      7470 virtual size\n" +
		"      1000 virtual address\n"
	got, err := parsePDBProcs(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []PDBProc{{Kind: "S_LPROC32", Name: "step_mid", RVA: 0x1c10, Size: 56, section: 1}}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(PDBProc{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := parsePDBProcs(out[:len(out)-100]); err == nil {
		t.Error("a procedure in a section without a header: no error")
	}
}
