package walker

import "strings"

// vdsoNames are the names minidump writers give the vDSO's module:
// Breakpad's and core2md's "linux-gate.so", the kernel's soname, and the
// maps file's pseudo-path.
var vdsoNames = []string{"linux-gate.so", "linux-vdso.so.1", "[vdso]"}

// IsVDSO says whether m is the kernel's vDSO.
func IsVDSO(m *Module) bool {
	if m == nil {
		return false
	}
	name := m.CodeFile
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, v := range vdsoNames {
		if name == v {
			return true
		}
	}
	return false
}

// MaybeSigreturnWithoutCode reports whether a caller frame's pc may be a
// sigreturn trampoline the dump cannot show: the code at pc is not in
// the dump, and pc lies in the vDSO (where a caller frame's pc is only
// ever a trampoline: nothing there calls out), or inside a function of
// the symbol file that has no CFI at pc (a static glibc's restorer,
// which dump_syms folds into the preceding function and gives no STACK
// CFI). The caller must then find the kernel's signal frame on the
// stack, by layout, before trusting it; why names the evidence for the
// trace. Only the extended tables' signal-frame rules ask (Breakpad
// knows no signal frames).
func (w *Walker) MaybeSigreturnWithoutCode(f *Frame) (why string, ok bool) {
	if f.Trust == TrustContext {
		return "", false
	}
	var b [1]byte
	if w.ReadCode(f.Instruction, b[:]) {
		return "", false // the code decides
	}
	m := w.ModuleAt(f.Instruction)
	if IsVDSO(m) {
		return "pc in the vDSO, its code not in the dump", true
	}
	if m == nil {
		return "", false
	}
	at := &Frame{Instruction: f.Instruction}
	if file, _ := w.moduleSymbols(at); file != nil && file.HasCFI(f.Instruction-m.SymbolBase) {
		return "", false // the symbols' CFI, found first below: no need to name the function
	}
	w.Symbolize(at, false)
	if at.Function == "" {
		return "", false
	}
	if _, ok := w.CFIRules(at); ok {
		return "", false
	}
	return "pc inside " + at.Function + ", no CFI there, its code not in the dump", true
}
