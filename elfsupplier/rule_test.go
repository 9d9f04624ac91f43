package elfsupplier

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestPrologueFramesNamed: a frame unwound by rules read from a prologue
// in the module's file is named so (walker.RuleModulePrologue, trust still
// call frame info), and only then: its callee's instruction is one the
// file's unwind tables (read by elfcfi) do not cover, and every frame
// named cfi whose callee lies in the program is covered by the .sym's
// STACK CFI or the file's tables. The testdata's ARM programs have
// functions .ARM.exidx leaves out (cantunwind, the C library's startup
// code); every walk, with the .sym and the program and with the program
// alone, is checked.
func TestPrologueFramesNamed(t *testing.T) {
	root := corpus.Testdata(t)
	syms := symcompress.NewDirSupplier(filepath.Join(root, "symbols"))
	named := 0
	for _, c := range casesWithBinaries(t, root) {
		path := filepath.Join(root, "dumps", c.name+".dmp")
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, c.program), c.binary, 0o644); err != nil {
			t.Fatal(err)
		}
		elfSup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
		for _, sup := range []symfile.Supplier{symfile.ChainSupplier{syms, elfSup}, elfSup} {
			d, err := minidump.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			st, err := processor.Process(d, sup, processor.Options{Native: elfSup})
			d.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, th := range st.Threads {
				var callee *processor.Frame
				for i := range th.Frames {
					f := th.Frames[i]
					if f.Trust == walker.TrustInline {
						continue
					}
					if callee != nil && (f.Rule == walker.RuleModulePrologue || f.Rule == walker.RuleCFI) {
						if f.Rule == walker.RuleModulePrologue {
							named++
							if f.Trust != walker.TrustCFI {
								t.Errorf("%s thread %d frame %d: rule %s, trust %s", c.name, th.ID, i, f.Rule, f.Trust)
							}
						}
						if tables, ok := unwindTablesCover(elfSup, sup, callee); ok && tables != (f.Rule == walker.RuleCFI) {
							t.Errorf("%s thread %d frame %d: rule %s, but the callee at %#x has unwind rules: %v",
								c.name, th.ID, i, f.Rule, callee.Instruction, tables)
						}
					}
					callee = f
				}
			}
		}
	}
	if named == 0 {
		t.Fatal("no frame unwound by a prologue of the modules' files")
	}
	t.Logf("%d frames unwound by the modules' files' prologues", named)
}

// unwindTablesCover reports whether callee's instruction has unwind rules
// in its symbol file (from sup) or its module file's tables; ok is false
// when callee lies in no module whose file elfSup found.
func unwindTablesCover(elfSup *Supplier, sup symfile.Supplier, callee *processor.Frame) (covered, ok bool) {
	if callee.Module == nil {
		return false, false
	}
	nm, isModule := elfSup.Native(callee.Module.Key()).(*Module)
	if !isModule || nm == nil {
		return false, false
	}
	rel := callee.Instruction - callee.Module.SymbolBase
	if file, err := sup.Symbols(callee.Module.Key()); err == nil && file != nil {
		if _, ok := file.CFIRules(rel); ok {
			return true, true
		}
	}
	if nm.file != nil {
		if _, ok := nm.file.CFIRules(rel); ok {
			return true, true
		}
	}
	return false, true
}
