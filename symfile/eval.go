package symfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Evaluator errors. Each returned error wraps one of these.
var (
	ErrStackUnderflow = errors.New("postfix: stack underflow")
	ErrUnknownName    = errors.New("postfix: unknown register or variable")
	ErrMemory         = errors.New("postfix: memory not readable")
	ErrDivideByZero   = errors.New("postfix: division by zero")
	ErrSyntax         = errors.New("postfix: malformed expression")
	// ErrUndefined is returned for the .undef rule: the register's value
	// is not recoverable in the caller.
	ErrUndefined = errors.New("postfix: register undefined (.undef)")
)

// maxEvalTokens bounds the work done for one program or expression.
const maxEvalTokens = 4096

type operand struct {
	name  string // identifier when !isVal
	val   uint64
	isVal bool
}

type evaluator struct {
	vars     map[string]uint64
	mem      Memory
	wordSize int
	mask     uint64
	stack    []operand
	expr     string
	readOnly map[string]uint64 // EvaluateValue's variables
	// cfa, when hasCFA, is the value of ".cfa", over readOnly's: so
	// FindCallerRegs gives the callee's registers and .cfa without copying
	// them into a new map.
	cfa    uint64
	hasCFA bool
	buf    [16]operand // stack's first backing array: no allocation for most rules
}

func newEvaluator(vars map[string]uint64, mem Memory, wordSize int, expr string) (*evaluator, error) {
	e := &evaluator{}
	if err := e.init(vars, mem, wordSize, expr); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *evaluator) init(vars map[string]uint64, mem Memory, wordSize int, expr string) error {
	if wordSize != 4 && wordSize != 8 {
		return fmt.Errorf("%w: word size %d", ErrSyntax, wordSize)
	}
	mask := ^uint64(0)
	if wordSize == 4 {
		mask = 0xffffffff
	}
	e.vars, e.mem, e.wordSize, e.mask, e.expr = vars, mem, wordSize, mask, expr
	e.stack = e.buf[:0]
	return nil
}

func (e *evaluator) errf(base error, format string, args ...any) error {
	return fmt.Errorf("%w: %s in %q", base, fmt.Sprintf(format, args...), e.expr)
}

// Evaluate runs a STACK WIN program: a sequence of postfix assignment
// statements ("$T0 $ebp = $eip $T0 4 + ^ =") over vars, which it updates.
// Only names starting with '$' may be assigned. wordSize (4 or 8) sets the
// width of arithmetic and of memory reads (^). A program that leaves values
// on the stack is an error, as in Breakpad.
func Evaluate(program string, vars map[string]uint64, mem Memory, wordSize int) error {
	e, err := newEvaluator(vars, mem, wordSize, program)
	if err != nil {
		return err
	}
	if err := e.run(program); err != nil {
		return err
	}
	if len(e.stack) != 0 {
		return e.errf(ErrSyntax, "%d values left on the stack", len(e.stack))
	}
	return nil
}

// value evaluates a postfix expression (a CFI rule) to one value on e, which it initialises but for cfa.
func (e *evaluator) value(expr string, vars map[string]uint64, mem Memory, wordSize int) (uint64, error) {
	if err := e.init(nil, mem, wordSize, expr); err != nil { // no vars: assignments are not allowed to leak; see assign
		return 0, err
	}
	e.readOnly = vars
	if err := e.run(expr); err != nil {
		return 0, err
	}
	if len(e.stack) != 1 {
		return 0, e.errf(ErrSyntax, "%d results", len(e.stack))
	}
	return e.pop()
}

// ProgramTokens yields the tokens of a STACK WIN program or postfix
// expression: the words between white space, with an assignment glued to
// the next token split off ("=$eip" is "=" then "$eip"), as MSVC's LTO
// builds write STACK WIN programs and as Breakpad's evaluator reads them.
// The evaluator and the x86 walker's statement splitter both use it.
func ProgramTokens(program string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for tok := range strings.FieldsSeq(program) {
			if len(tok) > 1 && tok[0] == '=' {
				if !yield("=") {
					return
				}
				tok = tok[1:]
			}
			if !yield(tok) {
				return
			}
		}
	}
}

func (e *evaluator) run(program string) error {
	if isASCII(program) {
		return e.runASCII(program)
	}
	n := 0
	for tok := range ProgramTokens(program) {
		if n++; n > maxEvalTokens {
			return e.errf(ErrSyntax, "more than %d tokens", maxEvalTokens)
		}
		if err := e.token(tok); err != nil {
			return err
		}
	}
	return nil
}

// runASCII is run for a program of ASCII characters only, where the
// white space of strings.Fields is these six bytes: the same tokens, read
// without an iterator's closures.
func (e *evaluator) runASCII(program string) error {
	n := 0
	for i := 0; ; {
		for i < len(program) && asciiSpace(program[i]) {
			i++
		}
		if i == len(program) {
			return nil
		}
		j := i
		for j < len(program) && !asciiSpace(program[j]) {
			j++
		}
		tok := program[i:j]
		i = j
		if len(tok) > 1 && tok[0] == '=' { // as ProgramTokens
			if n++; n > maxEvalTokens {
				return e.errf(ErrSyntax, "more than %d tokens", maxEvalTokens)
			}
			if err := e.token("="); err != nil {
				return err
			}
			tok = tok[1:]
		}
		if n++; n > maxEvalTokens {
			return e.errf(ErrSyntax, "more than %d tokens", maxEvalTokens)
		}
		if err := e.token(tok); err != nil {
			return err
		}
	}
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func (e *evaluator) token(tok string) error {
	switch tok {
	case "+", "-", "*", "/", "%", "@":
		b, err := e.pop()
		if err != nil {
			return err
		}
		a, err := e.pop()
		if err != nil {
			return err
		}
		var r uint64
		switch tok {
		case "+":
			r = a + b
		case "-":
			r = a - b
		case "*":
			r = a * b
		case "/", "%":
			if b == 0 {
				return e.errf(ErrDivideByZero, "%d %s 0", a, tok)
			}
			if tok == "/" {
				r = a / b
			} else {
				r = a % b
			}
		case "@":
			r = a &^ (b - 1) // align down to a power of two, as Breakpad
		}
		e.push(r)
	case "^":
		addr, err := e.pop()
		if err != nil {
			return err
		}
		if e.mem == nil {
			return e.errf(ErrMemory, "no memory to read 0x%x", addr)
		}
		var buf [8]byte
		if err := e.mem.ReadMemory(addr, buf[:e.wordSize]); err != nil {
			return fmt.Errorf("%w: 0x%x in %q: %w", ErrMemory, addr, e.expr, err)
		}
		if e.wordSize == 4 {
			e.push(uint64(binary.LittleEndian.Uint32(buf[:4])))
		} else {
			e.push(binary.LittleEndian.Uint64(buf[:]))
		}
	case "=":
		v, err := e.pop()
		if err != nil {
			return err
		}
		if len(e.stack) == 0 {
			return e.errf(ErrStackUnderflow, "nothing to assign to")
		}
		target := e.stack[len(e.stack)-1]
		e.stack = e.stack[:len(e.stack)-1]
		if target.isVal || literal(target.name) || !strings.HasPrefix(target.name, "$") {
			return e.errf(ErrSyntax, "cannot assign to %q", target.name)
		}
		if e.vars == nil {
			return e.errf(ErrSyntax, "assignment in an expression")
		}
		e.vars[target.name] = v
	default:
		e.stack = append(e.stack, operand{name: tok})
	}
	return nil
}

func (e *evaluator) push(v uint64) { e.stack = append(e.stack, operand{val: v & e.mask, isVal: true}) }

// pop returns the top of the stack as a value, resolving literals and names.
func (e *evaluator) pop() (uint64, error) {
	if len(e.stack) == 0 {
		return 0, e.errf(ErrStackUnderflow, "operator needs a value")
	}
	o := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	if o.isVal {
		return o.val, nil
	}
	if v, ok := parseLiteral(o.name); ok {
		return v & e.mask, nil
	}
	if o.name == ".undef" {
		return 0, e.errf(ErrUndefined, "%s", o.name)
	}
	if e.hasCFA && o.name == ".cfa" {
		return e.cfa & e.mask, nil
	}
	vars := e.vars
	if vars == nil {
		vars = e.readOnly
	}
	v, ok := vars[o.name]
	if !ok {
		return 0, e.errf(ErrUnknownName, "%q", o.name)
	}
	return v & e.mask, nil
}

func literal(s string) bool { _, ok := parseLiteral(s); return ok }

// parseLiteral accepts decimal (Breakpad's only form), an optional leading
// '-', and 0x-prefixed hex.
func parseLiteral(s string) (uint64, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	var v uint64
	var err error
	if len(s) > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		v, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// FindCallerRegs applies the rules to the callee's registers, as Breakpad's
// CFIFrameInfo::FindCallerRegs: it computes .cfa, then .ra with .cfa set,
// then every other register whose rule evaluates (the others are left out).
// The result holds ".cfa" and ".ra" too. It fails when .cfa or .ra is
// missing or does not evaluate.
func (r *CFIRules) FindCallerRegs(callee map[string]uint64, mem Memory, wordSize int) (map[string]uint64, error) {
	if r.CFA == "" || r.RA == "" {
		return nil, fmt.Errorf("%w: CFI rules lack .cfa or .ra", ErrSyntax)
	}
	var e evaluator
	cfa, err := e.value(r.CFA, callee, mem, wordSize)
	if err != nil {
		return nil, err
	}
	// The other rules see the callee's registers and .cfa.
	e.cfa, e.hasCFA = cfa, true
	ra, err := e.value(r.RA, callee, mem, wordSize)
	if err != nil {
		return nil, err
	}
	caller := make(map[string]uint64, len(r.Rules)+2)
	for _, rule := range r.Rules {
		if v, err := e.value(rule.Expr, callee, mem, wordSize); err == nil {
			caller[rule.Register] = v
		}
	}
	caller[".ra"] = ra
	caller[".cfa"] = cfa
	return caller, nil
}
