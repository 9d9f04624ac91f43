package elfcfi

import (
	"debug/elf"
	"sort"
)

// RuleKind says how a register's value in the caller is found.
type RuleKind uint8

const (
	RuleUndefined     RuleKind = iota + 1 // DW_CFA_undefined: not recoverable
	RuleSameValue                         // unchanged from the callee
	RuleOffset                            // saved at CFA+Offset
	RuleValOffset                         // the value is CFA+Offset
	RuleRegister                          // the value is in register Reg of the callee
	RuleExpression                        // saved at the address Expr computes (CFA pushed first)
	RuleValExpression                     // the value is what Expr computes (CFA pushed first)
)

// Rule is one register's rule.
type Rule struct {
	Kind   RuleKind
	Offset int64  // RuleOffset, RuleValOffset
	Reg    uint64 // RuleRegister
	Expr   []byte // RuleExpression, RuleValExpression
}

// CFARule computes the Canonical Frame Address: Reg+Offset, or Expr when it
// is not nil (Reg and Offset then keep their last values, which a later
// DW_CFA_def_cfa_register returns to).
type CFARule struct {
	Reg    uint64
	Offset int64
	Expr   []byte
}

// RegRule is a register number and its rule.
type RegRule struct {
	Reg  uint64
	Rule Rule
}

// Row is the rule set in force over [Loc, End). A register without a rule
// keeps the architecture's default (callee-saved registers the same value).
type Row struct {
	Loc, End uint64
	CFA      CFARule
	Regs     []RegRule // sorted by register number
	// RASigned is AArch64's RA_SIGN_STATE: the return address is signed
	// with pointer authentication and must be stripped.
	RASigned bool
}

// Rule returns the rule of register reg, if the row has one.
func (r *Row) Rule(reg uint64) (Rule, bool) {
	i := sort.Search(len(r.Regs), func(i int) bool { return r.Regs[i].Reg >= reg })
	if i < len(r.Regs) && r.Regs[i].Reg == reg {
		return r.Regs[i].Rule, true
	}
	return Rule{}, false
}

func (r *Row) set(reg uint64, rule Rule) {
	i := sort.Search(len(r.Regs), func(i int) bool { return r.Regs[i].Reg >= reg })
	if i < len(r.Regs) && r.Regs[i].Reg == reg {
		r.Regs[i].Rule = rule
		return
	}
	r.Regs = append(r.Regs, RegRule{})
	copy(r.Regs[i+1:], r.Regs[i:])
	r.Regs[i] = RegRule{reg, rule}
}

func (r *Row) unset(reg uint64) {
	i := sort.Search(len(r.Regs), func(i int) bool { return r.Regs[i].Reg >= reg })
	if i < len(r.Regs) && r.Regs[i].Reg == reg {
		r.Regs = append(r.Regs[:i], r.Regs[i+1:]...)
	}
}

func (r Row) clone() Row {
	r.Regs = append([]RegRule(nil), r.Regs...)
	return r
}

// Bounds on what a hostile entry can make the interpreter hold.
const (
	maxRegs       = 512 // distinct registers with rules in one row
	maxRegNumber  = 1<<16 - 1
	maxStateDepth = 64 // DW_CFA_remember_state nesting
)

// DW_CFA_* opcodes.
const (
	cfaNop                    = 0x00
	cfaSetLoc                 = 0x01
	cfaAdvanceLoc1            = 0x02
	cfaAdvanceLoc2            = 0x03
	cfaAdvanceLoc4            = 0x04
	cfaOffsetExtended         = 0x05
	cfaRestoreExtended        = 0x06
	cfaUndefined              = 0x07
	cfaSameValue              = 0x08
	cfaRegister               = 0x09
	cfaRememberState          = 0x0a
	cfaRestoreState           = 0x0b
	cfaDefCFA                 = 0x0c
	cfaDefCFARegister         = 0x0d
	cfaDefCFAOffset           = 0x0e
	cfaDefCFAExpression       = 0x0f
	cfaExpression             = 0x10
	cfaOffsetExtendedSF       = 0x11
	cfaDefCFASF               = 0x12
	cfaDefCFAOffsetSF         = 0x13
	cfaValOffset              = 0x14
	cfaValOffsetSF            = 0x15
	cfaValExpression          = 0x16
	cfaMIPSAdvanceLoc8        = 0x1d
	cfaAArch64NegateRAStatePC = 0x2c
	cfaGNUWindowSave          = 0x2d // AArch64: DW_CFA_AARCH64_negate_ra_state
	cfaGNUArgsSize            = 0x2e
	cfaGNUNegOffsetExtended   = 0x2f
	cfaAdvanceLoc             = 0x40
	cfaOffset                 = 0x80
	cfaRestore                = 0xc0
)

// machine runs CFA instructions.
type machine struct {
	s       *Section
	cie     *CIE
	row     Row
	initial Row // the row after the CIE's instructions, for DW_CFA_restore
	stack   []Row
	end     uint64
	// emit is called with each finished row; returning false stops.
	emit func(Row) bool
	// event, when set, is told of every rule an instruction sets.
	event func(Event)
	// restored are the registers DW_CFA_restore left without a rule; to
	// Breakpad they have the same-value rule, which matters to the events
	// of DW_CFA_restore_state. restoredStack parallels stack.
	restored      map[uint64]bool
	restoredStack []map[uint64]bool
}

// Event is a rule set by one instruction at location Loc: the CFA rule when
// CFA is true, else register Reg's rule. DW_CFA_restore of a register the
// CIE gave no rule reports RuleSameValue, and DW_CFA_restore_state reports
// the rules that differ from the remembered ones, as Breakpad's CFI reader
// does; Events lets a converter to Breakpad's STACK CFI records emit the
// same records.
type Event struct {
	Loc     uint64
	CFA     bool
	CFARule CFARule
	// CFAModified: the instruction changed the register or the offset
	// of the CFA rule (DW_CFA_def_cfa_register, DW_CFA_def_cfa_offset,
	// DW_CFA_def_cfa_offset_sf) rather than replacing it. Breakpad's
	// reader leaves an expression CFA an expression then.
	CFAModified bool
	Reg         uint64
	Rule        Rule
}

// Events executes the FDE's instructions (the CIE's first) and calls fn for
// each rule they set, in order.
func (f *FDE) Events(fn func(Event)) error {
	m := &machine{s: f.section, cie: f.CIE, end: f.End, emit: func(Row) bool { return true }, event: fn}
	m.row.Loc = f.Begin
	if err := m.exec(f.CIE.Instructions, f.CIE.instructionAt, true); err != nil {
		return err
	}
	m.initial = m.row.clone()
	return m.exec(f.Instructions, f.instructionAt, false)
}

func (m *machine) cfaEvent() { m.cfaEventFrom(false) }

func (m *machine) cfaEventFrom(modified bool) {
	if m.event != nil {
		m.event(Event{Loc: m.row.Loc, CFA: true, CFARule: m.row.CFA, CFAModified: modified})
	}
}

func (m *machine) regEvent(reg uint64, r Rule) {
	if m.event != nil {
		m.event(Event{Loc: m.row.Loc, Reg: reg, Rule: r})
	}
}

// transitionEvents reports the changes from the current row to the
// remembered row to, registers restored to no rule counting as same-value
// ones (toRestored are those of to).
func (m *machine) transitionEvents(to *Row, toRestored map[uint64]bool) {
	if m.event == nil {
		return
	}
	if !sameCFA(m.row.CFA, to.CFA) {
		m.event(Event{Loc: m.row.Loc, CFA: true, CFARule: to.CFA})
	}
	rule := func(r *Row, restored map[uint64]bool, reg uint64) (Rule, bool) {
		if rr, ok := r.Rule(reg); ok {
			return rr, true
		}
		return Rule{Kind: RuleSameValue}, restored[reg]
	}
	var regs []uint64
	for _, rr := range m.row.Regs {
		regs = append(regs, rr.Reg)
	}
	for _, rr := range to.Regs {
		regs = append(regs, rr.Reg)
	}
	for reg := range m.restored {
		regs = append(regs, reg)
	}
	for reg := range toRestored {
		regs = append(regs, reg)
	}
	sort.Slice(regs, func(i, j int) bool { return regs[i] < regs[j] })
	for i, reg := range regs {
		if i > 0 && regs[i-1] == reg {
			continue
		}
		old, hadOld := rule(&m.row, m.restored, reg)
		nw, hasNew := rule(to, toRestored, reg)
		switch {
		case hadOld && !hasNew:
			m.regEvent(reg, Rule{Kind: RuleSameValue})
		case hasNew && (!hadOld || !sameRule(old, nw)):
			m.regEvent(reg, nw)
		}
	}
}

func copySet(s map[uint64]bool) map[uint64]bool {
	c := make(map[uint64]bool, len(s))
	for k := range s {
		c[k] = true
	}
	return c
}

func sameCFA(a, b CFARule) bool {
	if a.Expr != nil || b.Expr != nil {
		return a.Expr != nil && b.Expr != nil && string(a.Expr) == string(b.Expr)
	}
	return a.Reg == b.Reg && a.Offset == b.Offset
}

func sameRule(a, b Rule) bool {
	return a.Kind == b.Kind && a.Offset == b.Offset && a.Reg == b.Reg && string(a.Expr) == string(b.Expr)
}

func (m *machine) advance(to uint64, at uint64) error {
	if to < m.row.Loc {
		return m.s.errAt(at, "location %#x goes backwards from %#x", to, m.row.Loc)
	}
	if to == m.row.Loc {
		return nil
	}
	if to > m.end {
		to = m.end // a hostile advance cannot make a row past the FDE
	}
	r := m.row // emit copies what it keeps
	r.End = to
	if !m.emit(r) {
		return errStop
	}
	m.row.Loc = to
	return nil
}

var errStop = &FormatError{Msg: "stop"}

// exec runs one instruction stream. inCIE forbids location changes.
func (m *machine) exec(code []byte, base uint64, inCIE bool) error {
	b := &buf{Data: code, Base: base, Order: m.s.arch.Order}
	err := m.execBuf(b, inCIE)
	if err == errStop {
		return nil
	}
	return err
}

func (m *machine) execBuf(b *buf, inCIE bool) error {
	for b.Left() > 0 {
		at := b.Off()
		op := b.U8()
		var arg uint64
		if hi := op & 0xc0; hi != 0 {
			arg = uint64(op & 0x3f)
			op = hi
		}
		bad := func(format string, args ...any) error { return m.s.errAt(at, format, args...) }
		if err := m.execOp(b, at, op, arg, inCIE, bad); err != nil {
			return err
		}
		if b.Err != nil {
			return bad("truncated DW_CFA instruction %#x: %v", op, b.Err)
		}
	}
	return nil
}

// badFunc makes the error of the instruction being executed.
type badFunc = func(format string, args ...any) error

// execOp executes one instruction at offset at: its opcode op and, for the
// three opcodes with an operand in their low bits, that operand arg.
func (m *machine) execOp(b *buf, at uint64, op byte, arg uint64, inCIE bool, bad badFunc) error {
	switch op {
	case cfaAdvanceLoc, cfaAdvanceLoc1, cfaAdvanceLoc2, cfaAdvanceLoc4, cfaMIPSAdvanceLoc8, cfaSetLoc:
		return m.execLocation(b, at, op, arg, inCIE, bad)
	case cfaRememberState, cfaRestoreState:
		return m.execState(op, bad)
	case cfaDefCFA, cfaDefCFASF, cfaDefCFARegister, cfaDefCFAOffset, cfaDefCFAOffsetSF, cfaDefCFAExpression:
		m.execCFA(b, op)
		return nil
	case cfaNop:
		return nil
	case cfaGNUArgsSize:
		b.ULEB() // the outgoing argument area: not needed to unwind
		return nil
	case cfaGNUWindowSave, cfaAArch64NegateRAStatePC:
		if m.s.arch.Machine != elf.EM_AARCH64 {
			return bad("DW_CFA opcode %#x is only supported on AArch64", op)
		}
		m.row.RASigned = !m.row.RASigned
		return nil
	}
	return m.execRegister(b, op, arg, bad)
}

// execLocation executes the instructions that move the location: they end
// a row.
func (m *machine) execLocation(b *buf, at uint64, op byte, arg uint64, inCIE bool, bad badFunc) error {
	c := m.cie
	if op == cfaSetLoc {
		if inCIE {
			return bad("CIE instructions may not set the location")
		}
		enc := c.FDEEncoding
		if m.s.kind == DebugFrame {
			enc = sizeEncoding(int(c.AddressSize))
		}
		to, err := m.s.readPointer(b, enc, 0)
		if err != nil {
			return err
		}
		return m.advance(to, at)
	}
	delta := arg
	switch op {
	case cfaAdvanceLoc1:
		delta = uint64(b.U8())
	case cfaAdvanceLoc2:
		delta = uint64(b.U16())
	case cfaAdvanceLoc4:
		delta = uint64(b.U32())
	case cfaMIPSAdvanceLoc8:
		delta = b.U64()
	}
	if inCIE {
		return bad("CIE instructions may not advance the location")
	}
	if c.CodeAlign != 0 && delta > (^uint64(0))/c.CodeAlign {
		return bad("location advance overflows")
	}
	to := m.row.Loc + delta*c.CodeAlign
	if to < m.row.Loc {
		return bad("location advance overflows")
	}
	return m.advance(to, at)
}

// execRegister executes the instructions that set one register's rule.
func (m *machine) execRegister(b *buf, op byte, arg uint64, bad badFunc) error {
	c := m.cie
	switch op {
	case cfaOffset:
		return m.setReg(bad, arg, Rule{Kind: RuleOffset, Offset: int64(b.ULEB()) * c.DataAlign})
	case cfaRestore:
		return m.restore(bad, arg)
	case cfaOffsetExtended:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleOffset, Offset: int64(b.ULEB()) * c.DataAlign})
	case cfaOffsetExtendedSF:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleOffset, Offset: b.SLEB() * c.DataAlign})
	case cfaGNUNegOffsetExtended:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleOffset, Offset: -int64(b.ULEB()) * c.DataAlign})
	case cfaValOffset:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleValOffset, Offset: int64(b.ULEB()) * c.DataAlign})
	case cfaValOffsetSF:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleValOffset, Offset: b.SLEB() * c.DataAlign})
	case cfaRestoreExtended:
		return m.restore(bad, b.ULEB())
	case cfaUndefined:
		return m.setReg(bad, b.ULEB(), Rule{Kind: RuleUndefined})
	case cfaSameValue:
		return m.setReg(bad, b.ULEB(), Rule{Kind: RuleSameValue})
	case cfaRegister:
		reg := b.ULEB()
		return m.setReg(bad, reg, Rule{Kind: RuleRegister, Reg: b.ULEB()})
	case cfaExpression, cfaValExpression:
		reg := b.ULEB()
		expr := b.Bytes(b.ULEB())
		kind := RuleExpression
		if op == cfaValExpression {
			kind = RuleValExpression
		}
		if b.Err != nil {
			return nil // reported as truncated
		}
		return m.setReg(bad, reg, Rule{Kind: kind, Expr: expr})
	}
	return bad("unknown DW_CFA opcode %#x", op)
}

// execState executes DW_CFA_remember_state and DW_CFA_restore_state.
func (m *machine) execState(op byte, bad badFunc) error {
	if op == cfaRememberState {
		if len(m.stack) >= maxStateDepth {
			return bad("DW_CFA_remember_state nested over %d deep", maxStateDepth)
		}
		m.stack = append(m.stack, m.row.clone())
		m.restoredStack = append(m.restoredStack, copySet(m.restored))
		return nil
	}
	if len(m.stack) == 0 {
		return bad("DW_CFA_restore_state with no remembered state")
	}
	// The location is not part of the remembered state.
	saved := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	savedRestored := m.restoredStack[len(m.restoredStack)-1]
	m.restoredStack = m.restoredStack[:len(m.restoredStack)-1]
	saved.Loc = m.row.Loc
	m.transitionEvents(&saved, savedRestored)
	m.restored = savedRestored
	m.row = saved
	return nil
}

// execCFA executes the instructions that set the CFA rule.
func (m *machine) execCFA(b *buf, op byte) {
	c := m.cie
	switch op {
	case cfaDefCFA:
		reg := b.ULEB()
		off := b.ULEB()
		m.row.CFA = CFARule{Reg: reg, Offset: int64(off)}
		m.cfaEvent()
	case cfaDefCFASF:
		reg := b.ULEB()
		off := b.SLEB()
		m.row.CFA = CFARule{Reg: reg, Offset: off * c.DataAlign}
		m.cfaEvent()
	case cfaDefCFARegister:
		// On an expression CFA (invalid DWARF that GCC emits),
		// GCC's unwinder and readelf go back to register+offset
		// with the last offset set: so do we.
		m.row.CFA.Reg = b.ULEB()
		m.row.CFA.Expr = nil
		m.cfaEventFrom(true)
	case cfaDefCFAOffset:
		// On an expression CFA the offset is kept for a later
		// DW_CFA_def_cfa_register, as GCC's unwinder does.
		m.row.CFA.Offset = int64(b.ULEB())
		m.cfaEventFrom(true)
	case cfaDefCFAOffsetSF:
		m.row.CFA.Offset = b.SLEB() * c.DataAlign
		m.cfaEventFrom(true)
	case cfaDefCFAExpression:
		expr := b.Bytes(b.ULEB())
		if b.Err == nil {
			m.row.CFA.Expr = expr // Reg and Offset kept, as above
			m.cfaEvent()
		}
	}
}

func (m *machine) setReg(bad func(string, ...any) error, reg uint64, r Rule) error {
	if reg > maxRegNumber {
		return bad("register %d out of range", reg)
	}
	if _, ok := m.row.Rule(reg); !ok && len(m.row.Regs) >= maxRegs {
		return bad("more than %d registers with rules", maxRegs)
	}
	m.row.set(reg, r)
	delete(m.restored, reg)
	m.regEvent(reg, r)
	return nil
}

// restore gives reg the rule the CIE's instructions gave it, or none.
func (m *machine) restore(bad func(string, ...any) error, reg uint64) error {
	if r, ok := m.initial.Rule(reg); ok {
		return m.setReg(bad, reg, r)
	}
	m.row.unset(reg)
	if m.restored == nil {
		m.restored = map[uint64]bool{}
	}
	if len(m.restored) < maxRegs {
		m.restored[reg] = true
	}
	m.regEvent(reg, Rule{Kind: RuleSameValue})
	return nil
}
