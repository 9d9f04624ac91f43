package report

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Process is what the Breakpad printers show of one processed dump.
type Process struct {
	OS        string // "Windows NT", "Linux", ...
	OSVersion string // "5.1.2600 Service Pack 2"
	CPU       string // "x86", "amd64", "arm", "arm64", ...
	CPUInfo   string // "GenuineIntel family 6 model 13 stepping 8"; may be empty
	CPUCount  int

	GLVersion, GLVendor, GLRenderer string // GPU line; all empty for minidumps

	Crashed         bool
	CrashReason     string
	CrashAddress    uint64 // already truncated to the word size, as Breakpad does
	CrashParameters []CrashParameter
	Assertion       string
	// CrashAnalysis, when set, prints the faulting instruction and what it
	// touched after the crash address (our addition, in rust-minidump's
	// words; Breakpad prints none of it, so --breakpad-compat leaves it nil).
	CrashAnalysis *crashinfo.Result

	// TimeDateStamp is the dump header's time and ProcessCreateTime the
	// MiscInfo process creation time; 0 means unknown. Uptime is printed only
	// when both are known and ordered.
	TimeDateStamp     uint32
	ProcessCreateTime uint32

	// RequestingThread indexes Threads: the crashed thread, or the thread
	// that requested the dump; -1 when unknown.
	RequestingThread int
	Threads          []Thread

	// HaveModules is false when the dump has no module list; Breakpad then
	// prints no "Loaded modules:" section and no Module| lines.
	HaveModules bool
	Modules     []Module
	// MainModule indexes Modules, -1 when there is none.
	MainModule int

	// Symbolize names the code at an absolute address using only the symbol
	// files the walk loaded (Breakpad's resolver state after processing):
	// the function first, then its inlined calls, deepest first. It serves
	// the "Possible instruction pointers" lists of -s and -d. Nil means no
	// symbols.
	Symbolize func(addr uint64) []SourceInfo
}

// CrashParameter is one exception information word.
type CrashParameter struct {
	Value       uint64
	Description string
}

// Thread is one thread's walked stack and its stack memory.
type Thread struct {
	Frames []Frame
	// StackBase is the address of Stack[0]. Stack is nil when the dump holds
	// no stack memory for the thread.
	StackBase uint64
	Stack     []byte
	// SP is the stack pointer of the thread's context (used by -d).
	SP      uint64
	SPValid bool
}

// Frame is one stack frame as Breakpad prints it.
type Frame struct {
	// Context holds the registers the walker recovered for this frame.
	Context minidump.Context
	// AllRegisters marks the thread's own context frame: Breakpad treats
	// every register of it as valid (CONTEXT_VALID_ALL), and only then
	// prints x86's eax, ecx, edx and efl.
	AllRegisters bool

	// ReturnAddress is the address Breakpad prints and offsets from: the
	// instruction pointer of the frame's context (not decremented).
	ReturnAddress uint64
	Module        *Module // nil when the address is in no module

	Function       string // empty when no symbol covers the address
	FunctionBase   uint64 // absolute
	SourceFile     string // as in the symbol file, full path
	SourceLine     int
	SourceLineBase uint64 // absolute start of the line record

	Trust  string // Breakpad's description: "call frame info", ...
	Inline bool   // an inlined call: printed without registers
}

// Module is one entry of the module list.
type Module struct {
	CodeFile  string
	Version   string // "5.1.2600.2180"; empty prints as "???"
	DebugFile string
	DebugID   string
	Base      uint64
	Size      uint64

	// MissingSymbols and CorruptSymbols mark modules whose symbols the walk
	// tried and failed to load (see MarkSymbolProblems).
	MissingSymbols bool
	CorruptSymbols bool
}

// SourceInfo names the code at an address.
type SourceInfo struct {
	Function string
	File     string
	Line     int
	LineBase uint64 // absolute; 0 when there is no line record
}

// ModuleID is the (debug file, debug identifier) pair Breakpad uses to match
// modules against its lists of modules without (or with corrupt) symbols.
type ModuleID struct{ DebugFile, DebugID string }

// MarkSymbolProblems sets MissingSymbols and CorruptSymbols on every module
// whose debug file and identifier match an entry of missing or corrupt, the
// way Breakpad's printer matches: by value, so modules sharing an identity
// share the warning, and a missing entry wins over a corrupt one.
func (p *Process) MarkSymbolProblems(missing, corrupt []ModuleID) {
	in := func(list []ModuleID, m *Module) bool {
		for _, id := range list {
			if id.DebugFile == m.DebugFile && id.DebugID == m.DebugID {
				return true
			}
		}
		return false
	}
	for i := range p.Modules {
		m := &p.Modules[i]
		m.MissingSymbols = in(missing, m)
		m.CorruptSymbols = !m.MissingSymbols && in(corrupt, m)
	}
}

// mainBase returns the base address of the main module, or 0.
func (p *Process) mainBase() (uint64, bool) {
	if p.MainModule < 0 || p.MainModule >= len(p.Modules) {
		return 0, false
	}
	return p.Modules[p.MainModule].Base, true
}

// fileBase returns the last path element, accepting '/' and '\' as
// separators, like Breakpad's PathnameStripper::File.
func fileBase(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' || path[i] == '\\' {
			return path[i+1:]
		}
	}
	return path
}

// wordSize is 4 for the 32-bit CPUs Breakpad's printer knows, 8 otherwise.
func wordSize(cpu string) int {
	switch cpu {
	case "x86", "arm", "riscv", "ppc", "mips", "sparc":
		return 4
	}
	return 8
}

// readWord reads a little-endian word of n bytes at addr from a region.
func readWord(base uint64, data []byte, addr uint64, n int) (uint64, bool) {
	if addr < base || addr-base >= uint64(len(data)) || uint64(len(data))-(addr-base) < uint64(n) {
		return 0, false
	}
	off := addr - base
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(data[off+uint64(i)])
	}
	return v, true
}
