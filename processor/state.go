package processor

import (
	"slices"
	"sync"

	"github.com/minidump-stackwalk/minidump-stackwalk/crashinfo"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// ProcessState is the result of processing a dump: everything every printer
// of package report shows, so that none of them reads the dump again.
type ProcessState struct {
	// Status is the processing status: StatusOK, or what stopped it.
	Status Status

	// System is nil when the dump has no readable system info stream.
	System *SystemInfo

	TimeDateStamp     uint32 // dump header time, seconds since the epoch
	ProcessCreateTime uint32 // 0 when unknown
	HasCreateTime     bool
	ProcessUptime     uint32 // seconds; valid when HasUptime
	HasUptime         bool

	Crashed      bool
	CrashReason  string // Breakpad's string, "" when not crashed
	CrashAddress uint64 // truncated to the word size as Breakpad does
	// Exception is the dump's exception record; nil when the dump has
	// none (a microdump, a dump written without a crash).
	Exception *Exception
	Assertion string

	// GPU is the microdump's GPU line; empty for minidumps.
	GPU GPUInfo

	// Threads holds every thread of the thread list, in dump order,
	// including the dump-writer's own thread (Walked false, DumpThread true).
	Threads []*Thread
	// RequestingThread indexes Threads: the crashed thread, or the thread
	// that requested the dump; -1 when none.
	RequestingThread int

	// HaveModules is false when the dump has no module list.
	HaveModules bool
	// Modules is the module list in dump order.
	Modules []*Module
	// ModuleOrder indexes Modules in Breakpad's print order (by address):
	// the modules addresses can be found in, each once. Modules left out of
	// the lookup (an exact duplicate, one sharing another's base, every
	// module of a list Breakpad mode rejects) are not in it.
	ModuleOrder []int
	// MainModule indexes Modules (Breakpad: the first module); -1 when none.
	MainModule int
	// UnloadedModules is the unloaded module list in dump order.
	UnloadedModules []*Module

	// Facts are the dump's facts only the JSON report shows.
	Facts Facts
	// CrashAnalysis is the faulting instruction, its memory accesses, the
	// adjusted address and possible bit flips (package crashinfo); nil in
	// Breakpad's mode, whose reports have none of it.
	CrashAnalysis *crashinfo.Result

	// Errors holds the problems met while reading streams, in the order
	// they were met: absent optional streams (wrapping
	// minidump.ErrNoStream), broken streams (*StreamError) and rejected
	// module lists. Failures and Warnings sort them for a report.
	Errors []error
	// ReadErrors lists every stream found present but unreadable, including
	// streams read only for Facts; the JSON report lists them in x_errors.
	ReadErrors []*StreamError
	// fatal is what stopped processing (ErrNoThreadList, ...); nil when
	// processing ran to the end.
	fatal error
	// fatalAt is 1 + the index of fatal in Errors, 0 when it is not there
	// (Warnings leaves it out).
	fatalAt int

	// moduleRanges finds the module of an address as the walk did
	// (Symbolize).
	moduleRanges *walker.ModuleMap
	// symbols is the symbol cache of the walk; Symbolize reads the files
	// it loaded. nil when there was no supplier.
	symbols *symbolCache
	// demangled is set by DemangleNames: Symbolize demangles too.
	demangled bool
	// resolver names addresses for Symbolize; made on first use.
	resolverOnce sync.Once
	resolver     *walker.Walker
}

// Status is the processing status, in the words of Breakpad's and
// Socorro's processors (the JSON report's "status").
type Status string

// Processing statuses.
const (
	StatusOK               = Status("OK")
	StatusNoMinidumpHeader = Status("ERROR_NO_MINIDUMP_HEADER") // not a readable minidump
	StatusMinidumpNotFound = Status("ERROR_MINIDUMP_NOT_FOUND") // the file could not be opened
	StatusNoThreadList     = Status("ERROR_NO_THREAD_LIST")     // ErrNoThreadList
	StatusGettingThread    = Status("ERROR_GETTING_THREAD")     // ErrNoMicrodumpContext
	// StatusPartial: processing ran to the end, but the report is
	// incomplete (ProcessState.Failures; ours, not Breakpad's).
	StatusPartial = Status("ERROR_PARTIAL")
)

// Exception is the exception record of the dump, the state's own copy of
// what the printers read. The context it held is the requesting thread's
// (Threads[RequestingThread].Context).
type Exception struct {
	ThreadID uint32 // the thread that raised it
	Code     uint32 // the exception code (on POSIX the signal number)
	Flags    uint32 // the exception flags (on POSIX the signal's code)
	Address  uint64 // the address as recorded; CrashAddress is Breakpad's reading of it
	// Parameters are the exception information words, at most 15 as the
	// record holds them.
	Parameters []uint64
}

// newException copies what the model keeps of the dump's exception record.
func newException(ex *minidump.Exception) *Exception {
	return &Exception{ThreadID: ex.ThreadID, Code: ex.Code, Flags: ex.Flags, Address: ex.Address,
		Parameters: slices.Clone(ex.Parameters)}
}

// GPUInfo is a microdump's GPU line (Breakpad's "GPU:" block).
type GPUInfo struct {
	Version, Vendor, Renderer string
}

// Facts are facts of a minidump that only the JSON report shows
// (rust-minidump's process-level fields). The zero value means unknown.
type Facts struct {
	PID    uint32 // MiscInfo's process id, else /proc/self/status's Pid
	HasPID bool
	// LSBRelease is the Linux lsb-release (or os-release) stream.
	LSBRelease *minidump.LSBRelease
	// MemoryMapCount counts the non-blank lines of the Linux maps stream.
	MemoryMapCount int
	HasMemoryMaps  bool
	MacCrashInfo   []minidump.MacCrashInfoRecord
	// SoftErrors is Mozilla's soft-errors stream as stored (JSON text,
	// possibly NUL-padded); nil when absent.
	SoftErrors []byte
	// MacBootArgs is Mozilla's macOS kernel boot arguments stream.
	MacBootArgs    string
	HasMacBootArgs bool
	// UnloadedTimeDateStamps holds each unloaded module's time stamp,
	// parallel to ProcessState.UnloadedModules.
	UnloadedTimeDateStamps []uint32
	// Handles is the handle data stream, what of it could be read.
	Handles    []minidump.Handle
	HasHandles bool
	// ProcLimits is Mozilla's copy of /proc/self/limits.
	ProcLimits    []minidump.ProcLimit
	HasProcLimits bool
	// Crashpad is Crashpad's info stream (annotations); nil when absent.
	Crashpad *minidump.CrashpadInfo
	// LastErrors holds, on Windows, each thread's last error value from
	// its TEB, by thread id, where the dump captured it.
	LastErrors map[uint32]uint32
}

// StreamError is a stream of the dump that is present but could not be read.
type StreamError struct {
	Stream Stream
	Err    error
}

func (e *StreamError) Error() string { return e.Stream.String() + ": " + e.Err.Error() }
func (e *StreamError) Unwrap() error { return e.Err }

// SourceInfo names the code at an address.
type SourceInfo struct {
	Function string
	File     string // as in the symbol file
	Line     int
	LineBase uint64 // absolute start of the line record; 0 when none
}

// SystemInfo is the system information in Breakpad's words.
type SystemInfo struct {
	OS        string // "Windows NT", "Linux", "Mac OS X", ...
	OSShort   string // "windows", "linux", "mac", ...
	OSVersion string // "5.1.2600 Service Pack 2"
	CPU       string // "x86", "amd64", "arm", "arm64", ...
	CPUInfo   string // may be empty
	CPUCount  int
	Arch      minidump.Arch
	// Minidump holds the minidump's platform and version numbers, which
	// the JSON report words in rust-minidump's way; nil for a microdump.
	Minidump *MinidumpOS
}

// MinidumpOS is a minidump's operating system as its system info stream
// stores it.
type MinidumpOS struct {
	Platform                                minidump.Platform
	MajorVersion, MinorVersion, BuildNumber uint32
	CSDVersion                              string // service pack, or on Linux the uname string
	HasCSDVersion                           bool   // false when the CSD string could not be read
}

// ThreadStatus says why a thread has the frames it has.
type ThreadStatus uint8

// Thread statuses.
const (
	ThreadWalked     ThreadStatus = iota // walked from its context
	ThreadDumpThread                     // the thread that wrote the dump: skipped, as Breakpad does
	ThreadNoContext                      // no readable context: no frames
	ThreadNoWalker                       // no walker for the context's CPU: no frames
	ThreadNotWalked                      // not asked for (Options.WalkOnlyRequesting): no frames
)

// Thread is one thread and its walked stack.
type Thread struct {
	Index   int // position in the dump's thread list
	ID      uint32
	Name    string // from the thread name list
	HasName bool   // the thread name list names the thread (maybe "")
	Status  ThreadStatus
	// Frames are innermost first; inlined frames precede their physical frame.
	Frames    []*Frame
	Truncated bool // the walk stopped at the frame cap or the time budget
	// WalkEnd holds, with Options.Trace, the steps tried after the last
	// frame: why the walk ended.
	WalkEnd []Step

	// Context is the context the walk started from (the exception's for
	// the crashed thread); nil when none.
	Context *minidump.Context
	// StackBase is the address of Stack[0]; Stack is nil when the dump holds
	// no stack memory for the thread. Stack is the state's own copy, so it
	// stays readable after the dump is closed.
	StackBase uint64
	Stack     []byte
}

// Frame is one frame of a walked stack: where it is, how it was found and
// what the symbols say of it. It is the state's own copy of the walker's
// frame, without the walk's private state.
type Frame struct {
	// Instruction is the address of the frame's module, symbol and unwind
	// lookups: the instruction pointer of the context frame, for a caller
	// the return address minus the architecture's amount (one byte on x86
	// and amd64), for an inlined frame its physical frame's Instruction.
	Instruction uint64
	// Context holds the registers recovered for the frame; only the valid
	// ones are known. Inlined frames carry none (Arch set, none valid).
	Context minidump.Context
	Trust   Trust
	// Rule is the method that recovered the frame, finer than Trust; Steps
	// are, with Options.Trace, the methods tried for it and the candidates
	// rejected, the last the one taken.
	Rule  Rule
	Steps []Step
	// Module is the module holding Instruction (Modules or, with Unloaded
	// set, UnloadedModules); nil when none.
	Module *Module

	Function     string // function (FUNC, INLINE_ORIGIN or PUBLIC) name; "" when unknown
	FunctionBase uint64 // absolute address of the function (for an inline: of its range)
	IsPublic     bool   // Function comes from a PUBLIC record (no FUNC covers the address)

	SourceFile     string // as in the symbol file; "" when unknown
	SourceLine     int
	SourceLineBase uint64 // absolute start address of the line record

	// InlineDepth is 0 for a physical frame and n>0 for the n-th inlined
	// frame inserted before it, counted from the physical frame outward.
	InlineDepth int
}

// ReturnAddress is the address Breakpad prints for the frame and computes
// printed offsets from: on x86 and amd64 the IP register of a physical frame
// (for a caller, the return address itself), otherwise and for an inlined
// frame Instruction.
func (f *Frame) ReturnAddress() uint64 {
	return walker.PrintedAddress(f.Trust, &f.Context, f.Instruction)
}

// LoadedModule is Module when it is a loaded module, else nil: the frame's
// module as every report names it (an unloaded module is listed apart).
func (f *Frame) LoadedModule() *Module {
	if f.Module == nil || f.Module.Unloaded {
		return nil
	}
	return f.Module
}

// ModuleOffset is ReturnAddress relative to the module's base (0 without module).
func (f *Frame) ModuleOffset() uint64 {
	if f.Module == nil {
		return 0
	}
	return f.ReturnAddress() - f.Module.Base
}

// FunctionOffset is ReturnAddress relative to the function's start.
func (f *Frame) FunctionOffset() uint64 { return f.ReturnAddress() - f.FunctionBase }

// LineOffset is ReturnAddress relative to the line record's start.
func (f *Frame) LineOffset() uint64 { return f.ReturnAddress() - f.SourceLineBase }

// Trust is how far a frame can be trusted: how it was found.
type Trust = walker.Trust

// Trust levels the reports tell apart; walker.Trust lists them all.
const (
	TrustContext = walker.TrustContext // the thread's own context
	TrustInline  = walker.TrustInline  // an inlined call, from the symbol file's INLINE records
)

// Rule is the method that recovered a frame (walker.Rule lists them).
type Rule = walker.Rule

// RuleInline is the rule of an inlined frame (from the symbol file's
// INLINE records).
const RuleInline = walker.RuleInline

// Step is one method tried for a frame, traced (Options.Trace).
type Step = walker.Step

// Mode selects the walk (Options.Mode): ModeExtended, the zero value, is
// ours; ModeBreakpad is Breakpad's, all of its documented differences at
// once (the package documentation lists them).
type Mode = walker.Mode

// The walk's modes.
const (
	ModeExtended = walker.Extended
	ModeBreakpad = walker.Breakpad
)

// NativeModule is one module's own executable file as a NativeSupplier
// gives it: its unwind tables, prologues and code (walker.NativeModule).
type NativeModule = walker.NativeModule

// newFrames copies a walk's frames, pointing them at the state's modules,
// into the memory of the walk's worker.
func (s *ProcessState) newFrames(frames []*walker.Frame, mem *walkWorker) []*Frame {
	if len(frames) == 0 {
		return nil
	}
	vals := mem.frames(len(frames)) // one allocation per stack at most
	out := make([]*Frame, len(frames))
	for i, f := range frames {
		vals[i] = Frame{
			Instruction: f.Instruction, Context: f.Context, Trust: f.Trust, Rule: f.Rule, Steps: f.Steps,
			Module: s.moduleOf(f.Module), Function: f.Function, FunctionBase: f.FunctionBase, IsPublic: f.IsPublic,
			SourceFile: f.SourceFile, SourceLine: f.SourceLine, SourceLineBase: f.SourceLineBase,
			InlineDepth: f.InlineDepth,
		}
		out[i] = &vals[i]
	}
	return out
}

// Walked reports whether the thread's stack was walked.
func (t *Thread) Walked() bool { return t.Status == ThreadWalked }

// Module is one entry of the dump's module list (or of its unloaded module
// list) and what the walk learned about its symbols. It is the state's own
// copy: the walk's modules stay inside the processor.
type Module struct {
	Index    int  // position in the dump's module list (unloaded module list when Unloaded)
	Unloaded bool // from the unloaded module list
	Base     uint64
	Size     uint64

	CodeFile, CodeID, DebugFile, DebugID, Version string

	// SymbolBase is the address the symbol file's module-relative
	// addresses are relative to: Base, except for a later entry of an
	// image mapped as several entries (the split images of the package
	// documentation), where it is the Base of the entry mapping the
	// image's start.
	SymbolBase uint64

	// Symbols is the outcome of asking the supplier (SymbolsNotTried when
	// no frame or scan needed them, or when there was no supplier).
	Symbols    SymbolStatus
	SymbolFile string // path or name of the loaded symbol file
	// NoSymbolsWarning and CorruptSymbolsWarning say whether Breakpad's
	// human output appends "(WARNING: No symbols, ...)" or "(WARNING:
	// Corrupt symbols, ...)": some frame of a module with the same debug
	// file and identifier had missing (corrupt) symbols. A scan that merely
	// probed the module does not count.
	NoSymbolsWarning      bool
	CorruptSymbolsWarning bool
}

// Name is the base name of the module's code file, taking '/' and '\' as
// separators, as Breakpad's PathnameStripper does: how every report names
// the module.
func (m *Module) Name() string { return symfile.BaseName(m.CodeFile) }

// DebugName is the base name of the module's debug file.
func (m *Module) DebugName() string { return symfile.BaseName(m.DebugFile) }

// Key is the module's key for a symbol supplier.
func (m *Module) Key() symfile.ModuleKey {
	return symfile.ModuleKey{CodeFile: m.CodeFile, CodeID: m.CodeID, DebugFile: m.DebugFile, DebugID: m.DebugID}
}

// End is the address just past the module.
func (m *Module) End() uint64 { return m.Base + m.Size }

// SymbolStatus is the outcome of loading a module's symbols.
type SymbolStatus = walker.SymbolStatus

// Symbol statuses.
const (
	SymbolsNotTried = walker.SymbolsNotTried // no frame or scan needed them, or no supplier
	SymbolsLoaded   = walker.SymbolsLoaded
	SymbolsMissing  = walker.SymbolsMissing
	SymbolsCorrupt  = walker.SymbolsCorrupt
)

// moduleValue is the state's module of the walk's module m, by value:
// lists allocate their modules together (a microdump lists up to 685,906).
func moduleValue(m *walker.Module) Module {
	return Module{
		Index: m.Index, Unloaded: m.Unloaded, Base: m.Base, Size: m.Size,
		CodeFile: m.CodeFile, CodeID: m.CodeID, DebugFile: m.DebugFile, DebugID: m.DebugID, Version: m.Version,
		SymbolBase: m.SymbolBase,
	}
}

// BreakpadThreads returns the threads Breakpad prints (all but the dump
// thread), numbered as Breakpad numbers them, and the requesting thread's
// position among them (-1 when none).
func (s *ProcessState) BreakpadThreads() (threads []*Thread, requesting int) {
	requesting = -1
	for i, t := range s.Threads {
		if t.Status == ThreadDumpThread {
			continue
		}
		if i == s.RequestingThread {
			requesting = len(threads)
		}
		threads = append(threads, t)
	}
	return threads, requesting
}

// moduleOf returns the state's module of the walk's module m: nil for nil m.
func (s *ProcessState) moduleOf(m *walker.Module) *Module {
	list := s.Modules
	if m != nil && m.Unloaded {
		list = s.UnloadedModules
	}
	if m == nil || m.Index < 0 || m.Index >= len(list) {
		return nil
	}
	return list[m.Index]
}
