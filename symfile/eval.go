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
	// reg, for a name a CFIProgram read: it is neither a literal nor
	// .undef, and is .cfa only when cfa says so; id is its index in the
	// program's names.
	reg, cfa bool
	id       uint16
}

type evaluator struct {
	vars     map[string]uint64
	mem      Memory
	wordSize int
	mask     uint64
	stack    []operand
	expr     string
	readOnly map[string]uint64 // EvaluateValue's variables
	// regs, when not nil, gives the variables in place of readOnly
	// (Evaluator.CallerRegs: the callee's registers without a map).
	regs Registers
	// frame and res, when frame is not nil, give a compiled program's
	// registers by their index in its names (CallerRegsTable).
	frame *CFIFrame
	res   *cfiResolved
	// cfa, when hasCFA, is the value of ".cfa", over readOnly's: so
	// FindCallerRegs gives the callee's registers and .cfa without copying
	// them into a new map.
	cfa    uint64
	hasCFA bool
	// quiet errors are the bare sentinels (ErrMemory, ...), formatted
	// with no text: a walk tries rules whose failure it does not show,
	// and each formatted error costs allocations.
	quiet bool
	word  [8]byte     // the bytes of a ^ read
	buf   [16]operand // stack's first backing array: no allocation for most rules
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
	if e.quiet {
		return base
	}
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
		if e.quiet { // boxing the count allocates
			return 0, ErrSyntax
		}
		return 0, e.errf(ErrSyntax, "%d results", len(e.stack))
	}
	return e.pop()
}

// valueOf evaluates expression i of r (0 .cfa, 1 .ra, 2+k rule k, whose
// string is expr) as value does, from p when p is r's compiled form.
func (e *evaluator) valueOf(p *CFIProgram, i int, expr string, mem Memory, wordSize int) (uint64, error) {
	if p == nil {
		return e.value(expr, nil, mem, wordSize)
	}
	if err := e.init(nil, mem, wordSize, expr); err != nil {
		return 0, err
	}
	e.readOnly = nil
	if err := e.runOps(p.expr(i), expr); err != nil {
		return 0, err
	}
	if len(e.stack) != 1 {
		if e.quiet {
			return 0, ErrSyntax
		}
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
		var tok string
		if tok, i = asciiToken(program, i); tok == "" {
			return nil
		}
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

// asciiToken returns the first token of s[i:] (ASCII), between the white
// space of asciiSpace, and the index after it; "" at the end of s.
func asciiToken(s string, i int) (tok string, next int) {
	for i < len(s) && asciiSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !asciiSpace(s[j]) {
		j++
	}
	return s[i:j], j
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
	case "+", "-", "*", "/", "%", "@", "^", "=":
		return e.operator(tok[0])
	}
	e.stack = append(e.stack, operand{name: tok})
	return nil
}

// runOps is run over a compiled expression (CFIProgram) whose string is
// expr: the same operations without splitting or parsing the tokens.
func (e *evaluator) runOps(ops []cfiOp, expr string) error {
	for i := range ops {
		switch op := &ops[i]; op.op {
		case opName:
			e.stack = append(e.stack, operand{name: op.text(expr)})
		case opReg:
			e.stack = append(e.stack, operand{name: op.text(expr), reg: true, cfa: op.val&1 != 0, id: uint16(op.val >> 1)})
		case opLiteral:
			// The literal read once: pop gives its value as it gives
			// that of token's literal, and "=" refuses either as its
			// target, naming it.
			e.stack = append(e.stack, operand{name: op.text(expr), val: op.val & e.mask, isVal: true})
		default:
			if err := e.operator(op.op); err != nil {
				return err
			}
		}
	}
	return nil
}

// operator applies one of the operators "+-*/%@^=".
func (e *evaluator) operator(op byte) error {
	switch op {
	case '+', '-', '*', '/', '%', '@':
		b, err := e.pop()
		if err != nil {
			return err
		}
		a, err := e.pop()
		if err != nil {
			return err
		}
		var r uint64
		switch op {
		case '+':
			r = a + b
		case '-':
			r = a - b
		case '*':
			r = a * b
		case '/', '%':
			if b == 0 {
				if e.quiet {
					return ErrDivideByZero
				}
				return e.errf(ErrDivideByZero, "%d %c 0", a, op)
			}
			if op == '/' {
				r = a / b
			} else {
				r = a % b
			}
		case '@':
			r = a &^ (b - 1) // align down to a power of two, as Breakpad
		}
		e.push(r)
	case '^':
		addr, err := e.pop()
		if err != nil {
			return err
		}
		return e.read(addr)
	case '=':
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
	}
	return nil
}

// read pushes the word at addr.
func (e *evaluator) read(addr uint64) error {
	switch {
	case e.mem == nil && e.quiet:
		return ErrMemory
	case e.mem == nil:
		return e.errf(ErrMemory, "no memory to read 0x%x", addr)
	}
	// e.word, not an array of this function: a buffer handed to an
	// interface's method escapes, so it would be allocated on every read.
	err := e.mem.ReadMemory(addr, e.word[:e.wordSize])
	switch {
	case err != nil && e.quiet:
		return ErrMemory
	case err != nil:
		return fmt.Errorf("%w: 0x%x in %q: %w", ErrMemory, addr, e.expr, err)
	case e.wordSize == 4:
		e.push(uint64(binary.LittleEndian.Uint32(e.word[:4])))
	default:
		e.push(binary.LittleEndian.Uint64(e.word[:]))
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
	if o.reg {
		if o.cfa && e.hasCFA {
			return e.cfa & e.mask, nil
		}
		if e.frame != nil {
			if v, ok := e.frame.callee(e.res.masks[o.id].name); ok {
				return v & e.mask, nil
			}
			return 0, ErrUnknownName // CallerRegsTable's errors are quiet
		}
		return e.register(o.name)
	}
	if v, ok := parseLiteral(o.name); ok {
		return v & e.mask, nil
	}
	if o.name == ".undef" {
		if e.quiet {
			return 0, ErrUndefined
		}
		return 0, e.errf(ErrUndefined, "%s", o.name)
	}
	if e.hasCFA && o.name == ".cfa" {
		return e.cfa & e.mask, nil
	}
	return e.register(o.name)
}

// register is pop's value of a register or variable.
func (e *evaluator) register(name string) (uint64, error) {
	v, ok := e.variable(name)
	if !ok {
		if e.quiet { // boxing the name allocates
			return 0, ErrUnknownName
		}
		return 0, e.errf(ErrUnknownName, "%q", name)
	}
	return v & e.mask, nil
}

// variable returns a register's or variable's value.
func (e *evaluator) variable(name string) (uint64, bool) {
	switch {
	case e.vars != nil:
		v, ok := e.vars[name]
		return v, ok
	case e.regs != nil:
		return e.regs.Register(name)
	}
	v, ok := e.readOnly[name]
	return v, ok
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
	if v, ok := shortDecimal(s); ok {
		if neg {
			v = -v
		}
		return v, true
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

// shortDecimal parses the decimal literals of nearly every rule ("8",
// "-16" without its sign) without strconv: up to 19 digits, which cannot
// overflow. Anything else is left to strconv (false).
func shortDecimal(s string) (uint64, bool) {
	if len(s) > 19 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + uint64(c)
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
	regs := &mapRegisters{in: callee, out: make(map[string]uint64, len(r.Rules)+2)}
	e := evaluator{regs: regs}
	if err := e.callerRegs(r, mem, wordSize); err != nil {
		return nil, err
	}
	return regs.out, nil
}

// callerRegs is FindCallerRegs over e.regs: the caller's registers go to
// e.regs.SetCaller (those of the rules that evaluate, in order, then ".ra"
// and ".cfa"), and only once .cfa and .ra evaluated.
func (e *evaluator) callerRegs(r *CFIRules, mem Memory, wordSize int) error {
	if r.CFA == "" || r.RA == "" {
		return ErrSyntax
	}
	p := r.Compiled
	if p != nil && !p.matches(r) {
		p = nil // r changed since its lookup: its strings are the rules
	}
	cfa, ra, err := e.cfaRA(r, p, mem, wordSize)
	if err != nil {
		return err
	}
	for k, rule := range r.Rules {
		if v, err := e.valueOf(p, 2+k, rule.Expr, mem, wordSize); err == nil {
			e.regs.SetCaller(rule.Register, v)
		}
	}
	e.regs.SetCaller(".ra", ra)
	e.regs.SetCaller(".cfa", cfa)
	return nil
}

// cfaRA evaluates r's .cfa, then its .ra with .cfa set (from p when it is
// r's current program), and leaves .cfa set for the other rules, which
// see the callee's registers and .cfa.
func (e *evaluator) cfaRA(r *CFIRules, p *CFIProgram, mem Memory, wordSize int) (cfa, ra uint64, err error) {
	e.hasCFA = false
	if cfa, err = e.valueOf(p, 0, r.CFA, mem, wordSize); err != nil {
		return 0, 0, err
	}
	e.cfa, e.hasCFA = cfa, true
	if ra, err = e.valueOf(p, 1, r.RA, mem, wordSize); err != nil {
		return 0, 0, err
	}
	return cfa, ra, nil
}

// callerRegsTable is callerRegs over p, r's current program, with e.frame
// and e.res: the registers read and set by index, no name compared.
func (e *evaluator) callerRegsTable(r *CFIRules, p *CFIProgram, mem Memory, wordSize int) error {
	cfa, ra, err := e.cfaRA(r, p, mem, wordSize)
	if err != nil {
		return err
	}
	f, masks := e.frame, e.res.masks
	for k, rule := range r.Rules {
		if v, err := e.valueOf(p, 2+k, rule.Expr, mem, wordSize); err == nil {
			f.setCaller(masks[p.targets[k]], v)
		}
	}
	f.setCaller(masks[p.nameRA], ra)
	f.setCaller(masks[p.nameCFA], cfa)
	return nil
}

// Registers are a frame's registers by the names CFI rules give them
// ("$rsp", "r4"), for Evaluator.CallerRegs: Register reads the callee's
// (false: not known), SetCaller receives each caller register the rules
// give, then ".ra" and ".cfa".
type Registers interface {
	Register(name string) (uint64, bool)
	SetCaller(name string, v uint64)
}

// mapRegisters are FindCallerRegs' maps as Registers.
type mapRegisters struct{ in, out map[string]uint64 }

func (m *mapRegisters) Register(name string) (uint64, bool) { v, ok := m.in[name]; return v, ok }
func (m *mapRegisters) SetCaller(name string, v uint64)     { m.out[name] = v }

// Evaluator applies CFI rule sets as FindCallerRegs does, again and again
// without allocating: no map in or out, no error text (its errors are the
// bare sentinels ErrSyntax, ErrMemory, ErrUnknownName, ...). A walk keeps
// one (in memory that lives as long as the walk, so that what the
// evaluator holds is never allocated per frame); it is not safe for
// concurrent use.
type Evaluator struct {
	e evaluator
}

// CallerRegs applies r to the callee's registers in regs and gives the
// caller's to regs.SetCaller, as FindCallerRegs. It fails when .cfa or .ra
// is missing or does not evaluate; SetCaller is then not called.
func (x *Evaluator) CallerRegs(r *CFIRules, regs Registers, mem Memory, wordSize int) error {
	x.e = evaluator{regs: regs, quiet: true}
	err := x.e.callerRegs(r, mem, wordSize)
	x.e = evaluator{} // holds nothing of the frame between calls
	return err
}

// CallerRegsTable is CallerRegs over a frame's registers by the entries
// of t, an architecture's table (unchanged while walks use it): it reads f.Callee and sets f's caller values (clearing f.HasName
// and f.HasAlt first), with the names of r's compiled program resolved
// against t once per table and row, so that no register name is compared
// at each frame. It reports false, having done nothing, when r has no
// current compiled program (rules built or changed by a caller, rows that
// do not compile): the caller then uses CallerRegs, from the strings.
func (x *Evaluator) CallerRegsTable(r *CFIRules, t []CFIRegister, f *CFIFrame, mem Memory, wordSize int) (bool, error) {
	p := r.Compiled
	if p == nil || len(t) == 0 || len(t) > MaxCFITable || r.CFA == "" || r.RA == "" || !p.matches(r) {
		return false, nil
	}
	f.HasName, f.HasAlt = 0, 0
	x.e = evaluator{quiet: true, frame: f, res: p.resolve(t)}
	err := x.e.callerRegsTable(r, p, mem, wordSize)
	x.e = evaluator{}
	if err != nil {
		f.HasName, f.HasAlt = 0, 0
	}
	return true, err
}
