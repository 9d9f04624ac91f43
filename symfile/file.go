package symfile

import "errors"

var errTODO = errors.New("symfile: not implemented yet")

// File is a parsed symbol file ready for lookups. It is safe for concurrent use.
type File struct {
	name   string
	data   []byte
	module ModuleLine
	codeID string
	unmap  func() error
}

// Open reads the symbol file at path: memory-mapped when plain, decompressed
// to memory when it ends in .gz or .zst.
func Open(path string) (*File, error) { return nil, errTODO }

// NewFile indexes a symbol file held in data; name is used in errors.
// The File keeps data; the caller must not modify it.
func NewFile(data []byte, name string) (*File, error) { return nil, errTODO }

// Close releases the mapping of a File made by Open. Lookups must not follow.
func (f *File) Close() error { return nil }

// Name is the path or name the File was made from.
func (f *File) Name() string { return f.name }

// Module returns the MODULE record.
func (f *File) Module() ModuleLine { return f.module }

// CodeID returns the INFO CODE_ID value, or "".
func (f *File) CodeID() string { return f.codeID }

// Lookup finds the function (or PUBLIC symbol), source line and inline chain
// at the module-relative address addr.
func (f *File) Lookup(addr uint64) (Symbol, bool) { return Symbol{}, false }

// CFIRules returns the STACK CFI rules in effect at addr.
func (f *File) CFIRules(addr uint64) (CFIRules, bool) { return CFIRules{}, false }

// StackWin returns the STACK WIN record covering addr, type 4 (FrameData)
// preferred over type 0 (FPO).
func (f *File) StackWin(addr uint64) (*StackWin, bool) { return nil, false }

// HasFunctionAt reports whether a FUNC or PUBLIC record covers addr
// (Breakpad's test in stack scanning that a candidate return address is code).
func (f *File) HasFunctionAt(addr uint64) bool { _, ok := f.Lookup(addr); return ok }
