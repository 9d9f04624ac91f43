package pesupplier

import (
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// loc is an address as a register of the frame being unwound plus an
// offset, or a value loaded from such an address (deref).
type loc struct {
	reg   string // "$rsp", "$rbp", "sp", "x29", ...
	off   int64
	deref bool
}

func (l loc) add(n int64) loc { return loc{l.reg, l.off + n, l.deref} }

// expr writes l as a postfix expression of the callee's registers.
func (l loc) expr() string {
	var s string
	switch {
	case l.off > 0:
		s = fmt.Sprintf("%s %d +", l.reg, l.off)
	case l.off < 0:
		s = fmt.Sprintf("%s %d -", l.reg, -l.off)
	default:
		s = l.reg
	}
	if l.deref {
		s = fmt.Sprintf("%s ^", s)
	}
	return s
}

// frameRules collects where an unwound frame's registers were saved.
type frameRules struct {
	saved map[string]loc // register name -> its save slot's address
	order []string
}

func (r *frameRules) save(reg string, at loc) {
	if r.saved == nil {
		r.saved = map[string]loc{}
	}
	if _, ok := r.saved[reg]; ok {
		return // an outer code (earlier in the prolog) is overridden by the inner one already seen
	}
	r.saved[reg] = at
	r.order = append(r.order, reg)
}

// cfi turns the unwind result into STACK CFI rules: cfa is the caller's
// stack pointer, ra where the return address is (or a register holding
// it); saved slots are written relative to .cfa when they share its base,
// as dump_syms writes them.
func (r *frameRules) cfi(cfa, ra loc, keep []string) symfile.CFIRules {
	var out symfile.CFIRules
	out.CFA = cfa.expr()
	rel := func(at loc) string {
		if !cfa.deref && at.reg == cfa.reg {
			return loc{".cfa", at.off - cfa.off, false}.expr() + " ^"
		}
		return loc{at.reg, at.off, true}.expr()
	}
	if ra.deref {
		out.RA = rel(loc{ra.reg, ra.off, false})
	} else {
		out.RA = ra.expr()
	}
	for _, reg := range r.order {
		out.Set(reg, rel(r.saved[reg]))
	}
	for _, reg := range keep {
		if _, ok := r.saved[reg]; !ok {
			out.Set(reg, reg)
		}
	}
	return out
}
