package dumpsyms

import (
	"bufio"
	"debug/elf"
	"debug/macho"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/compactunwind"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
)

// WriteMachO writes the symbol file of a Mach-O image as Breakpad's Mac
// dump_syms does: bin is the binary (its symbol table, __unwind_info and
// __eh_frame), dsym the DWARF file of its dSYM bundle (FILE, FUNC, line
// and INLINE records, and its symbol table); either may be nil. path names
// the module (its base name) and the file in errors. Without bin there is
// no STACK CFI: a dSYM keeps the sections' headers, not their bytes.
//
// STACK CFI: with Options.BreakpadCompat, the __eh_frame FDEs only, as
// Breakpad's Mac dump_syms writes them; else one record per function of
// each compact unwind entry with rules (compactunwind.Entry.Rows: a
// function entry's rules at its first instruction, the encoding's after
// the prologue), the __eh_frame FDE for entries in DWARF mode and for
// code compact unwind does not describe (docs/macos.md).
func WriteMachO(w io.Writer, bin, dsym *machofile.File, path string, opts Options) error {
	main := bin
	if main == nil {
		main = dsym
	}
	if main == nil {
		return fmt.Errorf("%s: no Mach-O file", path)
	}
	if bin != nil && dsym != nil && bin.UUID != dsym.UUID {
		return fmt.Errorf("%s: the dSYM's UUID %s is not the binary's %s", path, dsym.DebugID(), bin.DebugID())
	}
	if !main.HasUUID {
		return fmt.Errorf("%s: no LC_UUID: the module has no debug id", path)
	}
	name, osName := filepath.Base(path), "mac"
	if opts.Name != "" {
		name = opts.Name
	}
	if opts.OS != "" {
		osName = opts.OS
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "MODULE %s %s %s %s\n", osName, main.Arch, main.DebugID(), name)
	if opts.HeaderOnly {
		return bw.Flush()
	}
	li := loadInfo{base: main.TextAddr}
	symtab := main
	if dsym != nil && dsym.Symtab != nil {
		symtab = dsym
	}
	pubs, err := machoPublics(symtab)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	machine := elf.EM_X86_64
	if strings.HasPrefix(main.Arch, "arm64") {
		machine = elf.EM_AARCH64
	}
	syms := newSymbols(pubs, li, machine, opts.Multiple)
	dwarfFile := dsym
	if dwarfFile == nil {
		dwarfFile = bin
	}
	if err := syms.readMachODWARF(dwarfFile, opts); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	syms.write(bw)
	if bin != nil && !opts.NoCFI {
		entries, err := machoCFI(bin, machine, li, opts.BreakpadCompat)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		writeCFI(bw, entries, li.base)
	}
	return bw.Flush()
}

// readMachODWARF adds the functions of f's __DWARF sections.
func (s *symbols) readMachODWARF(f *machofile.File, opts Options) error {
	var secErr error
	sec := func(name string) []byte {
		data, _, err := f.SectionData("__DWARF", name)
		if err != nil && secErr == nil {
			secErr = err
		}
		return data
	}
	ds := &dwarfsyms.Sections{Info: sec("__debug_info"), Abbrev: sec("__debug_abbrev"), Line: sec("__debug_line"),
		Str: sec("__debug_str"), LineStr: sec("__debug_line_str"), Ranges: sec("__debug_ranges"),
		RngLists: sec("__debug_rnglists"), Addr: sec("__debug_addr"), StrOffsets: sec("__debug_str_offs"),
		Order: binary.LittleEndian}
	if secErr != nil {
		return secErr
	}
	_, addrSec, _ := f.SectionData("__DWARF", "__debug_addr")
	ds.HasAddr = addrSec != nil
	return s.keepFiles(dwarfsyms.ReadSections(ds, dwarfOptions(opts), s.add))
}

// machoPublics reads the symbols of f's symbol table that are defined in
// a section (N_SECT, not debugging stabs), as Breakpad's Mac dump_syms:
// code and data alike, one leading underscore dropped, C++ names
// demangled, the first symbol at an address winning.
func machoPublics(f *machofile.File) ([]public, error) {
	all, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	const nStab, nType, nSect = 0xe0, 0x0e, 0x0e
	seen := map[uint64]int{}
	var out []public
	for _, s := range all {
		if s.Type&nStab != 0 || s.Type&nType != nSect {
			continue
		}
		if i, ok := seen[s.Value]; ok {
			out[i].multiple = true
			continue
		}
		seen[s.Value] = len(out)
		out = append(out, public{addr: s.Value, name: demangleMachO(strings.TrimPrefix(s.Name, "_"))})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out, nil
}

// demangleMachO demangles as macOS's __cxa_demangle: a clone suffix
// (".0", ".cold.1") is printed after the name in parentheses.
func demangleMachO(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return demangleName(name)
	}
	if d, err := dwarfsyms.Demangle(name); err == nil {
		return d
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if d, err := dwarfsyms.Demangle(name[:i]); err == nil {
			return d + " (" + name[i:] + ")"
		}
	}
	return name
}

// machoCFI converts bin's unwind tables (see WriteMachO).
func machoCFI(bin *machofile.File, machine elf.Machine, li loadInfo, compat bool) ([]*cfiEntry, error) {
	eh, err := machoEHFrame(bin, machine)
	if err != nil {
		return nil, err
	}
	var fdes []*cfiEntry
	if eh != nil {
		fdes = dwarfEntries(eh, machine, li, compat)
	}
	if compat {
		return fdes, nil
	}
	data, _, err := bin.SectionData("__TEXT", "__unwind_info")
	if err != nil || data == nil {
		return fdes, err
	}
	arch := compactunwind.X86_64
	if machine == elf.EM_AARCH64 {
		arch = compactunwind.ARM64
	}
	tab, err := compactunwind.Parse(data, bin.TextAddr, arch)
	if err != nil {
		return nil, err
	}
	starts, _ := bin.FunctionStarts() // without them, merged entries stay whole
	return mergeCompact(tab, fdes, eh, codeReader(bin), starts), nil
}

func machoEHFrame(bin *machofile.File, machine elf.Machine) (*elfcfi.Section, error) {
	data, sec, err := bin.SectionData("__TEXT", "__eh_frame")
	if err != nil || data == nil {
		return nil, err
	}
	arch := elfcfi.Arch{Machine: machine, Order: binary.LittleEndian, PtrSize: 8}
	if text := bin.Section("__text"); text != nil {
		arch.TextAddr = text.Addr
	}
	return elfcfi.NewEHFrame(data, sec.Addr, nil, 0, arch)
}

// mergeCompact makes one entry per function of each compact unwind entry
// with rules, takes
// the FDE of a DWARF-mode entry, and keeps the FDEs of the code no entry
// with rules covers; the result is in address order.
func mergeCompact(tab *compactunwind.Table, fdes []*cfiEntry, eh *elfcfi.Section, code compactunwind.CodeReader, starts []uint64) []*cfiEntry {
	byAddr := map[uint64]*cfiEntry{}
	for _, e := range fdes {
		byAddr[e.addr] = e
	}
	used := map[*cfiEntry]bool{}
	var out []*cfiEntry
	for _, ce := range tab.Entries() {
		if off, ok := ce.DWARFOffset(tab.Arch); ok {
			if eh == nil {
				continue
			}
			fde, err := eh.FDEAt(off)
			if err != nil || fde.Begin != ce.Start {
				// lld 14 writes DWARF-mode entries with no offset: take
				// the FDE of the entry's address.
				fde, err = eh.Find(ce.Start)
			}
			if err == nil && byAddr[fde.Begin] != nil && !used[byAddr[fde.Begin]] {
				used[byAddr[fde.Begin]] = true
				out = append(out, byAddr[fde.Begin])
			}
			continue
		}
		for _, part := range splitAtStarts(ce, starts) {
			rows, err := part.Rows(tab.Arch, code)
			if err != nil {
				break
			}
			e := &cfiEntry{addr: part.Start, size: part.End - part.Start, initial: map[string]string(rows[0].Rules),
				changes: map[uint64]map[string]string{}}
			for _, r := range rows[1:] {
				e.changes[r.Addr] = map[string]string(r.Rules)
			}
			out = append(out, e)
		}
	}
	// Compact unwind is what the system's unwinder uses: an FDE is kept
	// only for code no entry with rules covers (ld64 merges neighbours of
	// one encoding into one entry, so FDEs may start inside an entry).
	covered := func(addr uint64) bool {
		ce, ok := tab.Find(addr)
		if !ok {
			return false
		}
		_, dwarf := ce.DWARFOffset(tab.Arch)
		_, err := ce.Rules(tab.Arch, code)
		return !dwarf && err == nil
	}
	for _, e := range fdes {
		if !used[e] && !covered(e.addr) {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// codeReader reads bin's bytes in its __TEXT sections.
func codeReader(bin *machofile.File) compactunwind.CodeReader {
	cache := map[*macho.Section][]byte{}
	return func(addr uint64, p []byte) error {
		for _, s := range bin.Sections {
			if s.Seg != "__TEXT" || addr < s.Addr || addr-s.Addr >= s.Size || uint64(len(p)) > s.Addr+s.Size-addr {
				continue
			}
			data, ok := cache[s]
			if !ok {
				var err error
				if data, _, err = bin.SectionData(s.Seg, s.Name); err != nil {
					return err
				}
				cache[s] = data
			}
			if uint64(len(data)) < addr-s.Addr+uint64(len(p)) {
				return fmt.Errorf("%#x: outside %s's bytes", addr, s.Name)
			}
			copy(p, data[addr-s.Addr:])
			return nil
		}
		return fmt.Errorf("%#x: not in a __TEXT section", addr)
	}
}

// splitAtStarts splits an entry with rules at the function starts inside
// it (ld64 merges neighbours of one encoding into one entry), so that
// each function's first instruction and prologue get their rows
// (compactunwind.Entry.Rows).
func splitAtStarts(ce compactunwind.Entry, starts []uint64) []compactunwind.Entry {
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > ce.Start })
	var out []compactunwind.Entry
	part := ce
	for ; i < len(starts) && starts[i] < ce.End; i++ {
		part.End = starts[i]
		out = append(out, part)
		part.Start = starts[i]
	}
	part.End = ce.End
	return append(out, part)
}
