package elfcfi

import "fmt"

// Caller is the result of applying a Row to a frame: the CFA and the
// caller's registers that the row recovers.
type Caller struct {
	CFA uint64
	// Regs holds the value of every register whose rule could be
	// evaluated. A register with no rule is absent: whether the caller has
	// the callee's value is the architecture's convention.
	Regs map[uint64]uint64
	// Undefined lists the registers whose rule is DW_CFA_undefined (on most
	// architectures an undefined return address marks the outermost frame)
	// and those whose rule could not be evaluated (unreadable memory).
	Undefined []uint64
}

// Unwind computes the CFA and applies every register rule of the row to the
// callee's registers and memory in env. Only a CFA that cannot be computed
// is an error.
func (r *Row) Unwind(env *ExprEnv) (*Caller, error) {
	cfa, err := r.cfa(env)
	if err != nil {
		return nil, fmt.Errorf("CFA: %w", err)
	}
	c := &Caller{CFA: cfa, Regs: make(map[uint64]uint64, len(r.Regs))}
	for _, rr := range r.Regs {
		v, ok := applyRule(rr, cfa, env)
		if ok {
			c.Regs[rr.Reg] = v
		} else {
			c.Undefined = append(c.Undefined, rr.Reg)
		}
	}
	return c, nil
}

func (r *Row) cfa(env *ExprEnv) (uint64, error) {
	if r.CFA.Expr != nil {
		return EvalExpr(r.CFA.Expr, env)
	}
	v, ok := env.Reg(r.CFA.Reg)
	if !ok {
		return 0, fmt.Errorf("register %d not available", r.CFA.Reg)
	}
	return mask(v+uint64(r.CFA.Offset), env.AddrSize), nil
}

func mask(v uint64, size int) uint64 {
	if size == 4 {
		return v & 0xffffffff
	}
	return v
}

func applyRule(rr RegRule, cfa uint64, env *ExprEnv) (uint64, bool) {
	r := rr.Rule
	read := func(addr uint64) (uint64, bool) {
		if env.Mem == nil {
			return 0, false
		}
		return env.Mem(mask(addr, env.AddrSize), env.AddrSize)
	}
	switch r.Kind {
	case RuleSameValue:
		return env.Reg(rr.Reg)
	case RuleOffset:
		return read(cfa + uint64(r.Offset))
	case RuleValOffset:
		return mask(cfa+uint64(r.Offset), env.AddrSize), true
	case RuleRegister:
		return env.Reg(r.Reg)
	case RuleExpression:
		addr, err := EvalExpr(r.Expr, env, cfa)
		if err != nil {
			return 0, false
		}
		return read(addr)
	case RuleValExpression:
		v, err := EvalExpr(r.Expr, env, cfa)
		return v, err == nil
	}
	return 0, false
}
