package dumpsyms

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/demangle"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
)

// symWriter gathers a PDB's functions, lines, inlines and publics by RVA.
type symWriter struct {
	f        *pdb.File
	x86      bool
	inlines  bool
	tpi      *pdb.TypeStream
	ipi      *pdb.TypeStream
	files    []string       // FILE records, id = index + 1
	fileIDs  map[string]int // name -> id
	funcs    map[uint32][]*pdbFunc
	contribs []pdb.SectionContrib
	publics  map[uint32][]pdb.Public
	origins  map[string]int // INLINE_ORIGIN name -> id
	order    []string       // origins by id
	// sortedLines are the modules' lines by address (moduleLines).
	sortedLines map[*pdb.ModuleInfo][]pdb.Line
}

type pdbFunc struct {
	proc  *pdb.Proc
	mod   *pdb.ModuleInfo
	modNo int
	rva   uint32
}

func newSymWriter(f *pdb.File, x86 bool) (*symWriter, error) {
	tpi, err := f.Types()
	if err != nil {
		return nil, err
	}
	ipi, err := f.IDs()
	if err != nil {
		return nil, err
	}
	return &symWriter{f: f, x86: x86, tpi: tpi, ipi: ipi, fileIDs: map[string]int{},
		funcs: map[uint32][]*pdbFunc{}, publics: map[uint32][]pdb.Public{}, origins: map[string]int{},
		sortedLines: map[*pdb.ModuleInfo][]pdb.Line{}}, nil
}

// collect reads every module's procedures and files and the code publics.
func (s *symWriter) collect() error {
	d, err := s.f.DBI()
	if err != nil {
		return err
	}
	s.contribs = d.SectionContribs
	read := map[uint16]bool{}
	for i := range d.Modules {
		// A stream belongs to one module: a hostile DBI naming one large
		// stream for every module would have it read again for each.
		if sn := d.Modules[i].SymStream; sn != pdb.NoStream {
			if read[sn] {
				continue
			}
			read[sn] = true
		}
		mi, err := s.f.ModuleInfo(&d.Modules[i])
		if err != nil {
			return err
		}
		for _, off := range mi.FileOffsets() {
			name, err := mi.FileName(off)
			if err != nil {
				return err
			}
			s.fileID(name)
		}
		for _, p := range mi.Procs {
			if p.Thunk || p.Len == 0 {
				continue
			}
			rva, ok := s.f.RVA(p.Section, p.Offset)
			if !ok {
				continue
			}
			s.funcs[rva] = append(s.funcs[rva], &pdbFunc{proc: p, mod: mi, modNo: i, rva: rva})
		}
	}
	pubs, err := s.f.Publics()
	if err != nil {
		return err
	}
	for _, p := range pubs {
		if rva, ok := s.f.RVA(p.Section, p.Offset); ok {
			s.publics[rva] = append(s.publics[rva], p)
		}
	}
	return nil
}

func (s *symWriter) fileID(name string) int {
	if id, ok := s.fileIDs[name]; ok {
		return id
	}
	s.files = append(s.files, name)
	s.fileIDs[name] = len(s.files)
	return len(s.files)
}

func (s *symWriter) writeFiles(w *bufio.Writer) {
	for i, name := range s.files {
		fmt.Fprintf(w, "FILE %d %s\n", i+1, name)
	}
}

// writeSymbols writes, by RVA, a FUNC (with its lines and inlines) where
// there is a procedure, else a PUBLIC where there is a code public, as
// Breakpad's PrintFunctions does: of several procedures at one address
// the least name wins and the record is marked 'm'; likewise for publics.
func (s *symWriter) writeSymbols(w *bufio.Writer) {
	rvas := make([]uint32, 0, len(s.funcs)+len(s.publics))
	for rva := range s.funcs {
		rvas = append(rvas, rva)
	}
	for rva := range s.publics {
		if _, ok := s.funcs[rva]; !ok {
			rvas = append(rvas, rva)
		}
	}
	sort.Slice(rvas, func(i, j int) bool { return rvas[i] < rvas[j] })
	for _, rva := range rvas {
		if fs := s.funcs[rva]; len(fs) > 0 {
			best := fs[0]
			for _, f := range fs[1:] {
				if f.proc.Name < best.proc.Name {
					best = f
				}
			}
			s.writeFunc(w, best, s.lineSource(fs, best), len(fs) > 1)
			continue
		}
		var code []pdb.Public
		for _, p := range s.publics[rva] {
			if p.Code || p.Function {
				code = append(code, p)
			}
		}
		if len(code) == 0 {
			continue
		}
		best := code[0]
		for _, p := range code[1:] {
			if p.Name < best.Name {
				best = p
			}
		}
		name, params := s.undecoratePublic(best.Name)
		fmt.Fprintf(w, "PUBLIC %s%x %x %s\n", mFlag(len(code) > 1), rva, max(params, 0), name)
	}
}

// lineSource is the procedure whose lines a folded address gets: that of
// the module the section contributions give the address (as DIA's
// findLinesByRVA finds them), else the named one.
func (s *symWriter) lineSource(fs []*pdbFunc, named *pdbFunc) *pdbFunc {
	if len(fs) == 1 {
		return named
	}
	p := named.proc
	for _, c := range s.contribs {
		if c.Section == p.Section && c.Offset <= p.Offset && p.Offset-c.Offset < c.Size {
			for _, f := range fs {
				if f.modNo == int(c.Module) {
					return f
				}
			}
		}
	}
	return named
}

func mFlag(m bool) string {
	if m {
		return "m "
	}
	return ""
}

// funcName names a procedure as Breakpad's Windows dump_syms does from
// DIA's undecorated names: a C++ function (its public name is decorated,
// "?...") gets its parameter list from its TPI type; a C function's public
// name gives the stack parameter size of __stdcall ("_f@8") and
// __fastcall ("@f@8") functions; params < 0 when the name does not.
func (s *symWriter) funcName(fn *pdbFunc) (name string, params int) {
	name, params = fn.proc.Name, -1
	for _, p := range s.publics[fn.rva] {
		if strings.HasPrefix(p.Name, "?") {
			if args, ok := s.procArgs(fn.proc); ok {
				return name + args, -1
			}
			return name, -1
		}
	}
	// A C function: its public's name, undecorated ("_main" is main,
	// "__SEH_prolog4" _SEH_prolog4, "_f@8" f with 8 bytes of parameters).
	// Of the publics at a folded address, the procedure's own.
	for _, p := range s.publics[fn.rva] {
		if n, size := s.undecoratePublic(p.Name); n != p.Name && (n == name || p.Name == name) {
			return n, size
		}
	}
	return name, -1
}

func (s *symWriter) procArgs(p *pdb.Proc) (string, bool) {
	return s.tpi.ArgList(s.procType(p))
}

// procType is the TPI type of a procedure (through its IPI id for the _ID
// kinds); 0 when unknown.
func (s *symWriter) procType(p *pdb.Proc) uint32 {
	if !p.TypeIsID {
		return p.Type
	}
	_, typ, _ := s.ipi.FuncID(p.Type, s.tpi)
	return typ
}

// undecoratePublic undecorates a public's name as Breakpad does: a C++
// name ("?f@@YAXH@Z") as DbgHelp does with Breakpad's flags ("f(int)",
// demangle.MSVC); on x86 "_f" is f, "_f@8" is f with 8 bytes of stack
// parameters, "@f@8" f with the 8 bytes beyond the two register
// parameters. Other names are kept.
func (s *symWriter) undecoratePublic(name string) (string, int) {
	if strings.HasPrefix(name, "?") {
		if n, ok := demangle.MSVC(name); ok {
			return n, -1
		}
		return name, -1
	}
	if !s.x86 || strings.ContainsAny(name, ":(?") || name == "" || (name[0] != '_' && name[0] != '@') {
		return name, -1
	}
	if at := strings.LastIndexByte(name[1:], '@'); at >= 0 {
		digits := name[at+2:]
		if n, err := strconv.Atoi(digits); err == nil && n >= 0 && (digits == "0" || digits[0] != '0') {
			if name[0] == '@' {
				n = max(n-8, 0)
			}
			return name[1 : at+1], n
		}
	}
	if name[0] == '_' {
		return name[1:], -1
	}
	return name, -1
}

// stackParamSize is Breakpad's GetFunctionStackParamSize: the span of the
// EBP-relative parameters (at least EBP+4), the last rounded up to 4
// bytes. DIA's register-relative parameters are a procedure's first
// S_REGREL32 records, one per parameter of its type (main's argc and argv,
// not its local eh; WriteMinidumpWithExceptionForProcess's bool at EBP+0,
// which has no S_LOCAL); S_BPREL32 and S_LOCAL records do not count
// (operator new in crash.pdb has its parameter at EBP+8 in an S_BPREL32
// and Breakpad writes 0). TestCrashSymRecords checks every FUNC's size.
func (s *symWriter) stackParamSize(p *pdb.Proc) int {
	if !s.x86 {
		return 0
	}
	n, ok := s.tpi.ParamCount(s.procType(p))
	if !ok {
		return 0
	}
	lowest, highest := int64(1<<31), int64(-1<<31)
	for _, v := range p.FrameVars {
		if v.Local || v.BPRel {
			continue
		}
		if n--; n < 0 {
			break
		}
		if v.Register != 22 {
			continue
		}
		size, ok := s.tpi.Size(v.Type)
		if !ok {
			continue
		}
		lowest = min(lowest, int64(v.Offset))
		highest = max(highest, int64(v.Offset)+int64(size))
	}
	lowest = max(lowest, 4)
	if highest <= lowest {
		return 0
	}
	if r := highest % 4; r != 0 {
		highest += 4 - r
	}
	return int(highest - lowest)
}
