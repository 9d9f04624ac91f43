package walker

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// CFIRegister maps one register of an architecture for STACK CFI rules
// (Breakpad's SimpleCFIWalker register map).
type CFIRegister struct {
	Index       int    // register index in minidump.Context
	Name        string // the name CFI rules use ("$rbx" on x86/amd64, "r4" on arm)
	Alt         string // alternate name: ".cfa" for the stack pointer, ".ra" for the IP
	CalleeSaves bool   // the callee preserves it: with no rule the caller keeps the callee's value
}

// CallerByCFI applies rules to callee's registers and returns the caller's
// context: a register is valid when its rule (or its alternate name's)
// evaluates, or when it is callee-saved and valid in the callee.
func (w *Walker) CallerByCFI(rules symfile.CFIRules, callee *Frame, regs []CFIRegister) (minidump.Context, bool) {
	ws := callee.Context.WordSize()
	in := make(map[string]uint64, len(regs))
	for _, r := range regs {
		if v, ok := callee.Context.Index(r.Index); ok {
			in[r.Name] = v
		}
	}
	out, err := rules.FindCallerRegs(in, w.SymbolMemory(), ws)
	if err != nil {
		return minidump.Context{}, false
	}
	caller := minidump.NewContext(callee.Context.Arch)
	for _, r := range regs {
		if v, ok := out[r.Name]; ok {
			caller.SetIndex(r.Index, v)
			continue
		}
		if r.Alt != "" {
			if v, ok := out[r.Alt]; ok {
				caller.SetIndex(r.Index, v)
				continue
			}
		}
		if r.CalleeSaves {
			if v, ok := callee.Context.Index(r.Index); ok {
				caller.SetIndex(r.Index, v)
			}
		}
	}
	return caller, true
}
