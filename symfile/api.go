package symfile

import (
	"errors"
	"fmt"
)

// ModuleLine is the MODULE record: "MODULE <os> <arch> <id> <name>".
type ModuleLine struct {
	OS, Arch, ID, Name string
}

// InlineFrame is one inlined call covering an address.
//
// Breakpad prints an inline chain as one frame per InlineFrame (deepest
// first, at File:Line) followed by the function's own frame, whose position
// is the call site of the outermost inline: Inlines[len-1].CallFile and
// CallLine (not Symbol.File/Line, which stay the line record's).
type InlineFrame struct {
	Name string // the INLINE_ORIGIN name, or "<name omitted>" as Breakpad
	// CallFile and CallLine are the call site (in the caller) of this
	// inline. Without a call-site file id (the old INLINE form) CallFile is
	// the line record's file, as in Breakpad.
	CallFile string
	CallLine int
	Depth    int // nesting depth as written in the INLINE record
	// File and Line give the position inside the inlinee at the address:
	// the line record for the deepest inline, the call site of the next
	// deeper inline otherwise.
	File string
	Line int
	Base uint64 // start of this inline's range that covers the address
}

// Symbol is the answer of File.Lookup.
type Symbol struct {
	Name      string
	Base      uint64 // function (or PUBLIC) start address, module-relative
	Size      uint64 // function size; 0 for a PUBLIC symbol
	ParamSize uint32 // parameter_size of FUNC or PUBLIC
	IsPublic  bool   // true when only a PUBLIC record names the address
	Multiple  bool   // the m flag: several symbols folded at this address

	// File and Line come from the line record covering the address;
	// File is "" when there is none. LineBase is that record's start address:
	// Breakpad prints "file:line + 0x{addr-LineBase}".
	File     string
	Line     int
	LineBase uint64

	// Inlines lists the inlined calls covering the address, deepest first.
	Inlines []InlineFrame
}

// CFIRule is one "register: expression" pair of a STACK CFI record.
type CFIRule struct {
	Register string // ".cfa", ".ra" or a register name such as "$rsp" / "rbp"
	Expr     string
}

// CFIRules are the STACK CFI rules in effect at an address: the INIT row
// with every delta row up to and including the address applied.
type CFIRules struct {
	CFA   string    // the .cfa rule
	RA    string    // the .ra rule
	Rules []CFIRule // the other registers, in the order first seen
	// Compiled, when not nil, is the rules above compiled by the File
	// that gave them (SharedCFIRules): the evaluator uses it while it
	// was compiled from these same strings, and reads the strings
	// otherwise. Set clears it.
	Compiled *CFIProgram
}

// StackWin is a STACK WIN record.
type StackWin struct {
	Type                 int // 0 = FPO, 4 = FrameData
	RVA                  uint64
	CodeSize             uint64
	PrologSize           uint32
	EpilogSize           uint32
	ParameterSize        uint32
	SavedRegisterSize    uint32
	LocalSize            uint32
	MaxStackSize         uint32
	HasProgramString     bool
	ProgramString        string // when HasProgramString
	AllocatesBasePointer bool   // when !HasProgramString
}

// ModuleKey names a module as the minidump's module list does.
type ModuleKey struct {
	CodeFile, CodeID, DebugFile, DebugID string
}

// Supplier finds and loads the symbol file of a module.
// Implementations are safe for concurrent use and load each module at most once.
type Supplier interface {
	// Symbols returns the parsed symbols of m, an error wrapping ErrNotFound
	// when there are none, or a *CorruptError when the file does not parse.
	Symbols(m ModuleKey) (*File, error)
}

// ErrNotFound reports that no symbol file exists for a module.
var ErrNotFound = errors.New("symbol file not found")

// CorruptError reports a symbol file that failed to parse.
type CorruptError struct {
	File string // path (or name given to NewFile)
	Line int    // 1-based line number, 0 when not tied to a line
	Err  error
}

func (e *CorruptError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: corrupt symbol file: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: corrupt symbol file: %v", e.File, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Memory reads target memory: it fills all of p or fails.
type Memory interface {
	ReadMemory(addr uint64, p []byte) error
}
