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
	// The registers go through the walk's own evaluator and register
	// file, kept in the Walker: a map of the callee's registers and one
	// of the caller's per frame were a third of a batch's allocations.
	cr := &w.cfi
	if cap(cr.vals) < len(regs) {
		cr.vals = make([]cfiValue, len(regs))
	}
	cr.callee, cr.regs, cr.vals = &callee.Context, regs, cr.vals[:len(regs)]
	clear(cr.vals)
	err := w.eval.CallerRegs(&rules, cr, w.SymbolMemory(), callee.Context.WordSize())
	cr.callee, cr.regs = nil, nil
	if err != nil {
		return minidump.Context{}, false
	}
	caller := minidump.NewContext(callee.Context.Arch)
	for i, r := range regs {
		switch v := &cr.vals[i]; {
		case v.byName:
			caller.SetIndex(r.Index, v.name)
		case v.byAlt:
			caller.SetIndex(r.Index, v.alt)
		case r.CalleeSaves:
			if v, ok := callee.Context.Index(r.Index); ok {
				caller.SetIndex(r.Index, v)
			}
		}
	}
	return caller, true
}

// cfiRegisters is symfile.Registers over a callee's context and an
// architecture's register table: vals[i] is what the rules gave for
// regs[i], by its name and by its alternate name (.cfa, .ra).
type cfiRegisters struct {
	callee *minidump.Context
	regs   []CFIRegister
	vals   []cfiValue
}

type cfiValue struct {
	name, alt     uint64
	byName, byAlt bool
}

// Register returns the callee's register of that name: of the table's
// last entry with the name whose value is known, as a map filled in the
// table's order would hold.
func (c *cfiRegisters) Register(name string) (uint64, bool) {
	for i := len(c.regs) - 1; i >= 0; i-- {
		if c.regs[i].Name == name {
			if v, ok := c.callee.Index(c.regs[i].Index); ok {
				return v, true
			}
		}
	}
	return 0, false
}

// SetCaller notes the caller's value of every register named name (or
// whose alternate name it is); a later value replaces an earlier one.
func (c *cfiRegisters) SetCaller(name string, v uint64) {
	for i := range c.regs {
		if c.regs[i].Name == name {
			c.vals[i].name, c.vals[i].byName = v, true
		}
		if c.regs[i].Alt != "" && c.regs[i].Alt == name {
			c.vals[i].alt, c.vals[i].byAlt = v, true
		}
	}
}
