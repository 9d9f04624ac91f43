package dumpsyms

import (
	"bufio"
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
)

// maxFuncLines bounds the line records of one function (hostile PDBs).
const maxFuncLines = 1 << 20

type symLine struct {
	rva, len, line uint32
	file           int
}

func (l symLine) end() uint32 { return l.rva + l.len }

// lineMap is a function's line records without overlaps: a line added
// over others replaces the bytes it covers, as Breakpad's Lines::AddLine
// lets inlined code's lines replace the call site's.
type lineMap struct{ lines []symLine }

// moduleLines is a module's line records sorted by address, made once:
// each function then finds its own by binary search.
func (s *symWriter) moduleLines(mi *pdb.ModuleInfo) []pdb.Line {
	if ls, ok := s.sortedLines[mi]; ok {
		return ls
	}
	ls := append([]pdb.Line(nil), mi.Lines...)
	sort.SliceStable(ls, func(i, j int) bool {
		return ls[i].Section < ls[j].Section || ls[i].Section == ls[j].Section && ls[i].Offset < ls[j].Offset
	})
	s.sortedLines[mi] = ls
	return ls
}

func (m *lineMap) add(l symLine) {
	if l.len == 0 || len(m.lines) >= maxFuncLines {
		return
	}
	// Lines come in address order: append without searching.
	if n := len(m.lines); n == 0 || m.lines[n-1].end() <= l.rva {
		m.lines = append(m.lines, l)
		return
	}
	// The lines overlapping l are those from the first ending after its
	// start to the last starting before its end: only they are cut.
	i := sort.Search(len(m.lines), func(i int) bool { return m.lines[i].end() > l.rva })
	j := i
	var keep []symLine
	for ; j < len(m.lines) && m.lines[j].rva < l.end(); j++ {
		o := m.lines[j]
		if o.rva < l.rva {
			left := o
			left.len = l.rva - o.rva
			keep = append(keep, left)
		}
		if o.end() > l.end() {
			right := o
			right.rva, right.len = l.end(), o.end()-l.end()
			keep = append(keep, right)
		}
	}
	keep = append(keep, l)
	sort.Slice(keep, func(a, b int) bool { return keep[a].rva < keep[b].rva })
	m.lines = append(m.lines[:i], append(keep, m.lines[j:]...)...)
}

// at returns the line covering rva.
func (m *lineMap) at(rva uint32) (symLine, bool) {
	i := sort.Search(len(m.lines), func(i int) bool { return m.lines[i].end() > rva })
	if i < len(m.lines) && m.lines[i].rva <= rva {
		return m.lines[i], true
	}
	return symLine{}, false
}

type pdbInline struct {
	depth, callLine, callFile, origin int
	ranges                            [][2]uint32
	children                          []*pdbInline
}

func (s *symWriter) writeFunc(w *bufio.Writer, named, fn *pdbFunc, multiple bool) {
	name, params := s.funcName(named)
	if params < 0 {
		params = s.stackParamSize(named.proc)
	}
	fmt.Fprintf(w, "FUNC %s%x %x %x %s\n", mFlag(multiple), named.rva, named.proc.Len, params, name)
	var lm lineMap
	end := fn.proc.Offset + fn.proc.Len
	lines := s.moduleLines(fn.mod)
	i := sort.Search(len(lines), func(i int) bool {
		return lines[i].Section > fn.proc.Section || lines[i].Section == fn.proc.Section && lines[i].Offset >= fn.proc.Offset
	})
	for ; i < len(lines) && lines[i].Section == fn.proc.Section && lines[i].Offset < end; i++ {
		l := lines[i]
		lm.add(symLine{rva: fn.rva + l.Offset - fn.proc.Offset, len: l.Len, line: l.Line, file: s.moduleFile(fn.mod, l.File)})
	}
	if s.inlines {
		for _, in := range s.inlineSites(fn, fn.proc.Inlines, &lm, 0) {
			writeInline(w, in)
		}
	}
	for _, l := range lm.lines {
		fmt.Fprintf(w, "%x %x %d %d\n", l.rva, l.len, l.line, l.file)
	}
}

// moduleFile is the FILE id of a module's file checksum offset, 0 when it
// names no file.
func (s *symWriter) moduleFile(mi *pdb.ModuleInfo, off uint32) int {
	name, err := mi.FileName(off)
	if err != nil {
		return 0
	}
	return s.fileID(name)
}

// inlineSites builds the INLINE records of sites as Breakpad's GetInlines
// does: the call site's line and file are those the line map gives the
// first range before the inlinee's own lines are laid over it.
func (s *symWriter) inlineSites(fn *pdbFunc, sites []*pdb.InlineSite, lm *lineMap, depth int) []*pdbInline {
	var out []*pdbInline
	for _, site := range sites {
		in := &pdbInline{depth: depth, origin: s.origin(fn.mod, site.Inlinee)}
		first := true
		for _, r := range site.Ranges {
			if r.Len == 0 || r.Offset < fn.proc.Offset {
				continue
			}
			l := symLine{rva: fn.rva + r.Offset - fn.proc.Offset, len: r.Len, line: r.Line, file: s.moduleFile(fn.mod, r.File)}
			if first {
				if call, ok := lm.at(l.rva); ok {
					in.callLine, in.callFile = int(call.line), call.file
				}
				first = false
			}
			lm.add(l)
			in.ranges = append(in.ranges, [2]uint32{l.rva, l.len})
		}
		in.ranges = mergeRanges(in.ranges)
		if depth < 64 {
			in.children = s.inlineSites(fn, site.Children, lm, depth+1)
		}
		out = append(out, in)
	}
	return out
}

func mergeRanges(rs [][2]uint32) [][2]uint32 {
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	var out [][2]uint32
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1][0]+out[n-1][1] == r[0] {
			out[n-1][1] += r[1]
			continue
		}
		out = append(out, r)
	}
	return out
}

func writeInline(w *bufio.Writer, in *pdbInline) {
	if len(in.ranges) > 0 {
		fmt.Fprintf(w, "INLINE %d %d %d %d", in.depth, in.callLine, in.callFile, in.origin)
		for _, r := range in.ranges {
			fmt.Fprintf(w, " %x %x", r[0], r[1])
		}
		w.WriteByte('\n')
	}
	for _, c := range in.children {
		writeInline(w, c)
	}
}

// origin numbers inlined functions by name in first-seen order.
func (s *symWriter) origin(mi *pdb.ModuleInfo, id uint32) int {
	name := ""
	if global, err := s.f.ResolveID(mi, id); err == nil {
		name, _, _ = s.ipi.FuncID(global, s.tpi)
	}
	if name == "" {
		name = "<name omitted>"
	}
	if n, ok := s.origins[name]; ok {
		return n
	}
	s.origins[name] = len(s.order)
	s.order = append(s.order, name)
	return len(s.order) - 1
}

func (s *symWriter) writeOrigins(w *bufio.Writer) {
	for i, name := range s.order {
		fmt.Fprintf(w, "INLINE_ORIGIN %d %s\n", i, name)
	}
}

// writeStackWin writes STACK WIN records from FrameData (type 4) and FPO
// data (types 0-3), in that order, as DIA enumerates them for Breakpad's
// dump_syms; consecutive records of the same type, RVA, size and prolog
// are written once. Programs lose the trailing space the compiler leaves.
func writeStackWin(w *bufio.Writer, f *pdb.File) error {
	fd, err := f.FrameData()
	if err != nil {
		return err
	}
	fpo, err := f.FPO()
	if err != nil {
		return err
	}
	var last [4]uint32
	seen := false
	emit := func(key [4]uint32, rest string) {
		if seen && key == last {
			return
		}
		last, seen = key, true
		fmt.Fprintf(w, "STACK WIN %x %x %x %x 0 %s\n", key[0], key[1], key[2], key[3], rest)
	}
	for _, e := range fd {
		emit([4]uint32{4, e.RVA, e.CodeSize, uint32(e.PrologSize)},
			fmt.Sprintf("%x %x %x %x 1 %s", e.ParamsSize, e.SavedRegsSize, e.LocalSize, e.MaxStackSize, trimProgram(e.Program)))
	}
	for _, e := range fpo {
		bp := 0
		if e.UsesBP {
			bp = 1
		}
		emit([4]uint32{uint32(e.FrameKind), e.RVA, e.Size, uint32(e.Prolog)},
			fmt.Sprintf("%x %x %x 0 0 %d", e.Params, uint32(e.SavedRegs)*4, e.Locals, bp))
	}
	return nil
}

func trimProgram(p string) string {
	for len(p) > 0 && (p[len(p)-1] == ' ' || p[len(p)-1] == '\t') {
		p = p[:len(p)-1]
	}
	return p
}
