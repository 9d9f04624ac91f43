package walker

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// CFIRegister maps one register of an architecture for STACK CFI rules
// (Breakpad's SimpleCFIWalker register map): symfile's type, so that a
// compiled row's names resolve against an architecture's table once.
type CFIRegister = symfile.CFIRegister

// CallerByCFI applies rules to callee's registers and returns the caller's
// context: a register is valid when its rule (or its alternate name's)
// evaluates, or when it is callee-saved and valid in the callee. regs is
// an architecture's table, not changed while walks use it: a compiled
// row's names are resolved against it once per table and row
// (symfile.Evaluator.CallerRegsTable), and the Walker packs its names
// once for the rules evaluated from their strings (cfiRegisters.setTable).
func (w *Walker) CallerByCFI(rules symfile.CFIRules, callee *Frame, regs []CFIRegister) (minidump.Context, bool) {
	if caller, done, ok := w.callerByCFITable(&rules, callee, regs); done {
		return caller, ok
	}
	// The registers go through the walk's own evaluator and register
	// file, kept in the Walker: a map of the callee's registers and one
	// of the caller's per frame were a third of a batch's allocations.
	cr := &w.cfi
	if cap(cr.vals) < len(regs) {
		cr.vals = make([]cfiValue, len(regs))
	}
	cr.setTable(regs)
	cr.callee, cr.vals = &callee.Context, cr.vals[:len(regs)]
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

// callerByCFITable is CallerByCFI by the entries of regs, with no name
// compared, when rules carry their current compiled program (done).
func (w *Walker) callerByCFITable(rules *symfile.CFIRules, callee *Frame, regs []CFIRegister) (caller minidump.Context, done, ok bool) {
	if rules.Compiled == nil || len(regs) > symfile.MaxCFITable {
		return minidump.Context{}, false, false
	}
	f := &w.cfiFrame
	f.CalleeKnown = 0
	for i, r := range regs {
		if v, ok := callee.Context.Index(r.Index); ok {
			f.Callee[i] = v
			f.CalleeKnown |= 1 << i
		}
	}
	done, err := w.eval.CallerRegsTable(rules, regs, f, w.SymbolMemory(), callee.Context.WordSize())
	if !done || err != nil {
		return minidump.Context{}, done, false
	}
	caller = minidump.NewContext(callee.Context.Arch)
	for i, r := range regs {
		switch bit := uint64(1) << i; {
		case f.HasName&bit != 0:
			caller.SetIndex(r.Index, f.ByName[i])
		case f.HasAlt&bit != 0:
			caller.SetIndex(r.Index, f.ByAlt[i])
		case r.CalleeSaves && f.CalleeKnown&bit != 0:
			caller.SetIndex(r.Index, f.Callee[i])
		}
	}
	return caller, true, true
}

// cfiRegisters is symfile.Registers over a callee's context and an
// architecture's register table: vals[i] is what the rules gave for
// regs[i], by its name and by its alternate name (.cfa, .ra).
type cfiRegisters struct {
	callee *minidump.Context
	regs   []CFIRegister
	vals   []cfiValue
	// keys[i] are regs[i]'s names packed (packCFIName), built once per
	// register table: every rule's register and every name a rule reads
	// is looked up in the table, and comparing packed names costs a
	// fraction of comparing the strings (5% of a warm batch's CPU went to
	// those string comparisons).
	keys    []cfiKey
	keyed   *CFIRegister // &regs[0] when keys were built
	keysBuf [40]cfiKey   // keys' backing array for tables up to arm64's 33 entries: no allocation per walk
}

type cfiValue struct {
	name, alt     uint64
	byName, byAlt bool
}

type cfiKey struct{ name, alt uint64 }

// packCFIName packs a register name into a word: its length (mod 256) in
// the top byte and its first 7 bytes below. Two names of up to 7 bytes
// are equal exactly when their packed words are; longer names with equal
// words must still be compared (sameCFIName).
func packCFIName(s string) uint64 {
	k := uint64(len(s)&0xff) << 56
	for i := 0; i < len(s) && i < 7; i++ {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// sameCFIName reports whether table, packed as key, is name, packed as k.
func sameCFIName(key, k uint64, table, name string) bool {
	return key == k && (len(name) <= 7 || table == name)
}

// setTable points c at regs, packing their names when the table changed.
func (c *cfiRegisters) setTable(regs []CFIRegister) {
	c.regs = regs
	if len(regs) == 0 || (c.keyed == &regs[0] && len(c.keys) == len(regs)) {
		return
	}
	c.keys = c.keysBuf[:0]
	for _, r := range regs {
		c.keys = append(c.keys, cfiKey{name: packCFIName(r.Name), alt: packCFIName(r.Alt)})
	}
	c.keyed = &regs[0]
}

// Register returns the callee's register of that name: of the table's
// last entry with the name whose value is known, as a map filled in the
// table's order would hold.
func (c *cfiRegisters) Register(name string) (uint64, bool) {
	k := packCFIName(name)
	for i := len(c.regs) - 1; i >= 0; i-- {
		if sameCFIName(c.keys[i].name, k, c.regs[i].Name, name) {
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
	k := packCFIName(name)
	for i := range c.regs {
		if sameCFIName(c.keys[i].name, k, c.regs[i].Name, name) {
			c.vals[i].name, c.vals[i].byName = v, true
		}
		if c.regs[i].Alt != "" && sameCFIName(c.keys[i].alt, k, c.regs[i].Alt, name) {
			c.vals[i].alt, c.vals[i].byAlt = v, true
		}
	}
}
