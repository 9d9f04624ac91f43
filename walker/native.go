package walker

import "github.com/minidump-stackwalk/minidump-stackwalk/symfile"

// NativeSource gives what the modules' own executable files show beyond
// their symbol files (--use-local-debuginfo with ELF files whose build id
// matches): unwind rules for code the symbol file has no CFI for, and
// which addresses are the module's code. Implementations must be safe for
// concurrent use. The walkers read it only in the Extended mode.
type NativeSource interface {
	// Native returns m's executable file, nil when it is not at hand.
	Native(m *Module) NativeModule
}

// NativeModule is one module's executable file. Addresses are relative to
// the module's SymbolBase, as in its symbol file.
type NativeModule interface {
	// CFIRules returns the unwind rules at q.Rel from the file's unwind
	// tables (CFIUnwindTables) or, where none covers it, from the
	// prologue of the function containing it (CFIPrologue).
	CFIRules(q NativeQuery) (symfile.CFIRules, CFISource, bool)
	// FunctionStart returns the start of the function containing rel as
	// the file's own evidence gives it (unwind entries, symbols, the
	// entry point): the nearest start at or below rel.
	FunctionStart(rel uint64) (uint64, bool)
	// IsCode reports whether rel lies in the file's executable,
	// file-backed bytes.
	IsCode(rel uint64) bool
	// ReadCode fills p with the file's bytes at rel; false unless they
	// all are executable file-backed bytes.
	ReadCode(rel uint64, p []byte) bool
}

// NativeQuery asks a NativeModule for the unwind rules of a frame.
type NativeQuery struct {
	// Rel is the frame's Instruction relative to the module's SymbolBase
	// (on ARM, a caller's keeps the Thumb bit of its return address).
	Rel uint64
	// SymStart, with HaveStart set, is the start of the function
	// containing Rel as the symbol file gives it; the file's own evidence
	// of function starts (unwind entries, symbols, call targets) is used
	// too.
	SymStart  uint64
	HaveStart bool
	// Context is set for the thread's context frame: Rel is the next
	// instruction to run, not inside a call, so the function need not
	// have saved its return address.
	Context bool
}

// CFISource says where a frame's unwind rules came from.
type CFISource uint8

// CFI sources.
const (
	CFISymbols      CFISource = iota // the symbol file's STACK CFI
	CFIUnwindTables                  // the module file's unwind tables (.eh_frame, .debug_frame, .ARM.exidx)
	CFIPrologue                      // the module file's code: the function's prologue, analysed (internal/prologue)
)

// Rule is the rule of a frame unwound by rules from s: RuleModulePrologue
// for rules read from a prologue, which no compiler wrote, else RuleCFI.
func (s CFISource) Rule() Rule {
	if s == CFIPrologue {
		return RuleModulePrologue
	}
	return RuleCFI
}

// native returns the executable file of the module containing addr, in
// the Extended mode only.
func (w *Walker) native(addr uint64) (NativeModule, *Module) {
	if w.Env.Native == nil || w.Env.Mode == Breakpad {
		return nil, nil
	}
	m := w.Env.Modules.At(addr)
	if m == nil {
		return nil, nil
	}
	return w.Env.Native.Native(m), m
}

// nativeCFIRules returns the rules the module's executable file gives at
// f.Instruction (see NativeModule.CFIRules).
func (w *Walker) nativeCFIRules(f *Frame) (symfile.CFIRules, CFISource, bool) {
	nm, m := w.native(f.Instruction)
	if nm == nil {
		return symfile.CFIRules{}, CFISymbols, false
	}
	q := NativeQuery{Rel: f.Instruction - m.SymbolBase, Context: f.Trust == TrustContext}
	if f.Module == m && f.Function != "" && f.FunctionBase >= m.SymbolBase && f.FunctionBase <= f.Instruction {
		q.SymStart, q.HaveStart = f.FunctionBase&^1-m.SymbolBase, true // ARM symbols carry the Thumb bit
	}
	return nm.CFIRules(q)
}

// nativeCode reports whether addr lies in the executable bytes of its
// module's file.
func (w *Walker) nativeCode(addr uint64) bool {
	nm, m := w.native(addr)
	return nm != nil && nm.IsCode(addr-m.SymbolBase)
}

// nativeStartsAt reports whether the function containing f.Instruction
// starts at addr by the evidence of its module's file, for a frame no
// symbol names.
func (w *Walker) nativeStartsAt(f *Frame, addr uint64) bool {
	nm, m := w.native(f.Instruction)
	if nm == nil || addr < m.SymbolBase {
		return false
	}
	start, ok := nm.FunctionStart(f.Instruction&^1 - m.SymbolBase)
	return ok && start == addr&^1-m.SymbolBase
}
