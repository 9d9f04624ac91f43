package elfsupplier

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"golang.org/x/arch/x86/x86asm"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/prologue"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// TestProloguesAgreeWithEHFrame checks prologue analysis on amd64, x86
// and arm64 against the compiler's .eh_frame of the stripped crashdemo:
// at every direct call of every FDE's code, the CFA and return address
// rules the prologue read from the FDE's start gives equal the FDE's row
// at the call (the .sym's STACK CFI dumpsyms wrote); a CFA from the
// stack pointer counts as equal to one from the frame pointer when the
// stack adjustment is the row's.
func TestProloguesAgreeWithEHFrame(t *testing.T) {
	root := corpus.Testdata(t)
	for _, c := range []struct {
		arch, codeID string
		min          int
	}{
		// The others are mostly FDEs of split-off cold blocks (.cold),
		// which start with the frame already set up, and on x86 code
		// between pushes the analysis does not pass (the realigning
		// `push -4(%ecx)` of main, PIC thunks other than get_pc_thunk).
		{"amd64", "01603FD802E7BE6529AD592DD70C2F4F2F865095", 93},
		{"x86", "790856497FE6881107D2C11D1A997E737BE86C99", 50},
		{"arm64", "3EF178E6006ABFE068D3E266005170DE18C415CB", 96},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "crashdemo"), corpus.ReadZstd(t, filepath.Join(root, "cores", c.arch+"-crashdemo.zst")), 0o644); err != nil {
			t.Fatal(err)
		}
		sup := New(context.Background(), &elfsym.Locator{Roots: []string{dir}})
		nm, _ := sup.Native(symfile.ModuleKey{CodeFile: "/x/crashdemo", CodeID: c.codeID}).(*Module)
		if nm == nil || nm.file == nil {
			t.Fatalf("%s: no module", c.arch)
		}
		total, agree := 0, 0
		var bad []string
		for _, site := range callSites(nm, fdeStarts(t, filepath.Join(dir, "crashdemo"))) {
			rules, ok := nm.file.CFIRules(site.call)
			if !ok {
				continue
			}
			fr := prologue.Analyze(nm.arch, nm.code(site.start, prologue.MaxBytes), site.start, site.call)
			got := fr.Rules()
			total++
			word := int64(4)
			if nm.arch != prologue.X86 {
				word = 8
			}
			spForm := fmt.Sprintf("sp %d +", fr.SPBelow) // arm64: eh_frame keeps sp after x29 is set
			if nm.arch != prologue.ARM64 {
				spForm = fmt.Sprintf("%s %d +", nm.arch.RegName(4), fr.SPBelow+word)
			}
			if (got[".cfa"] == rules.CFA || rules.CFA == spForm) && got[".ra"] == rules.RA {
				agree++
			} else if len(bad) < 5 {
				bad = append(bad, fmt.Sprintf("%#x (function %#x): eh_frame %s / %s, prologue %s / %s (stop %q)",
					site.call, site.start, rules.CFA, rules.RA, got[".cfa"], got[".ra"], fr.Stop))
			}
		}
		t.Logf("%s: at %d of %d call sites the prologue's CFA and return address equal .eh_frame's; first others: %q", c.arch, agree, total, bad)
		if total < 500 || agree*100 < total*c.min {
			t.Errorf("%s: %d of %d agree, want at least %d%% of at least 500", c.arch, agree, total, c.min)
		}
	}
}

type callSite struct{ start, call uint64 }

// fdeStarts returns the module-relative starts of the .eh_frame FDEs of
// the ELF file at path, sorted.
func fdeStarts(t *testing.T, path string) []uint64 {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tables, err := elfcfi.FromELF(f)
	if err != nil || tables.EHFrame == nil {
		t.Fatalf("%s: no .eh_frame: %v", path, err)
	}
	fdes, err := tables.EHFrame.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var base uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			base = p.Vaddr
			break
		}
	}
	var out []uint64
	for _, fde := range fdes {
		out = append(out, fde.Begin-base)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// callSites lists the direct calls of every function starting at one of
// starts, read in order from the start up to the next start (amd64, x86:
// decoded by x86asm; arm64: every BL).
func callSites(m *Module, starts []uint64) []callSite {
	var out []callSite
	for i, start := range starts {
		end := start + 0x400
		if i+1 < len(starts) && starts[i+1] < end {
			end = starts[i+1]
		}
		code := m.code(start, int(end-start))
		switch m.arch {
		case prologue.ARM64:
			for off := 0; off+4 <= len(code); off += 4 {
				if binary.LittleEndian.Uint32(code[off:])&0xfc000000 == 0x94000000 {
					out = append(out, callSite{start, start + uint64(off)})
				}
			}
		case prologue.X86, prologue.AMD64:
			mode := 32
			if m.arch == prologue.AMD64 {
				mode = 64
			}
			for off := 0; off < len(code); {
				inst, err := x86asm.Decode(code[off:], mode)
				if err != nil || inst.Op == 0 {
					break
				}
				if inst.Op == x86asm.CALL && code[off] == 0xe8 {
					out = append(out, callSite{start, start + uint64(off)})
				}
				off += inst.Len
			}
		}
	}
	return out
}
