package dumpsyms

import (
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
)

// cfiEntry is a STACK CFI INIT record and its delta records.
type cfiEntry struct {
	addr, size uint64
	initial    map[string]string
	changes    map[uint64]map[string]string
	// fromExpr marks the rules translated from DWARF expressions, by
	// address and name: Google's dump_syms drops those (tests use this).
	fromExpr map[cfiRuleKey]bool
}

type cfiRuleKey struct {
	addr uint64
	name string
}

// Breakpad's register names by DWARF number (dwarf_cfi_to_module.cc). The
// x86 lists are static data; the longer ARM lists are built when a file of
// their machine is converted, so that no list costs the program's start.
var (
	x86RegNames = []string{"$eax", "$ecx", "$edx", "$ebx", "$esp", "$ebp", "$esi", "$edi",
		"$eip", "$eflags", "$unused1",
		"$st0", "$st1", "$st2", "$st3", "$st4", "$st5", "$st6", "$st7",
		"$unused2", "$unused3",
		"$xmm0", "$xmm1", "$xmm2", "$xmm3", "$xmm4", "$xmm5", "$xmm6", "$xmm7",
		"$mm0", "$mm1", "$mm2", "$mm3", "$mm4", "$mm5", "$mm6", "$mm7",
		"$fcw", "$fsw", "$mxcsr",
		"$es", "$cs", "$ss", "$ds", "$fs", "$gs", "$unused4", "$unused5",
		"$tr", "$ldtr"}
	amd64RegNames = []string{"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp",
		"$r8", "$r9", "$r10", "$r11", "$r12", "$r13", "$r14", "$r15",
		"$rip",
		"$xmm0", "$xmm1", "$xmm2", "$xmm3", "$xmm4", "$xmm5", "$xmm6", "$xmm7",
		"$xmm8", "$xmm9", "$xmm10", "$xmm11", "$xmm12", "$xmm13", "$xmm14", "$xmm15",
		"$st0", "$st1", "$st2", "$st3", "$st4", "$st5", "$st6", "$st7",
		"$mm0", "$mm1", "$mm2", "$mm3", "$mm4", "$mm5", "$mm6", "$mm7",
		"$rflags",
		"$es", "$cs", "$ss", "$ds", "$fs", "$gs", "$unused1", "$unused2",
		"$fs.base", "$gs.base", "$unused3", "$unused4",
		"$tr", "$ldtr",
		"$mxcsr", "$fcw", "$fsw"}
	// armCoreRegNames are ARM's DWARF registers 0-25.
	armCoreRegNames = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
		"r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc",
		"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7",
		"fps", "cpsr"}
)

// regNames returns Breakpad's register names by DWARF number for machine m,
// nil for a machine it has none for.
func regNames(m elf.Machine) []string {
	switch m {
	case elf.EM_386:
		return x86RegNames
	case elf.EM_X86_64:
		return amd64RegNames
	case elf.EM_ARM: // 26-63 unnamed, 64-95 s0-s31, 96-103 f0-f7
		names := append(slices.Clip(armCoreRegNames), make([]string, 38)...)
		return append(append(names, numbered("s", 0, 32)...), numbered("f", 0, 8)...)
	case elf.EM_AARCH64: // x0-x30, sp, 32-63 unnamed, v0-v31
		names := append(numbered("x", 0, 31), "sp")
		return append(append(names, make([]string, 32)...), numbered("v", 0, 32)...)
	}
	return nil
}

func numbered(prefix string, from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(from+i)
	}
	return out
}

// cfiConverter turns one FDE's rule events into a cfiEntry, naming
// registers as Breakpad's DwarfCFIToModule.
type cfiConverter struct {
	names   []string
	ra      uint64
	entry   *cfiEntry
	compat  bool // drop expression rules, as Google's dump_syms
	exprCFA bool // compat: Breakpad's reader holds an expression CFA rule
}

func (c *cfiConverter) regName(reg uint64) string {
	if reg == c.ra {
		return ".ra"
	}
	if reg < uint64(len(c.names)) && c.names[reg] != "" {
		return c.names[reg]
	}
	return "unnamed_register" + strconv.FormatUint(reg, 10)
}

func (c *cfiConverter) recordExpr(addr uint64, name, rule string) {
	if c.compat {
		return
	}
	c.record(addr, name, rule)
	if c.entry.fromExpr == nil {
		c.entry.fromExpr = map[cfiRuleKey]bool{}
	}
	c.entry.fromExpr[cfiRuleKey{addr, name}] = true
}

func (c *cfiConverter) record(addr uint64, name, rule string) {
	e := c.entry
	delete(e.fromExpr, cfiRuleKey{addr, name})
	if addr == e.addr {
		e.initial[name] = rule
		return
	}
	m := e.changes[addr]
	if m == nil {
		m = map[string]string{}
		e.changes[addr] = m
	}
	m[name] = rule
}

func (c *cfiConverter) event(ev elfcfi.Event) {
	if ev.CFA {
		if c.compat {
			// Breakpad's reader modifies an expression CFA rule in
			// place, leaving it an expression it drops.
			if ev.CFAModified && c.exprCFA {
				return
			}
			if !ev.CFAModified {
				c.exprCFA = ev.CFARule.Expr != nil
			}
		}
		if ev.CFARule.Expr != nil {
			if p, ok := postfix(ev.CFARule.Expr, c, false); ok {
				c.recordExpr(ev.Loc, ".cfa", p)
			}
			return
		}
		c.record(ev.Loc, ".cfa", fmt.Sprintf("%s %d +", c.regName(ev.CFARule.Reg), ev.CFARule.Offset))
		return
	}
	name := c.regName(ev.Reg)
	r := ev.Rule
	switch r.Kind {
	case elfcfi.RuleUndefined:
		// Breakpad's format cannot say "undefined".
	case elfcfi.RuleSameValue:
		c.record(ev.Loc, name, name)
	case elfcfi.RuleOffset:
		c.record(ev.Loc, name, fmt.Sprintf(".cfa %d + ^", r.Offset))
	case elfcfi.RuleValOffset:
		c.record(ev.Loc, name, fmt.Sprintf(".cfa %d +", r.Offset))
	case elfcfi.RuleRegister:
		c.record(ev.Loc, name, c.regName(r.Reg))
	case elfcfi.RuleExpression, elfcfi.RuleValExpression:
		if p, ok := postfix(r.Expr, c, true); ok {
			if r.Kind == elfcfi.RuleExpression {
				p += " ^"
			}
			c.recordExpr(ev.Loc, name, p)
		}
	}
}

// postfix translates a DWARF expression into Breakpad's postfix notation
// when it uses only what that notation has: register-relative and constant
// pushes, + - * / % and dereference. withCFA pushes .cfa first, as
// DW_CFA_expression and DW_CFA_val_expression do. Each stack entry is kept
// as the postfix text that computes it; the result is the top entry.
func postfix(expr []byte, c *cfiConverter, withCFA bool) (string, bool) {
	var stack []string
	if withCFA {
		stack = append(stack, ".cfa")
	}
	ops, ok := decodeExpr(expr)
	if !ok {
		return "", false
	}
	for _, op := range ops {
		top := len(stack) - 1
		switch op.kind {
		case opConst:
			stack = append(stack, strconv.FormatInt(op.value, 10))
		case opBreg:
			if op.reg >= uint64(len(c.names)) || c.names[op.reg] == "" {
				return "", false // no callee register by that name
			}
			stack = append(stack, c.names[op.reg]+" "+strconv.FormatInt(op.value, 10)+" +")
		case opBinary:
			if top < 1 {
				return "", false
			}
			stack = append(stack[:top-1], stack[top-1]+" "+stack[top]+" "+op.sym)
		case opPlusConst:
			if top < 0 {
				return "", false
			}
			stack[top] += " " + strconv.FormatInt(op.value, 10) + " +"
		case opDeref:
			if top < 0 {
				return "", false
			}
			stack[top] += " ^"
		}
	}
	if len(stack) == 0 {
		return "", false
	}
	return stack[len(stack)-1], true
}

type exprOpKind int

const (
	opConst exprOpKind = iota
	opBreg
	opBinary
	opPlusConst
	opDeref
)

type exprOp struct {
	kind  exprOpKind
	reg   uint64
	value int64
	sym   string
}

// decodeExpr decodes the straight-line subset of DWARF expressions postfix
// can express; anything else gives false.
func decodeExpr(expr []byte) ([]exprOp, bool) {
	var ops []exprOp
	for i := 0; i < len(expr); {
		op := expr[i]
		i++
		switch {
		case op >= 0x30 && op <= 0x4f: // lit0..lit31
			ops = append(ops, exprOp{kind: opConst, value: int64(op - 0x30)})
		case op >= 0x70 && op <= 0x8f: // breg0..breg31
			v, n := sleb(expr[i:])
			if n == 0 {
				return nil, false
			}
			i += n
			ops = append(ops, exprOp{kind: opBreg, reg: uint64(op - 0x70), value: v})
		case op == 0x92: // bregx
			r, n := uleb(expr[i:])
			if n == 0 {
				return nil, false
			}
			i += n
			v, m := sleb(expr[i:])
			if m == 0 {
				return nil, false
			}
			i += m
			ops = append(ops, exprOp{kind: opBreg, reg: r, value: v})
		case op == 0x10: // constu
			v, n := uleb(expr[i:])
			if n == 0 || v > 1<<62 {
				return nil, false
			}
			i += n
			ops = append(ops, exprOp{kind: opConst, value: int64(v)})
		case op == 0x11: // consts
			v, n := sleb(expr[i:])
			if n == 0 {
				return nil, false
			}
			i += n
			ops = append(ops, exprOp{kind: opConst, value: v})
		case op == 0x08 || op == 0x09: // const1u, const1s
			if i >= len(expr) {
				return nil, false
			}
			v := int64(expr[i])
			if op == 0x09 {
				v = int64(int8(expr[i]))
			}
			i++
			ops = append(ops, exprOp{kind: opConst, value: v})
		case op == 0x23: // plus_uconst
			v, n := uleb(expr[i:])
			if n == 0 || v > 1<<62 {
				return nil, false
			}
			i += n
			ops = append(ops, exprOp{kind: opPlusConst, value: int64(v)})
		case op == 0x06: // deref
			ops = append(ops, exprOp{kind: opDeref})
		case op == 0x22, op == 0x1c, op == 0x1e, op == 0x1b, op == 0x1d: // plus minus mul div mod
			sym := map[byte]string{0x22: "+", 0x1c: "-", 0x1e: "*", 0x1b: "/", 0x1d: "%"}[op]
			ops = append(ops, exprOp{kind: opBinary, sym: sym})
		case op == 0x96: // nop
		default:
			return nil, false
		}
	}
	return ops, true
}

func uleb(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * uint(i))
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

func sleb(b []byte) (int64, int) {
	var v int64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= int64(b[i]&0x7f) << (7 * uint(i))
		if b[i]&0x80 == 0 {
			if shift := 7 * uint(i+1); shift < 64 && b[i]&0x40 != 0 {
				v |= -1 << shift
			}
			return v, i + 1
		}
	}
	return 0, 0
}

// dwarfEntries converts a section's FDEs in section order. An FDE whose
// instructions are malformed keeps the records made before the error, as
// Breakpad's reader does.
func dwarfEntries(s *elfcfi.Section, m elf.Machine, li loadInfo, compat bool) []*cfiEntry {
	var out []*cfiEntry
	fdes, _ := s.Entries()
	for _, fde := range fdes {
		if !li.contains(fde.Begin) {
			continue
		}
		if compat && s.Kind() == elfcfi.DebugFrame && !strings.HasPrefix(fde.CIE.Augmentation, "z") && fde.CIE.Augmentation != "" {
			continue // Google's reader refuses augmentations without 'z'
		}
		c := &cfiConverter{names: regNames(m), ra: fde.CIE.RAReg, compat: compat, entry: &cfiEntry{
			addr: fde.Begin, size: fde.End - fde.Begin,
			initial: map[string]string{}, changes: map[uint64]map[string]string{},
		}}
		if fde.CIE.RAReg < uint64(len(c.names)) {
			c.entry.initial[".ra"] = c.names[fde.CIE.RAReg]
		}
		fde.Events(c.event)
		out = append(out, c.entry)
	}
	return out
}

func writeRules(b *strings.Builder, rules map[string]string) {
	names := make([]string, 0, len(rules))
	for n := range rules {
		names = append(names, n)
	}
	sort.Strings(names)
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n)
		b.WriteString(": ")
		b.WriteString(rules[n])
	}
}
