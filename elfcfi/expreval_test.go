package elfcfi

import (
	"encoding/binary"
	"fmt"
)

// ExprEnv is what a DWARF expression reads: the callee frame's registers
// (by DWARF number) and memory, and the address size that sets the width
// of the generic type.
type ExprEnv struct {
	Reg      func(reg uint64) (uint64, bool)
	Mem      func(addr uint64, size int) (uint64, bool)
	AddrSize int              // 4 or 8
	Order    binary.ByteOrder // of operands in the expression
}

// ExprError reports an expression that could not be evaluated: the byte
// offset of the operation in the expression and why.
type ExprError struct {
	Offset int
	Op     byte
	Msg    string
}

func (e *ExprError) Error() string {
	return fmt.Sprintf("DWARF expression: offset %d (op %#02x): %s", e.Offset, e.Op, e.Msg)
}

// Bounds of one evaluation: a backward DW_OP_skip or DW_OP_bra can loop,
// and DW_OP_dup can grow the stack.
const (
	maxExprSteps = 10000
	maxExprStack = 256
)

// EvalExpr evaluates a DWARF expression as call frame instructions use it:
// the values in push are pushed first (the CFA for DW_CFA_expression and
// DW_CFA_val_expression), and the result is the top of the stack.
// Arithmetic wraps at the address size; division, comparisons and shra are
// signed as in GCC's unwinder.
func EvalExpr(expr []byte, env *ExprEnv, push ...uint64) (uint64, error) {
	e := evaluator{env: env, mask: ^uint64(0)}
	if env.AddrSize == 4 {
		e.mask = 0xffffffff
	} else if env.AddrSize != 8 {
		return 0, &ExprError{Msg: fmt.Sprintf("address size %d", env.AddrSize)}
	}
	if env.Order == nil {
		return 0, &ExprError{Msg: "no byte order"}
	}
	for _, v := range push {
		e.stack = append(e.stack, v&e.mask)
	}
	if err := e.run(expr); err != nil {
		return 0, err
	}
	if len(e.stack) == 0 {
		return 0, &ExprError{Offset: len(expr), Msg: "empty stack at the end"}
	}
	return e.stack[len(e.stack)-1], nil
}

type evaluator struct {
	env   *ExprEnv
	mask  uint64
	stack []uint64
}

// signed interprets v as a signed number of the address size.
func (e *evaluator) signed(v uint64) int64 {
	if e.mask == 0xffffffff {
		return int64(int32(v))
	}
	return int64(v)
}

func (e *evaluator) run(expr []byte) error {
	b := &buf{Data: expr, Order: e.env.Order}
	for steps := 0; b.Left() > 0; steps++ {
		at := b.Pos
		op := b.U8()
		fail := func(format string, args ...any) error {
			return &ExprError{Offset: at, Op: op, Msg: fmt.Sprintf(format, args...)}
		}
		if steps >= maxExprSteps {
			return fail("more than %d operations executed", maxExprSteps)
		}
		if err := e.step(op, b, fail); err != nil {
			return err
		}
		if b.Err != nil {
			return fail("truncated operand")
		}
		if len(e.stack) > maxExprStack {
			return fail("stack deeper than %d", maxExprStack)
		}
	}
	return nil
}

func (e *evaluator) push(v uint64) { e.stack = append(e.stack, v&e.mask) }

// pop removes n values, returning them top first, or false on underflow.
func (e *evaluator) pop(n int) ([]uint64, bool) {
	if len(e.stack) < n {
		return nil, false
	}
	vals := make([]uint64, n)
	for i := range vals {
		vals[i] = e.stack[len(e.stack)-1-i]
	}
	e.stack = e.stack[:len(e.stack)-n]
	return vals, true
}

// DW_OP_* operations.
const (
	opAddr       = 0x03
	opDeref      = 0x06
	opConst1u    = 0x08
	opConst8s    = 0x0f
	opConstu     = 0x10
	opConsts     = 0x11
	opDup        = 0x12
	opDrop       = 0x13
	opOver       = 0x14
	opPick       = 0x15
	opSwap       = 0x16
	opRot        = 0x17
	opAbs        = 0x19
	opAnd        = 0x1a
	opDiv        = 0x1b
	opMinus      = 0x1c
	opMod        = 0x1d
	opMul        = 0x1e
	opNeg        = 0x1f
	opNot        = 0x20
	opOr         = 0x21
	opPlus       = 0x22
	opPlusUconst = 0x23
	opShl        = 0x24
	opShr        = 0x25
	opShra       = 0x26
	opXor        = 0x27
	opBra        = 0x28
	opEq         = 0x29
	opNe         = 0x2e
	opSkip       = 0x2f
	opLit0       = 0x30
	opLit31      = 0x4f
	opReg0       = 0x50
	opReg31      = 0x6f
	opBreg0      = 0x70
	opBreg31     = 0x8f
	opRegx       = 0x90
	opBregx      = 0x92
	opDerefSize  = 0x94
	opNop        = 0x96
)

func (e *evaluator) step(op byte, b *buf, fail func(string, ...any) error) error {
	underflow := func() error { return fail("stack underflow") }
	switch {
	case op >= opLit0 && op <= opLit31:
		e.push(uint64(op - opLit0))
		return nil
	case op >= opBreg0 && op <= opBreg31:
		return e.breg(uint64(op-opBreg0), b.SLEB(), fail)
	case op >= opReg0 && op <= opReg31, op == opRegx:
		return fail("register location operations are not allowed in call frame expressions")
	case op >= opConst1u && op <= opConst8s:
		size := 1 << ((op - opConst1u) / 2)
		v := b.Uint(size)
		if (op-opConst1u)%2 == 1 { // the signed forms
			shift := 64 - 8*uint(size)
			v = uint64(int64(v<<shift) >> shift)
		}
		e.push(v)
		return nil
	}
	switch op {
	case opAddr:
		e.push(b.Uint(e.env.AddrSize))
	case opConstu:
		e.push(b.ULEB())
	case opConsts:
		e.push(uint64(b.SLEB()))
	case opBregx:
		reg := b.ULEB()
		return e.breg(reg, b.SLEB(), fail)
	case opDup, opDrop, opOver, opPick, opSwap, opRot:
		return e.stackOp(op, b, underflow)
	case opDeref, opDerefSize:
		return e.deref(op, b, fail)
	case opAbs, opNeg, opNot, opPlusUconst:
		return e.unary(op, b, underflow)
	case opAnd, opDiv, opMinus, opMod, opMul, opOr, opPlus, opShl, opShr, opShra, opXor,
		opEq, opEq + 1, opEq + 2, opEq + 3, opEq + 4, opNe:
		v, ok := e.pop(2)
		if !ok {
			return underflow()
		}
		r, err := e.binary(op, v[1], v[0])
		if err != nil {
			return fail("%v", err)
		}
		e.push(r)
	case opSkip, opBra:
		return e.branch(op, b, fail)
	case opNop:
	default:
		return fail("operation not supported in call frame expressions")
	}
	return nil
}

// stackOp executes the operations that only move stack entries.
func (e *evaluator) stackOp(op byte, b *buf, underflow func() error) error {
	switch op {
	case opDup:
		if len(e.stack) < 1 {
			return underflow()
		}
		e.push(e.stack[len(e.stack)-1])
	case opDrop:
		if _, ok := e.pop(1); !ok {
			return underflow()
		}
	case opOver:
		if len(e.stack) < 2 {
			return underflow()
		}
		e.push(e.stack[len(e.stack)-2])
	case opPick:
		i := int(b.U8())
		if i >= len(e.stack) {
			return underflow()
		}
		e.push(e.stack[len(e.stack)-1-i])
	case opSwap:
		v, ok := e.pop(2)
		if !ok {
			return underflow()
		}
		e.push(v[0])
		e.push(v[1])
	case opRot: // (third second top -- top third second)
		v, ok := e.pop(3)
		if !ok {
			return underflow()
		}
		e.push(v[0])
		e.push(v[2])
		e.push(v[1])
	}
	return nil
}

// deref executes DW_OP_deref and DW_OP_deref_size.
func (e *evaluator) deref(op byte, b *buf, fail func(string, ...any) error) error {
	size := e.env.AddrSize
	if op == opDerefSize {
		size = int(b.U8())
		if size < 1 || size > e.env.AddrSize {
			return fail("deref_size of %d bytes", size)
		}
	}
	v, ok := e.pop(1)
	if !ok {
		return fail("stack underflow")
	}
	if e.env.Mem == nil {
		return fail("no memory")
	}
	m, ok := e.env.Mem(v[0], size)
	if !ok {
		return fail("memory at %#x not readable", v[0])
	}
	e.push(m)
	return nil
}

// unary executes abs, neg, not and plus_uconst on the top of the stack.
func (e *evaluator) unary(op byte, b *buf, underflow func() error) error {
	switch op {
	case opAbs, opNeg, opNot:
		v, ok := e.pop(1)
		if !ok {
			return underflow()
		}
		x := e.signed(v[0])
		switch op {
		case opAbs:
			if x < 0 {
				x = -x
			}
			e.push(uint64(x))
		case opNeg:
			e.push(uint64(-x))
		case opNot:
			e.push(^v[0])
		}
	case opPlusUconst:
		v, ok := e.pop(1)
		if !ok {
			return underflow()
		}
		e.push(v[0] + b.ULEB())
	}
	return nil
}

// branch executes DW_OP_skip and DW_OP_bra.
func (e *evaluator) branch(op byte, b *buf, fail func(string, ...any) error) error {
	off := int(int16(b.U16()))
	if op == opBra {
		v, ok := e.pop(1)
		if !ok {
			return fail("stack underflow")
		}
		if v[0] == 0 {
			return nil
		}
	}
	to := b.Pos + off
	if to < 0 || to > len(b.Data) {
		return fail("branch to %d is outside the expression", to)
	}
	b.Pos = to
	return nil
}

func (e *evaluator) breg(reg uint64, off int64, fail func(string, ...any) error) error {
	if e.env.Reg == nil {
		return fail("no registers")
	}
	v, ok := e.env.Reg(reg)
	if !ok {
		return fail("register %d not available", reg)
	}
	e.push(v + uint64(off))
	return nil
}

// binary applies a two-operand operation: a is the second entry, b the top.
func (e *evaluator) binary(op byte, a, b uint64) (uint64, error) {
	sa, sb := e.signed(a), e.signed(b)
	bool64 := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case opAnd:
		return a & b, nil
	case opOr:
		return a | b, nil
	case opXor:
		return a ^ b, nil
	case opPlus:
		return a + b, nil
	case opMinus:
		return a - b, nil
	case opMul:
		return a * b, nil
	case opDiv:
		if sb == 0 {
			return 0, fmt.Errorf("division by zero")
		}
		if sb == -1 { // avoids the overflow of MinInt / -1
			return uint64(-sa), nil
		}
		return uint64(sa / sb), nil
	case opMod:
		if b == 0 {
			return 0, fmt.Errorf("modulo by zero")
		}
		return a % b, nil
	case opShl:
		if b >= 64 {
			return 0, nil
		}
		return a << b, nil
	case opShr:
		if b >= 64 {
			return 0, nil
		}
		return a >> b, nil
	case opShra:
		if b >= 64 {
			b = 63
		}
		return uint64(sa >> b), nil
	case opEq:
		return bool64(sa == sb), nil
	case opEq + 1: // ge
		return bool64(sa >= sb), nil
	case opEq + 2: // gt
		return bool64(sa > sb), nil
	case opEq + 3: // le
		return bool64(sa <= sb), nil
	case opEq + 4: // lt
		return bool64(sa < sb), nil
	case opNe:
		return bool64(sa != sb), nil
	}
	return 0, fmt.Errorf("not a binary operation")
}
