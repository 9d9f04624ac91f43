package walker

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// Symbolize fills f.Module and f's symbol fields from f.Instruction. With
// inlines set it also returns the inlined calls covering the address as
// frames of TrustInline, innermost first, and moves the source position as
// Breakpad does (each frame shows where the next inner frame was called).
func (w *Walker) Symbolize(f *Frame, inlines bool) ([]*Frame, SymbolStatus) {
	return w.symbolize(f, inlines)
}

func (w *Walker) symbolize(f *Frame, wantInlines bool) ([]*Frame, SymbolStatus) {
	m := w.Env.Modules.At(f.Instruction)
	if m == nil && w.Env.Unloaded != nil {
		m = w.Env.Unloaded.At(f.Instruction)
	}
	f.Module = m
	if m == nil || w.Env.Symbols == nil {
		return nil, SymbolsNotTried
	}
	file, status := w.Env.Symbols.Symbols(m)
	if file == nil {
		return nil, status
	}
	rel := f.Instruction - m.SymbolBase
	sym, ok := file.Lookup(rel)
	if !ok {
		return nil, status
	}
	f.Function = sym.Name
	f.FunctionBase = m.SymbolBase + sym.Base
	f.IsPublic = sym.IsPublic
	f.Multiple = sym.Multiple
	f.ParamSize = sym.ParamSize
	if sym.IsPublic {
		return nil, status
	}
	if sym.File != "" || sym.Line != 0 {
		f.SourceFile = sym.File
		f.SourceLine = sym.Line
		f.SourceLineBase = m.SymbolBase + sym.LineBase
	}
	if !wantInlines || len(sym.Inlines) == 0 {
		return nil, status
	}
	out := make([]*Frame, 0, len(sym.Inlines))
	for i, in := range sym.Inlines {
		name := in.Name
		if name == "" {
			name = "<name omitted>"
		}
		file, line := in.File, in.Line
		if file == "" {
			file = f.SourceFile // Breakpad copies the physical frame's file when the record has none
		}
		out = append(out, &Frame{
			Instruction:    f.Instruction,
			Context:        inlineContext(f),
			Trust:          TrustInline,
			Rule:           RuleInline,
			Module:         m,
			Function:       name,
			FunctionBase:   m.SymbolBase + in.Base,
			SourceFile:     file,
			SourceLine:     line,
			SourceLineBase: f.SourceLineBase,
			InlineDepth:    len(sym.Inlines) - i,
		})
	}
	// The physical frame shows the call site of the outermost inlined call.
	outer := sym.Inlines[len(sym.Inlines)-1]
	if outer.CallFile != "" {
		f.SourceFile = outer.CallFile
	}
	f.SourceLine = outer.CallLine
	return out, status
}

func inlineContext(f *Frame) (c minidump.Context) {
	c.Arch = f.Context.Arch
	return c
}

// NamedAt reports whether the function that names addr, as Symbolize
// would name it, is name and starts at addr; cheaper than Symbolize (no
// lines, inlines or copied name).
func (w *Walker) NamedAt(addr uint64, name string) bool {
	m := w.Env.Modules.At(addr)
	if m == nil && w.Env.Unloaded != nil {
		m = w.Env.Unloaded.At(addr)
	}
	if m == nil || w.Env.Symbols == nil {
		return false
	}
	file, _ := w.Env.Symbols.Symbols(m)
	if file == nil {
		return false
	}
	return file.StartsAt(addr-m.SymbolBase, name)
}

// moduleSymbols returns the symbol file of the module containing f.Instruction.
func (w *Walker) moduleSymbols(f *Frame) (*symfile.File, *Module) {
	m := f.Module
	if m == nil {
		m = w.Env.Modules.At(f.Instruction)
	}
	if m == nil || w.Env.Symbols == nil {
		return nil, m
	}
	file, _ := w.Env.Symbols.Symbols(m)
	return file, m
}

// CFIRules returns the STACK CFI rules at f.Instruction: the symbol
// file's, else (Extended mode) those of the module's executable file
// (Env.Native: its unwind tables, else its prologue).
func (w *Walker) CFIRules(f *Frame) (symfile.CFIRules, bool) {
	rules, _, ok := w.CFIRulesFrom(f)
	return rules, ok
}

// CFIRulesFrom is CFIRules and where the rules came from: a walker that
// unwinds a frame by them names its rule by the source (CFISource.Rule).
func (w *Walker) CFIRulesFrom(f *Frame) (symfile.CFIRules, CFISource, bool) {
	file, m := w.moduleSymbols(f)
	if file != nil {
		// Shared with the file: the walkers only read rules.
		if rules, ok := file.SharedCFIRules(f.Instruction - m.SymbolBase); ok {
			return rules, CFISymbols, true
		}
	}
	return w.nativeCFIRules(f)
}

// StackWin returns the STACK WIN record covering f.Instruction (FrameData preferred).
func (w *Walker) StackWin(f *Frame) (*symfile.StackWin, bool) {
	file, m := w.moduleSymbols(f)
	if file == nil {
		return nil, false
	}
	return file.StackWin(f.Instruction - m.SymbolBase)
}

// FuncParamSize returns the parameter size of the FUNC record covering
// f.Instruction (not PUBLIC), as Breakpad's FindWindowsFrameInfo fallback.
func (w *Walker) FuncParamSize(f *Frame) (uint32, bool) {
	file, m := w.moduleSymbols(f)
	if file == nil {
		return 0, false
	}
	rel := f.Instruction - m.SymbolBase
	sym, ok := file.Lookup(rel)
	if !ok || sym.IsPublic { // a FUNC Lookup finds covers rel
		return 0, false
	}
	return sym.ParamSize, true
}

// InstructionSeemsValid is Breakpad's test of a scanned candidate (given
// as return address − 1): it must lie in a loaded module and, when that
// module's symbols are loaded, inside a FUNC or PUBLIC symbol. In the
// Extended mode the executable bytes of the module's file (Env.Native)
// count as a function too: a stripped file has no symbols, and the walkers
// check the call site before such a candidate in the same bytes.
func (w *Walker) InstructionSeemsValid(addr uint64) bool {
	m := w.Env.Modules.At(addr)
	if m == nil {
		return false
	}
	if w.Env.Symbols == nil {
		return true
	}
	file, status := w.Env.Symbols.Symbols(m)
	if status != SymbolsLoaded && status != SymbolsCorrupt {
		return true
	}
	if file == nil {
		return w.nativeCode(addr)
	}
	// HasFunctionAt is Lookup's yes/no (a found symbol always has a
	// name) without parsing the function's lines and inlines.
	return file.HasFunctionAt(addr-m.SymbolBase) || w.nativeCode(addr)
}

// ScanForReturnAddress looks at the words from start to start+words*size
// inclusive (Breakpad's bound) for a value that seems a return address.
// It returns the location and the value.
func (w *Walker) ScanForReturnAddress(start uint64, words, size int) (loc, ip uint64, ok bool) {
	mask := ^uint64(0)
	if size == 4 {
		mask = 0xffffffff
	}
	start &= mask
	end := start + uint64(words)*uint64(size)
	if end < start {
		end = ^uint64(0)
	}
	for l := start; l <= end && l <= mask; l += uint64(size) {
		v, ok := w.ReadWord(l, size)
		if !ok {
			break
		}
		cand := (v - 1) & mask
		if w.InstructionSeemsValid(cand) { // also: inside a loaded module
			return l, v, true
		}
		if l+uint64(size) < l {
			break
		}
	}
	return 0, 0, false
}

// FunctionSpan is the symbol that names an address: its name, its start
// (absolute), and its size, 0 for a PUBLIC symbol, whose end is unknown.
type FunctionSpan struct {
	Name       string
	Base, Size uint64
	Public     bool
}

// End returns the first address past a FUNC's range (0 for a PUBLIC).
func (s FunctionSpan) End() uint64 {
	if s.Size == 0 {
		return 0
	}
	return s.Base + s.Size
}

// FunctionAt returns the symbol naming addr in its module's symbol file,
// as Symbolize would name it.
func (w *Walker) FunctionAt(addr uint64) (FunctionSpan, bool) {
	file, m := w.moduleSymbols(&Frame{Instruction: addr})
	if file == nil {
		return FunctionSpan{}, false
	}
	sym, ok := file.Lookup(addr - m.SymbolBase)
	if !ok {
		return FunctionSpan{}, false
	}
	return FunctionSpan{Name: sym.Name, Base: m.SymbolBase + sym.Base, Size: sym.Size, Public: sym.IsPublic}, true
}
