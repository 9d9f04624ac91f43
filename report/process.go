package report

import (
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/processor"
)

// textProcess is the processed dump as Breakpad's text printers walk it:
// the threads Breakpad prints, numbered as it numbers them, modules in its
// print order and frames pointing at them. newTextProcess makes it from the
// one model, processor.ProcessState; it holds no fact of its own.
type textProcess struct {
	OS        string // "Windows NT", "Linux", ...
	OSVersion string // "5.1.2600 Service Pack 2"
	CPU       string // "x86", "amd64", "arm", "arm64", ...
	CPUInfo   string // "GenuineIntel family 6 model 13 stepping 8"; may be empty
	CPUCount  int

	GLVersion, GLVendor, GLRenderer string // GPU line; all empty for minidumps

	Crashed         bool
	CrashReason     string
	CrashAddress    uint64 // already truncated to the word size, as Breakpad does
	CrashParameters []crashParameter
	Assertion       string
	// CrashAnalysis, when set, prints the faulting instruction and what it
	// touched after the crash address (our addition, in rust-minidump's
	// words; Breakpad prints none of it, so its mode leaves it nil).
	CrashAnalysis *crashinfo.Result

	// TimeDateStamp is the dump header's time and ProcessCreateTime the
	// MiscInfo process creation time; 0 means unknown. Uptime is printed only
	// when both are known and ordered.
	TimeDateStamp     uint32
	ProcessCreateTime uint32

	// RequestingThread indexes Threads: the crashed thread, or the thread
	// that requested the dump; -1 when unknown.
	RequestingThread int
	Threads          []textThread

	// HaveModules is false when the dump has no module list; Breakpad then
	// prints no "Loaded modules:" section and no Module| lines.
	HaveModules bool
	Modules     []textModule
	// MainModule indexes Modules, -1 when there is none.
	MainModule int

	// Symbolize names the code at an absolute address using only the symbol
	// files the walk loaded (Breakpad's resolver state after processing):
	// the function first, then its inlined calls, deepest first. It serves
	// the "Possible instruction pointers" lists of -s and -d. Nil means no
	// symbols.
	Symbolize func(addr uint64) []sourceInfo
}

// crashParameter is one exception information word.
type crashParameter struct {
	Value       uint64
	Description string
}

// textThread is one thread's walked stack and its stack memory.
type textThread struct {
	Frames []textFrame
	// StackBase is the address of Stack[0]. Stack is nil when the dump holds
	// no stack memory for the thread.
	StackBase uint64
	Stack     []byte
	// SP is the stack pointer of the thread's context (used by -d).
	SP      uint64
	SPValid bool
}

// textFrame is one stack frame as Breakpad prints it.
type textFrame struct {
	// Context holds the registers the walker recovered for this frame
	// (the model's frame's own, not a copy).
	Context *minidump.Context
	// AllRegisters marks the thread's own context frame: Breakpad treats
	// every register of it as valid (CONTEXT_VALID_ALL), and only then
	// prints x86's eax, ecx, edx and efl.
	AllRegisters bool

	// ReturnAddress is the address Breakpad prints and offsets from: the
	// instruction pointer of the frame's context (not decremented).
	ReturnAddress uint64
	Module        *textModule // nil when the address is in no module

	Function       string // empty when no symbol covers the address
	FunctionBase   uint64 // absolute
	SourceFile     string // as in the symbol file, full path
	SourceLine     int
	SourceLineBase uint64 // absolute start of the line record

	Trust  string // Breakpad's description: "call frame info", ...
	Inline bool   // an inlined call: printed without registers
}

// textModule is one entry of the module list.
type textModule struct {
	CodeFile  string
	Version   string // "5.1.2600.2180"; empty prints as "???"
	DebugFile string
	DebugID   string
	Base      uint64
	Size      uint64

	// MissingSymbols and CorruptSymbols mark modules whose symbols the walk
	// tried and failed to load (processor.ModuleState's warnings).
	MissingSymbols bool
	CorruptSymbols bool
}

// sourceInfo names the code at an address.
type sourceInfo = processor.SourceInfo

// newTextProcess gives the text printers' view of st.
func newTextProcess(st *processor.ProcessState) *textProcess {
	p := &textProcess{RequestingThread: -1, MainModule: -1}
	if s := st.System; s != nil {
		p.OS, p.OSVersion, p.CPU, p.CPUInfo, p.CPUCount = s.OS, s.OSVersion, s.CPU, s.CPUInfo, s.CPUCount
	}
	p.GLVersion, p.GLVendor, p.GLRenderer = st.GPU.Version, st.GPU.Vendor, st.GPU.Renderer
	p.Crashed, p.CrashReason, p.CrashAddress, p.Assertion = st.Crashed, st.CrashReason, st.CrashAddress, st.Assertion
	p.CrashAnalysis = st.CrashAnalysis
	if st.Exception != nil {
		for _, v := range st.Exception.Parameters {
			p.CrashParameters = append(p.CrashParameters, crashParameter{Value: v})
		}
	}
	p.TimeDateStamp = st.TimeDateStamp
	if st.HasCreateTime {
		p.ProcessCreateTime = st.ProcessCreateTime
	}

	// Breakpad lists the modules of its range map by address
	// (processor.ProcessState.ModuleOrder: exact duplicates and modules it
	// could not store are left out); the main module is the first of the
	// file, found again by its base address.
	p.HaveModules = st.HaveModules
	printed := make([]int, len(st.Modules)) // 1 + position in p.Modules, by st.Modules index
	p.Modules = make([]textModule, 0, len(st.ModuleOrder))
	for _, i := range st.ModuleOrder {
		m := st.Modules[i]
		printed[i] = len(p.Modules) + 1
		p.Modules = append(p.Modules, textModule{
			CodeFile: m.CodeFile, Version: m.Version, DebugFile: m.DebugFile, DebugID: m.DebugID,
			Base: m.Base, Size: m.Size,
			MissingSymbols: m.NoSymbolsWarning, CorruptSymbols: m.CorruptSymbolsWarning,
		})
	}
	if st.MainModule >= 0 && st.MainModule < len(st.Modules) {
		base := st.Modules[st.MainModule].Base
		p.MainModule = slices.IndexFunc(p.Modules, func(m textModule) bool { return m.Base == base })
	}
	moduleOf := func(f *processor.Frame) *textModule {
		// Unloaded modules are not Breakpad frame modules.
		m := f.LoadedModule()
		if m == nil || m.Index < 0 || m.Index >= len(printed) || printed[m.Index] == 0 {
			return nil
		}
		return &p.Modules[printed[m.Index]-1]
	}

	threads, requesting := st.BreakpadThreads()
	p.RequestingThread = requesting
	p.Threads = make([]textThread, 0, len(threads))
	total := 0
	for _, th := range threads {
		total += len(th.Frames)
	}
	frames := make([]textFrame, 0, total) // every thread's, in one allocation
	for _, th := range threads {
		t := textThread{StackBase: th.StackBase, Stack: th.Stack}
		if th.Context != nil {
			t.SP, t.SPValid = th.Context.SP()
		}
		start := len(frames)
		for _, f := range th.Frames {
			frames = append(frames, textFrame{
				Context:        &f.Context,
				AllRegisters:   f.Trust == processor.TrustContext,
				ReturnAddress:  f.ReturnAddress(),
				Module:         moduleOf(f),
				Function:       f.Function,
				FunctionBase:   f.FunctionBase,
				SourceFile:     f.SourceFile,
				SourceLine:     f.SourceLine,
				SourceLineBase: f.SourceLineBase,
				Trust:          f.Trust.String(),
				Inline:         f.Trust == processor.TrustInline,
			})
		}
		if len(frames) > start {
			t.Frames = frames[start:len(frames):len(frames)]
		}
		p.Threads = append(p.Threads, t)
	}
	p.Symbolize = st.Symbolize
	p.escapeStrings() // untrusted text made safe for a terminal (textescape.go)
	return p
}

// mainBase returns the base address of the main module, or 0.
func (p *textProcess) mainBase() (uint64, bool) {
	if p.MainModule < 0 || p.MainModule >= len(p.Modules) {
		return 0, false
	}
	return p.Modules[p.MainModule].Base, true
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
