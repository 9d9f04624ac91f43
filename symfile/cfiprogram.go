package symfile

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// CFIProgram is a row of STACK CFI rules compiled for the evaluator: each
// expression split into its tokens once, its literals parsed, so that a
// walk that evaluates the same rules again and again (a batch over many
// dumps of one program) neither splits nor parses them at each frame.
// Only a File builds one (SharedCFIRules), on the first lookup of its row,
// and keeps it with the row until the File is closed.
//
// It holds the strings it was compiled from: Evaluator.CallerRegs uses it
// only while the CFIRules it comes with still hold those same strings, so
// rules changed after the lookup (Set, or their fields assigned) are
// evaluated from their strings, never from a stale program.
type CFIProgram struct {
	cfa, ra string
	rules   []CFIRule // the File's row, shared (read only)
	ops     []cfiOp
	// ends[i] is where expression i's ops end: 0 the .cfa rule, 1 .ra,
	// 2+k rules[k].
	ends []int32
	// names are the distinct register names of the row: those its
	// expressions read (an opReg's val>>1 is its index here), then ".ra"
	// and ".cfa" (nameRA, nameCFA) and the rules' registers (targets[k]).
	names   []string
	targets []uint16
	nameRA  uint16
	nameCFA uint16
	// resolved is names resolved against the last table the row was
	// evaluated with (CallerRegsTable): made once per table and row.
	// Its key is the table's first entry, compared by address.
	resolved atomic.Pointer[cfiResolved]
}

// cfiResolved is a CFIProgram's names resolved against a table of CFIRegisters:
// masks[n] are the table entries whose name, and whose alternate name,
// is names[n], as bits of the entries' indexes.
type cfiResolved struct {
	table *CFIRegister // the table's first entry: its identity while it lives
	n     int
	masks []cfiMask
}

type cfiMask struct{ name, alt uint64 }

// cfiOp is one token of a compiled expression, 16 bytes: its text is
// expr[off:off+n] of the expression's string, which the row keeps.
type cfiOp struct {
	// val is opLiteral's value (not yet masked to the word size); opReg's
	// index in the program's names shifted left by one, plus 1 for .cfa.
	val uint64
	off uint32
	n   uint16
	op  byte // an operator ("+-*/%@^="), or opName, opReg or opLiteral
}

// text is op's token in expr, the string of its expression.
func (op *cfiOp) text(expr string) string { return expr[op.off : op.off+uint32(op.n)] }

const (
	opName    = 'n' // read by pop as token's names are (.undef)
	opReg     = 'r' // a register or variable: not a literal, not .undef
	opLiteral = 'l'
)

// maxCFIProgramOps bounds the tokens of one compiled row: dump_syms's rows
// have a few dozen (arm64's 30-odd registers of 3 or 4 tokens each at
// most); a larger row is evaluated from its strings. With
// maxCFIProgramBytes it bounds the memory of a File's programs.
const maxCFIProgramOps = 512

// maxCFIProgramBytes bounds the memory of all the programs of one File
// (docs/limits.md); past it rows are evaluated from their strings.
const maxCFIProgramBytes = 8 << 20

// compileCFI compiles r, or returns nil when one of its expressions is
// not plain ASCII or the row has more than maxCFIProgramOps tokens: those
// stay with the string evaluator, which gives the same results.
func compileCFI(r CFIRules) *CFIProgram {
	if r.CFA == "" || r.RA == "" {
		return nil // the evaluator refuses the row without evaluating anything
	}
	if len(r.Rules) > maxCFIProgramOps {
		return nil // so that its names are counted in 16 bits
	}
	p := &CFIProgram{cfa: r.CFA, ra: r.RA, rules: r.Rules, ends: make([]int32, 0, 2+len(r.Rules))}
	if !p.add(r.CFA) || !p.add(r.RA) {
		return nil
	}
	for _, x := range r.Rules {
		if !p.add(x.Expr) {
			return nil
		}
	}
	p.nameRA, p.nameCFA = p.name(".ra"), p.name(".cfa")
	p.targets = make([]uint16, len(r.Rules))
	for k, x := range r.Rules {
		p.targets[k] = p.name(x.Register)
	}
	return p
}

// name returns the index of s in p.names, adding it when new: a row has at
// most maxCFIProgramOps names read, plus its rules' registers.
func (p *CFIProgram) name(s string) uint16 {
	for i, n := range p.names {
		if n == s {
			return uint16(i)
		}
	}
	p.names = append(p.names, s)
	return uint16(len(p.names) - 1)
}

// add appends the tokens of expr, split as evaluator.runASCII splits them.
func (p *CFIProgram) add(expr string) bool {
	if !isASCII(expr) {
		return false
	}
	if uint64(len(expr)) > math.MaxUint32 {
		return false
	}
	for i := 0; ; {
		var tok string
		if tok, i = asciiToken(expr, i); tok == "" {
			break
		}
		if len(tok) > math.MaxUint16 {
			return false
		}
		off := uint32(i - len(tok))
		if len(tok) > 1 && tok[0] == '=' { // as ProgramTokens
			p.ops = append(p.ops, cfiOp{op: '=', off: off, n: 1})
			tok, off = tok[1:], off+1
		}
		op := compileToken(tok)
		if op.op == opReg {
			op.val |= uint64(p.name(tok)) << 1
		}
		op.off, op.n = off, uint16(len(tok))
		p.ops = append(p.ops, op)
		if len(p.ops) > maxCFIProgramOps {
			return false
		}
	}
	p.ends = append(p.ends, int32(len(p.ops)))
	return true
}

// compileToken is evaluator.token's reading of tok, done once.
func compileToken(tok string) cfiOp {
	switch tok {
	case "+", "-", "*", "/", "%", "@", "^", "=":
		return cfiOp{op: tok[0]}
	}
	if v, ok := parseLiteral(tok); ok {
		return cfiOp{op: opLiteral, val: v}
	}
	switch tok {
	case ".undef":
		return cfiOp{op: opName}
	case ".cfa":
		return cfiOp{op: opReg, val: 1}
	}
	return cfiOp{op: opReg}
}

// expr returns the ops of expression i (0 .cfa, 1 .ra, 2+k rule k).
func (p *CFIProgram) expr(i int) []cfiOp {
	start := int32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.ops[start:p.ends[i]]
}

// matches reports whether p was compiled from r's strings: the same
// strings (compared as strings; the File's row shares their bytes, so
// each comparison ends at the pointers) in the same order.
func (p *CFIProgram) matches(r *CFIRules) bool {
	if p.cfa != r.CFA || p.ra != r.RA || len(p.rules) != len(r.Rules) {
		return false
	}
	for i := range p.rules {
		if p.rules[i] != r.Rules[i] {
			return false
		}
	}
	return true
}

// bytes estimates p's memory (HeapBytes), one resolution against a
// table included; the strings are the row's.
func (p *CFIProgram) bytes() int64 {
	return int64(unsafe.Sizeof(*p)) + int64(cap(p.ops))*int64(unsafe.Sizeof(cfiOp{})) + int64(cap(p.ends))*4 +
		int64(cap(p.names))*int64(unsafe.Sizeof("")) + int64(cap(p.targets))*2 +
		int64(unsafe.Sizeof(cfiResolved{})) + int64(len(p.names))*int64(unsafe.Sizeof(cfiMask{}))
}

// CFIRegister is one entry of an architecture's table of the registers
// STACK CFI rules name (Breakpad's SimpleCFIWalker register map). A walker
// keeps its table, unchanged, while walks use it: Evaluator.CallerRegsTable
// resolves a compiled row's names against a table once per table and row.
type CFIRegister struct {
	Index       int    // register index in minidump.Context
	Name        string // the name CFI rules use ("$rbx" on x86/amd64, "r4" on arm)
	Alt         string // alternate name: ".cfa" for the stack pointer, ".ra" for the IP
	CalleeSaves bool   // the callee preserves it: with no rule the caller keeps the callee's value
}

// MaxCFITable is the most entries of a table CallerRegsTable takes
// (arm64's has 33; at most 64, the bits of a mask).
const MaxCFITable = 40

// resolve returns p's names resolved against t (1 to MaxCFITable
// entries), made on the first evaluation of p with t (and again when
// another table came between). The resolution holds t's first entry, so
// t's memory is not reused for another table while it is p's key.
func (p *CFIProgram) resolve(t []CFIRegister) *cfiResolved {
	if r := p.resolved.Load(); r != nil && r.table == &t[0] && r.n == len(t) {
		return r
	}
	r := &cfiResolved{table: &t[0], n: len(t), masks: make([]cfiMask, len(p.names))}
	for n, name := range p.names {
		for i := range t {
			if t[i].Name == name {
				r.masks[n].name |= 1 << i
			}
			if t[i].Alt != "" && t[i].Alt == name {
				r.masks[n].alt |= 1 << i
			}
		}
	}
	p.resolved.Store(r)
	return r
}

// CFIFrame holds a frame's registers by the entries of a CFIRegister table, for
// Evaluator.CallerRegsTable: the callee's, which the caller fills, and
// the caller's, which the rules give.
type CFIFrame struct {
	// Callee[i] is the callee's value of entry i, known when bit i of
	// CalleeKnown is set.
	Callee      [MaxCFITable]uint64
	CalleeKnown uint64
	// ByName[i] is the caller's value of entry i by the rule of its name,
	// given when bit i of HasName is set; ByAlt by its alternate name's.
	ByName, ByAlt   [MaxCFITable]uint64
	HasName, HasAlt uint64
}

// callee is the callee's value of the table's last entry of the mask
// whose value is known, as a map filled in the table's order would hold.
func (f *CFIFrame) callee(mask uint64) (uint64, bool) {
	m := mask & f.CalleeKnown
	if m == 0 {
		return 0, false
	}
	return f.Callee[bits.Len64(m)-1], true
}

// setCaller gives v to every entry of m's names and alternate names; a
// later value replaces an earlier one.
func (f *CFIFrame) setCaller(m cfiMask, v uint64) {
	for b := m.name; b != 0; b &= b - 1 {
		f.ByName[bits.TrailingZeros64(b)] = v
	}
	for b := m.alt; b != 0; b &= b - 1 {
		f.ByAlt[bits.TrailingZeros64(b)] = v
	}
	f.HasName |= m.name
	f.HasAlt |= m.alt
}
