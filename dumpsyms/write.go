package dumpsyms

import (
	"bufio"
	"debug/elf"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
	"github.com/minidump-stackwalk/minidump-stackwalk/elfsym"
)

// Options select what Write writes, as dump_syms' flags.
type Options struct {
	HeaderOnly bool   // -i: MODULE and INFO only
	NoCFI      bool   // -c: no STACK CFI records
	Name       string // -n: the module name instead of the file's
	OS         string // -o: the OS name instead of "Linux"
	// BreakpadCompat writes the records of Google's dump_syms only: no
	// STACK CFI rules from DWARF expressions, no .debug_frame entries of
	// CIEs without 'z' augmentation, no .ARM.exidx entries, no PUBLIC
	// records from MiniDebugInfo.
	BreakpadCompat bool
	Inlines        bool // -d: INLINE and INLINE_ORIGIN records
	Multiple       bool // -m: the 'm' flag on FUNC and PUBLIC records
	NoInterCURefs  bool // -r: no DW_AT_specification references to earlier units
}

// WriteWithDebug is Write with f's separate debug file (nil for none), read
// as Google's dump_syms reads a .gnu_debuglink file: its function symbols
// are added to f's (the first at an address wins) and its .debug_frame
// entries follow f's CFI.
func WriteWithDebug(w io.Writer, f, debug *elf.File, path string, opts Options) error {
	m, err := ModuleOf(f, path)
	if err != nil {
		return err
	}
	if opts.Name != "" {
		m.Name = opts.Name
	}
	if opts.OS != "" {
		m.OS = opts.OS
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "MODULE %s %s %s %s\n", m.OS, m.Arch, m.ID, m.Name)
	fmt.Fprintf(bw, "INFO CODE_ID %s\n", m.CodeID)
	if opts.HeaderOnly {
		return bw.Flush()
	}
	li := loadInfoOf(f)
	pubs := publics(f, li)
	// The DWARF data: f's, else (as Google's dump_syms follows
	// .gnu_debuglink only from a file without .debug_info) the debug file's.
	dwarfFile := f
	if debug != nil && f.Section(".debug_info") == nil {
		pubs = mergePublics(pubs, publics(debug, li), true)
		dwarfFile = debug
	}
	if !opts.BreakpadCompat {
		// MiniDebugInfo (Fedora's .gnu_debugdata): the function symbols a
		// stripped file keeps for backtraces; Google's dump_syms ignores it.
		for _, file := range []*elf.File{f, debug} {
			if file == nil {
				continue
			}
			if mini, err := elfsym.MiniDebugInfo(file); err == nil && mini != nil {
				pubs = mergePublics(pubs, publics(mini, li), false)
			}
		}
	}
	syms := newSymbols(pubs, li, f.Machine, opts.Multiple)
	if err := syms.readDWARF(dwarfFile, opts); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	syms.write(bw)
	if !opts.NoCFI {
		entries, err := cfiEntries(f, li, opts.BreakpadCompat)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if debug != nil {
			if t, err := elfcfi.FromELF(debug); err == nil && t.DebugFrame != nil {
				entries = append(entries, dwarfEntries(t.DebugFrame, debug.Machine, li, opts.BreakpadCompat)...)
			}
		}
		writeCFI(bw, entries, li.base)
	}
	return bw.Flush()
}

// writeCFI writes entries as STACK CFI INIT and STACK CFI records, their
// addresses relative to base.
func writeCFI(bw *bufio.Writer, entries []*cfiEntry, base uint64) {
	var b strings.Builder
	for _, e := range entries {
		b.Reset()
		fmt.Fprintf(&b, "STACK CFI INIT %x %x ", e.addr-base, e.size)
		writeRules(&b, e.initial)
		b.WriteByte('\n')
		addrs := make([]uint64, 0, len(e.changes))
		for a := range e.changes {
			addrs = append(addrs, a)
		}
		sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
		for _, a := range addrs {
			fmt.Fprintf(&b, "STACK CFI %x ", a-base)
			writeRules(&b, e.changes[a])
			b.WriteByte('\n')
		}
		bw.WriteString(b.String())
	}
}

// cfiEntries converts .debug_frame, then .eh_frame, then (32-bit ARM)
// the .ARM.exidx entries of code neither covers.
func cfiEntries(f *elf.File, li loadInfo, compat bool) ([]*cfiEntry, error) {
	tables, err := elfcfi.FromELF(f)
	if err != nil {
		return nil, err
	}
	var out []*cfiEntry
	for _, t := range []struct {
		s    *elfcfi.Section
		name string
	}{{tables.DebugFrame, ".debug_frame"}, {tables.EHFrame, ".eh_frame"}} {
		if t.s != nil && (!compat || progbits(f, t.name)) {
			out = append(out, dwarfEntries(t.s, f.Machine, li, compat)...)
		}
	}
	if tables.Exidx != nil && !compat {
		out = append(out, exidxEntries(tables.Exidx, f, li, out)...)
	}
	return out, nil
}

// progbits reports whether f's section name has type SHT_PROGBITS. Google's
// dump_syms looks its CFI sections up by name and that type, so it reads no
// .eh_frame of type SHT_X86_64_UNWIND (as lld writes it: libLLVM-14 and -15
// in Debian 12).
func progbits(f *elf.File, name string) bool {
	s := f.Section(name)
	return s != nil && s.Type == elf.SHT_PROGBITS
}
