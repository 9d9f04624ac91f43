package walkertest

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Memory is one region of memory starting at Base.
type Memory struct {
	Base uint64
	Data []byte
}

var errOutside = errors.New("walkertest: address outside the region")

// ReadMemory implements walker.Memory.
func (m *Memory) ReadMemory(addr uint64, p []byte) error {
	if addr < m.Base || addr-m.Base > uint64(len(m.Data)) || uint64(len(m.Data))-(addr-m.Base) < uint64(len(p)) {
		return errOutside
	}
	copy(p, m.Data[addr-m.Base:])
	return nil
}

// Module returns a loaded module named name (code and debug file) covering [base, base+size).
func Module(index int, name string, base, size uint64) *walker.Module {
	return &walker.Module{Index: index, Base: base, Size: size, CodeFile: name, DebugFile: name, DebugID: "ID" + name, SymbolBase: base}
}

// Symbols is a walker.SymbolSource over symbol file texts keyed by code file.
// Modules without a text have missing symbols.
type Symbols struct {
	files map[string]*symfile.File
}

// NewSymbols parses texts (code file -> .sym text); it fails t on a parse error.
func NewSymbols(t testing.TB, texts map[string]string) *Symbols {
	t.Helper()
	s := &Symbols{files: map[string]*symfile.File{}}
	for name, text := range texts {
		f, err := symfile.NewFile([]byte(text), name+".sym")
		if err != nil {
			t.Fatalf("symbols for %s: %v", name, err)
		}
		s.files[name] = f
	}
	return s
}

// Symbols implements walker.SymbolSource.
func (s *Symbols) Symbols(m *walker.Module) (*symfile.File, walker.SymbolStatus) {
	if f, ok := s.files[m.CodeFile]; ok {
		return f, walker.SymbolsLoaded
	}
	return nil, walker.SymbolsMissing
}

// Want is an expected frame: its PC, SP and trust.
type Want struct {
	PC, SP uint64
	Trust  walker.Trust
}

// CheckFrames compares st's frames with want, reading PC and SP at the
// context indexes pcReg and spReg. Every frame but the first must look its
// symbol up at PC - callOffset, inside the call instruction. label names
// the walk in messages.
func CheckFrames(t *testing.T, label string, st *walker.Stack, pcReg, spReg int, callOffset uint64, want ...Want) {
	t.Helper()
	if len(st.Frames) != len(want) {
		for i, f := range st.Frames {
			pc, _ := f.Context.Index(pcReg)
			sp, _ := f.Context.Index(spReg)
			t.Logf("%s: frame %d pc %#x sp %#x %v", label, i, pc, sp, f.Trust)
		}
		t.Fatalf("%s: %d frames, want %d", label, len(st.Frames), len(want))
	}
	for i, w := range want {
		f := st.Frames[i]
		pc, _ := f.Context.Index(pcReg)
		sp, _ := f.Context.Index(spReg)
		if pc != w.PC || sp != w.SP || f.Trust != w.Trust {
			t.Errorf("%s: frame %d pc %#x sp %#x %v, want pc %#x sp %#x %v", label, i, pc, sp, f.Trust, w.PC, w.SP, w.Trust)
		}
		if i > 0 && f.Instruction != pc-callOffset {
			t.Errorf("%s: frame %d instruction %#x, want pc-%d (inside the call)", label, i, f.Instruction, callOffset)
		}
	}
}

// Regions is memory made of several regions, as a dump's memory list: a
// read must lie within one of them.
type Regions []*Memory

// ReadMemory implements walker.Memory.
func (r Regions) ReadMemory(addr uint64, p []byte) error {
	for _, m := range r {
		if m.ReadMemory(addr, p) == nil {
			return nil
		}
	}
	return errOutside
}

// ReturnAddresses lists the frames' return addresses (the first frame's PC).
func ReturnAddresses(frames []*walker.Frame) []uint64 {
	var pcs []uint64
	for _, f := range frames {
		pcs = append(pcs, f.ReturnAddress())
	}
	return pcs
}

// CheckPrefix reports an error, naming the case name, unless got begins
// with want.
func CheckPrefix(t *testing.T, name string, got, want []uint64) {
	t.Helper()
	if len(got) < len(want) {
		t.Errorf("%s: frames %x, want %x", name, got, want)
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s: frames %x, want %x", name, got, want)
			return
		}
	}
}

// Words64 is size bytes of stack holding words from its start, little-endian.
func Words64(size int, words ...uint64) []byte {
	data := make([]byte, size)
	for i, w := range words {
		binary.LittleEndian.PutUint64(data[8*i:], w)
	}
	return data
}

// Words32 is size bytes of stack holding words from its start, little-endian.
func Words32(size int, words ...uint32) []byte {
	data := make([]byte, size)
	for i, w := range words {
		binary.LittleEndian.PutUint32(data[4*i:], w)
	}
	return data
}

// Put32 writes v little-endian at addr, which must lie in the region.
func (m *Memory) Put32(addr uint64, v uint32) {
	binary.LittleEndian.PutUint32(m.Data[addr-m.Base:], v)
}

// Put16 writes v little-endian at addr, which must lie in the region.
func (m *Memory) Put16(addr uint64, v uint16) {
	binary.LittleEndian.PutUint16(m.Data[addr-m.Base:], v)
}

// Mode returns walker.Breakpad when breakpad is set, else walker.Extended.
func Mode(breakpad bool) walker.Mode {
	if breakpad {
		return walker.Breakpad
	}
	return walker.Extended
}

// CheckWalkInvariants fails t when a walk broke what every walk must keep,
// whatever its input (the fuzz targets' check): at most maxFrames frames
// (plus the context frame), and a stack pointer that never goes down
// from one frame to its caller.
func CheckWalkInvariants(t testing.TB, st *walker.Stack, maxFrames int) {
	t.Helper()
	if len(st.Frames) > maxFrames+1 {
		t.Fatalf("%d frames, cap %d", len(st.Frames), maxFrames)
	}
	for i := 1; i < len(st.Frames); i++ {
		sp, _ := st.Frames[i].Context.SP()
		prev, _ := st.Frames[i-1].Context.SP()
		if sp < prev {
			t.Fatalf("frame %d: SP %#x below frame %d's %#x", i, sp, i-1, prev)
		}
	}
}

// CheckDocumentedRules fails t unless docs/design.md's "Caller rules"
// table has a row for arch and table ("extended, windows") that lists
// names, in order: the doc stays true to each architecture's tables.
func CheckDocumentedRules(t testing.TB, arch, table string, names []string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	prefix := "| " + arch + " | " + table + " |"
	for line := range strings.Lines(string(doc)) {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		var got []string
		for _, f := range strings.Split(strings.TrimPrefix(line, prefix), "→") {
			got = append(got, strings.Trim(f, " `|\n"))
		}
		if !slices.Equal(got, names) {
			t.Errorf("docs/design.md lists %s's %s rules as %v; the table is %v", arch, table, got, names)
		}
		return
	}
	t.Errorf("docs/design.md has no row %q in its Caller rules table", prefix)
}

// repoRoot is the directory above the test's that holds go.mod.
func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// RuleNames returns the names of an architecture's caller rules, in order.
func RuleNames[C any](rs walker.CallerRules[C]) []string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Name
	}
	return names
}

// NewModuleMap builds a module map over mods, taken in order, as
// Breakpad's range map stores them (walker.StoredRanges).
func NewModuleMap(mods []*walker.Module) *walker.ModuleMap {
	kept := walker.StoredRanges(len(mods), func(i int) (uint64, uint64) {
		if mods[i] == nil {
			return 0, 0
		}
		return mods[i].Base, mods[i].Size
	})
	sorted, ranges := make([]*walker.Module, len(kept)), make([][2]uint64, len(kept))
	for k, i := range kept {
		sorted[k], ranges[k] = mods[i], [2]uint64{mods[i].Base, mods[i].Base + mods[i].Size - 1}
	}
	return walker.NewModuleMapRanges(sorted, ranges)
}
