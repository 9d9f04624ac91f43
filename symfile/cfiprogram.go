package symfile

import (
	"math"
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
}

// cfiOp is one token of a compiled expression, 16 bytes: its text is
// expr[off:off+n] of the expression's string, which the row keeps.
type cfiOp struct {
	val uint64 // opLiteral's value (not yet masked to the word size); opReg's 1 for .cfa
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
	p := &CFIProgram{cfa: r.CFA, ra: r.RA, rules: r.Rules, ends: make([]int32, 0, 2+len(r.Rules))}
	if !p.add(r.CFA) || !p.add(r.RA) {
		return nil
	}
	for _, x := range r.Rules {
		if !p.add(x.Expr) {
			return nil
		}
	}
	return p
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

// bytes estimates p's memory (HeapBytes); the strings are the row's.
func (p *CFIProgram) bytes() int64 {
	return int64(unsafe.Sizeof(*p)) + int64(cap(p.ops))*int64(unsafe.Sizeof(cfiOp{})) + int64(cap(p.ends))*4
}
