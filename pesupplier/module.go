package pesupplier

import (
	"bytes"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Module is one PE image as the walkers' evidence (walker.NativeModule):
// its unwind tables (.pdata/.xdata), its code and its function starts.
// Addresses are RVAs (the module's SymbolBase is its load address).
type Module struct {
	img    *pe.File
	path   string
	x64    []pe.RuntimeFunction
	arm64  []pe.ARM64Function
	starts []uint32 // function starts: unwind entries, exports, the entry point
}

// newModule reads the unwind tables of img, an image held in memory.
func newModule(img *pe.File, path string, exports []pe.Export) (*Module, error) {
	m := &Module{img: img, path: path}
	var err error
	switch img.Machine {
	case pe.MachineAMD64:
		m.x64, err = img.RuntimeFunctions()
		for _, f := range m.x64 {
			m.starts = append(m.starts, f.Begin)
		}
	case pe.MachineARM64:
		m.arm64, err = img.ARM64Functions()
		for _, f := range m.arm64 {
			m.starts = append(m.starts, f.Begin)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, e := range exports {
		if e.RVA != 0 && m.IsCode(uint64(e.RVA)) {
			m.starts = append(m.starts, e.RVA)
		}
	}
	if img.EntryPoint != 0 {
		m.starts = append(m.starts, img.EntryPoint)
	}
	sort.Slice(m.starts, func(i, j int) bool { return m.starts[i] < m.starts[j] })
	return m, nil
}

// CFIRules implements walker.NativeModule: the rules the image's
// exception directory gives at q.Rel, evaluated as Windows' unwinder
// does (see x64Rules, arm64Rules).
func (m *Module) CFIRules(q walker.NativeQuery) (symfile.CFIRules, walker.CFISource, bool) {
	if q.Rel > 0xffffffff {
		return symfile.CFIRules{}, walker.CFISymbols, false
	}
	var rules symfile.CFIRules
	var ok bool
	switch m.img.Machine {
	case pe.MachineAMD64:
		rules, ok = m.x64Rules(uint32(q.Rel), q.Context)
	case pe.MachineARM64:
		rules, ok = m.arm64Rules(uint32(q.Rel), q.Context)
	}
	if !ok {
		return symfile.CFIRules{}, walker.CFISymbols, false
	}
	return rules, walker.CFIUnwindTables, true
}

// FunctionStart implements walker.NativeModule.
func (m *Module) FunctionStart(rel uint64) (uint64, bool) {
	i := sort.Search(len(m.starts), func(i int) bool { return uint64(m.starts[i]) > rel }) - 1
	if i < 0 {
		return 0, false
	}
	return uint64(m.starts[i]), true
}

// IsCode implements walker.NativeModule: rel lies in an executable
// section's file bytes.
func (m *Module) IsCode(rel uint64) bool {
	if rel > 0xffffffff {
		return false
	}
	s := m.img.SectionAt(uint32(rel))
	return s != nil && s.Executable() && uint32(rel)-s.VirtualAddress < s.SizeOfRawData
}

// ReadCode implements walker.NativeModule.
func (m *Module) ReadCode(rel uint64, p []byte) bool {
	if len(p) == 0 || !m.IsCode(rel) || !m.IsCode(rel+uint64(len(p))-1) {
		return false
	}
	return m.img.ReadRVA(uint32(rel), p) == nil
}

// readCodeUpTo reads what of p's length is code at rel, returning how
// many bytes it read.
func (m *Module) readCodeUpTo(rel uint64, p []byte) int {
	for n := len(p); n > 0; n-- {
		if m.ReadCode(rel, p[:n]) {
			return n
		}
		if !m.IsCode(rel) {
			return 0
		}
	}
	return 0
}

// imageBytes is an image read into memory.
func imageBytes(data []byte) (*pe.File, error) {
	return pe.NewFile(bytes.NewReader(data), int64(len(data)))
}

// maxExtent bounds a function's extent when only the next start ends it.
const maxExtent = 1 << 20

// extent is the size of the function starting at rva: its
// RUNTIME_FUNCTION's, else up to the next known start; 0 when unknown.
func (m *Module) extent(rva uint32) uint32 {
	if rf, ok := pe.LookupFunction(m.x64, rva); ok && rf.Begin == rva {
		return rf.End - rf.Begin
	}
	if i := sort.Search(len(m.arm64), func(i int) bool { return m.arm64[i].Begin > rva }) - 1; i >= 0 && m.arm64[i].Begin == rva {
		if n, err := m.img.ARM64FunctionLength(m.arm64[i]); err == nil && n > 0 {
			return n
		}
	}
	i := sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > rva })
	if i == len(m.starts) || m.starts[i]-rva > maxExtent {
		return 0
	}
	return m.starts[i] - rva
}
