package dumpsyms

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/dwarfsyms"
)

// symbols is the FUNC and PUBLIC part of a module, built as Breakpad's
// Module: PUBLIC records from the symbol tables first, then each unit's
// functions, a function replacing the PUBLIC record at its address.
type symbols struct {
	li       loadInfo
	arm      bool
	multiple bool // dump_syms -m

	externs   map[uint64]*public
	funcs     map[funcKey]*function
	funcAddrs map[uint64]*function // the least-named function at each address
	files     []string
}

type funcKey struct {
	addr uint64
	name string
}

type function struct {
	*dwarfsyms.Func
	multiple bool
}

func newSymbols(pubs []public, li loadInfo, machine elf.Machine, multiple bool) *symbols {
	s := &symbols{li: li, arm: machine == elf.EM_ARM, multiple: multiple,
		externs: make(map[uint64]*public, len(pubs)), funcs: map[funcKey]*function{}, funcAddrs: map[uint64]*function{}}
	for i := range pubs {
		s.externs[pubs[i].addr] = &pubs[i]
	}
	return s
}

// add is Breakpad's Module::AddFunction.
func (s *symbols) add(fn *dwarfsyms.Func) bool {
	addr := fn.Addr()
	if !s.li.contains(addr) {
		return false
	}
	f := &function{Func: fn}
	ext, ok := s.externs[addr]
	if !ok && s.arm && addr&1 == 0 {
		ext, ok = s.externs[addr|1]
	}
	if ok {
		if s.multiple {
			mismatch := ext.name != fn.Name
			if mismatch && (fn.Name == dwarfsyms.NameOmitted || strings.Contains(ext.name, fn.Name)) {
				// The PUBLIC is the same symbol under its full name.
				mismatch = false
			}
			f.multiple = f.multiple || mismatch || ext.multiple
		}
		delete(s.externs, ext.addr)
	}
	if first, ok := s.funcAddrs[addr]; ok && s.multiple {
		first.multiple = true
		return false
	}
	key := funcKey{addr, fn.Name}
	if _, dup := s.funcs[key]; dup {
		return false
	}
	s.funcs[key] = f
	// Breakpad marks the first function at the address in its set's
	// order: the least name.
	if first, ok := s.funcAddrs[addr]; !ok || f.Name < first.Name {
		s.funcAddrs[addr] = f
	}
	return true
}

// readDWARF adds the functions of f's DWARF data.
func (s *symbols) readDWARF(f *elf.File, opts Options) error {
	return s.keepFiles(dwarfsyms.Read(f, dwarfOptions(opts), s.add))
}

func dwarfOptions(opts Options) dwarfsyms.Options {
	return dwarfsyms.Options{Inlines: opts.Inlines, NoInterCURefs: opts.NoInterCURefs,
		BreakpadRanges: opts.BreakpadCompat, NoLexicalBlocks: opts.BreakpadCompat}
}

// keepFiles keeps the file names of a DWARF read; a file without DWARF
// has none.
func (s *symbols) keepFiles(d *dwarfsyms.Data, err error) error {
	if errors.Is(err, dwarfsyms.ErrNoDWARF) {
		return nil
	}
	if err != nil {
		return err
	}
	s.files = d.Files
	return nil
}

// write writes the FILE, INLINE_ORIGIN, FUNC (with their INLINE and line
// records) and PUBLIC records as Breakpad's Module::Write.
func (s *symbols) write(w *bufio.Writer) {
	funcs := make([]*function, 0, len(s.funcs))
	for _, f := range s.funcs {
		funcs = append(funcs, f)
	}
	sort.Slice(funcs, func(i, j int) bool {
		a, b := funcs[i], funcs[j]
		if a.Addr() != b.Addr() {
			return a.Addr() < b.Addr()
		}
		return a.Name < b.Name
	})
	// Files cited by lines and calls, numbered in name order.
	cited := map[int]bool{}
	origins := map[string]int{}
	for _, f := range funcs {
		for _, l := range f.Lines {
			cited[l.File] = true
		}
		forEach(f.Inlines, func(in *dwarfsyms.Inline) {
			if in.CallFile >= 0 {
				cited[in.CallFile] = true
			}
			origins[in.Origin.Name] = 0
		})
	}
	fileIdx := make([]int, 0, len(cited))
	for i := range cited {
		fileIdx = append(fileIdx, i)
	}
	sort.Slice(fileIdx, func(i, j int) bool { return s.files[fileIdx[i]] < s.files[fileIdx[j]] })
	fileID := make(map[int]int, len(fileIdx))
	for id, i := range fileIdx {
		fileID[i] = id
		fmt.Fprintf(w, "FILE %d %s\n", id, s.files[i])
	}
	names := make([]string, 0, len(origins))
	for n := range origins {
		names = append(names, n)
	}
	sort.Strings(names)
	for id, n := range names {
		origins[n] = id
		fmt.Fprintf(w, "INLINE_ORIGIN %d %s\n", id, n)
	}
	base := s.li.base
	var b []byte
	for _, f := range funcs {
		li := 0
		for _, r := range f.Ranges {
			b = append(b[:0], "FUNC "...)
			if f.multiple && s.multiple {
				b = append(b, "m "...)
			}
			b = strconv.AppendUint(b, r.Addr-base, 16)
			b = append(b, ' ')
			b = strconv.AppendUint(b, r.Size, 16)
			b = append(b, " 0 "...)
			b = append(b, f.Name...)
			b = append(b, '\n')
			w.Write(b)
			forEach(f.Inlines, func(in *dwarfsyms.Inline) {
				file := -1
				if in.CallFile >= 0 {
					file = fileID[in.CallFile]
				}
				b = fmt.Appendf(b[:0], "INLINE %d %d %d %d", in.Level, in.CallLine, file, origins[in.Origin.Name])
				for _, ir := range in.Ranges {
					b = append(b, ' ')
					b = strconv.AppendUint(b, ir.Addr-base, 16)
					b = append(b, ' ')
					b = strconv.AppendUint(b, ir.Size, 16)
				}
				b = append(b, '\n')
				w.Write(b)
			})
			for ; li < len(f.Lines) && f.Lines[li].Addr >= r.Addr && f.Lines[li].Addr-r.Addr < r.Size; li++ {
				l := f.Lines[li]
				b = strconv.AppendUint(b[:0], l.Addr-base, 16)
				b = append(b, ' ')
				b = strconv.AppendUint(b, l.Size, 16)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(l.Number), 10)
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(fileID[l.File]), 10)
				b = append(b, '\n')
				w.Write(b)
			}
		}
	}
	pubs := make([]*public, 0, len(s.externs))
	for _, p := range s.externs {
		pubs = append(pubs, p)
	}
	sort.Slice(pubs, func(i, j int) bool { return pubs[i].addr < pubs[j].addr })
	for _, p := range pubs {
		b = append(b[:0], "PUBLIC "...)
		if p.multiple && s.multiple {
			b = append(b, "m "...)
		}
		b = strconv.AppendUint(b, p.addr-base, 16)
		b = append(b, " 0 "...)
		b = append(b, p.name...)
		b = append(b, '\n')
		w.Write(b)
	}
}

func forEach(ins []*dwarfsyms.Inline, fn func(*dwarfsyms.Inline)) {
	for _, in := range ins {
		fn(in)
		forEach(in.Children, fn)
	}
}
