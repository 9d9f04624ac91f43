package symfile

import (
	"bytes"
	"slices"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/mapfault"
)

// CFIRules returns the STACK CFI rules in effect at the module-relative
// address addr: the rules of the STACK CFI INIT record whose range covers
// addr, updated by each STACK CFI delta record of that block whose address
// lies between the INIT address and addr, in address order.
//
// Breakpad keeps one delta per address (a later record at the same address
// replaces an earlier one) and applies deltas from anywhere in the file;
// dump_syms writes deltas right after their INIT record, which is where we
// look for them.
//
// A block is parsed the first time a lookup lands in it and kept with the
// File (cfiblock.go), so a batch that walks through the same functions
// again and again parses each rule set once. The returned Rules slice is
// the caller's own.
func (f *File) CFIRules(addr uint64) (CFIRules, bool) {
	r, ok := f.sharedCFIRules(addr, false)
	r.Rules = slices.Clone(r.Rules) // the caller's own: Set changes it in place
	return r, ok
}

// SharedCFIRules is CFIRules whose Rules slice is the File's own, shared
// with every other lookup: the caller must not change it (nor call Set).
// A walk reads the rules of every frame and only reads them.
//
// Its Compiled program is the File's compiled form of the rules, made on
// the first lookup of their row (cfiprogram.go).
func (f *File) SharedCFIRules(addr uint64) (CFIRules, bool) {
	return f.sharedCFIRules(addr, true)
}

// sharedCFIRules is SharedCFIRules, with the rules compiled when compile.
func (f *File) sharedCFIRules(addr uint64, compile bool) (CFIRules, bool) {
	defer mapfault.Name(f.name) // fault.go
	at, _ := f.findCFI(addr)
	if at < 0 {
		return CFIRules{}, false
	}
	b := f.cfiBlock(at)
	if !b.ok {
		return CFIRules{}, false // Breakpad refuses an INIT rule set that does not parse
	}
	r, row := b.at(addr)
	if compile {
		r.Compiled = f.cfiProgram(b, row, r)
	}
	return r, true
}

// HasCFI reports whether CFIRules finds rules at addr, without copying
// them.
func (f *File) HasCFI(addr uint64) bool {
	defer mapfault.Name(f.name) // fault.go
	at, _ := f.findCFI(addr)
	return at >= 0 && f.cfiBlock(at).ok
}

// parseCFIBlock parses the STACK CFI INIT record f.cfi[at] and the delta
// records after it.
func (f *File) parseCFIBlock(at int) *cfiBlock {
	e := f.cfiAt(at)
	head := f.lineFrom(e.off)
	_, rest := splitCFI(head)
	var buf [3][]byte
	t := splitAll(rest, buf[:0], 3)
	b := &cfiBlock{}
	if len(t) < 3 || !b.init.apply(t[2]) {
		return b
	}
	b.ok = true
	pos := e.off + uint64(len(head))
	for n := 0; n < maxDeltas; n++ {
		nl := bytes.IndexByte(f.data[pos:], '\n')
		if nl < 0 {
			break
		}
		pos += uint64(nl) + 1
		if pos >= f.limit {
			break
		}
		line := f.lineFrom(pos)
		kind, rest := splitCFI(line)
		if kind != cfiDeltaLine {
			break
		}
		var b2 [2][]byte
		d := splitAll(rest, b2[:0], 2)
		if len(d) < 2 {
			continue
		}
		if a := looseHex(d[0]); a >= e.base && a <= e.high {
			set, _ := parseRuleSet(d[1]) // like Breakpad, a bad delta applies its rules up to the error
			b.deltas = append(b.deltas, cfiDelta{a, set})
		}
	}
	b.finish()
	return b
}

const (
	notCFI = iota
	cfiInit
	cfiDeltaLine
)

// splitCFI classifies a line as STACK CFI INIT or STACK CFI delta and
// returns the fields after "INIT" or "CFI", allowing runs of spaces between
// the words as Breakpad does.
func splitCFI(line []byte) (kind int, rest []byte) {
	if bytes.HasPrefix(line, pSTACKCFIINIT) {
		return cfiInit, line[len(pSTACKCFIINIT):]
	}
	if bytes.HasPrefix(line, pSTACKCFI) {
		return cfiDeltaLine, line[len(pSTACKCFI):]
	}
	if !bytes.HasPrefix(line, pSTACK) {
		return notCFI, nil
	}
	var buf [3][]byte
	t := splitAll(line[len(pSTACK):], buf[:0], 3)
	if len(t) < 2 || string(t[0]) != "CFI" {
		return notCFI, nil
	}
	if string(t[1]) == "INIT" {
		if len(t) < 3 {
			return cfiInit, nil
		}
		return cfiInit, t[2]
	}
	var b2 [2][]byte
	return cfiDeltaLine, splitAll(line[len(pSTACK):], b2[:0], 2)[1]
}

// maxDeltas bounds the delta records read after one INIT record (dump_syms
// writes one per instruction that changes a rule, so a few hundred at most),
// so that a hostile file cannot make every lookup read the whole file.
const maxDeltas = 1 << 16

// apply parses a rule set "reg: expr reg: expr ..." into r, as Breakpad's
// CFIRuleParser: a token ending in ':' names a register; the tokens after it
// form its expression. It reports false for an empty name or expression,
// having set the registers before the error.
func (r *CFIRules) apply(set []byte) bool {
	rules, ok := parseRuleSet(set)
	for _, x := range rules {
		r.Set(x.Register, x.Expr)
	}
	return ok
}

// parseRuleSet parses a rule set as apply does and returns its rules in
// order up to the first error, and whether there was none.
func parseRuleSet(set []byte) ([]CFIRule, bool) {
	var out []CFIRule
	var name, expr []byte
	report := func() bool {
		if len(name) == 0 || len(expr) == 0 {
			return false
		}
		out = append(out, CFIRule{string(name), string(expr)})
		return true
	}
	for len(set) > 0 {
		var tok []byte
		tok, set = nextRuleToken(set)
		if len(tok) == 0 {
			break
		}
		if tok[len(tok)-1] == ':' {
			if len(tok) < 2 {
				return out, false
			}
			if len(name) > 0 || len(expr) > 0 {
				if !report() {
					return out, false
				}
			}
			name = tok[:len(tok)-1]
			expr = expr[:0]
			continue
		}
		if len(expr) > 0 {
			expr = append(expr, ' ')
		}
		expr = append(expr, tok...)
	}
	return out, report()
}

// nextRuleToken returns the first word of s, between spaces, tabs, CRs and
// LFs, and what follows it.
func nextRuleToken(s []byte) (tok, rest []byte) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// Set sets the rule of a register (".cfa", ".ra" or a register name).
func (r *CFIRules) Set(reg, expr string) {
	r.Compiled = nil
	switch reg {
	case ".cfa":
		r.CFA = expr
	case ".ra":
		r.RA = expr
	default:
		for i := range r.Rules {
			if r.Rules[i].Register == reg {
				r.Rules[i].Expr = expr
				return
			}
		}
		r.Rules = append(r.Rules, CFIRule{reg, expr})
	}
}

// Rule returns the expression for a register (".cfa", ".ra" or a name).
func (r *CFIRules) Rule(reg string) (string, bool) {
	switch reg {
	case ".cfa":
		return r.CFA, r.CFA != ""
	case ".ra":
		return r.RA, r.RA != ""
	}
	for _, x := range r.Rules {
		if x.Register == reg {
			return x.Expr, true
		}
	}
	return "", false
}

// StackWin returns the STACK WIN record covering the module-relative
// address addr: the innermost type 4 (FrameData) record if any, else the
// innermost type 0 (FPO) record, as Breakpad's FindWindowsFrameInfo.
// (When neither exists Breakpad falls back to the covering FUNC's
// parameter size only; Lookup gives it as Symbol.ParamSize.)
func (f *File) StackWin(addr uint64) (*StackWin, bool) {
	defer mapfault.Name(f.name) // fault.go
	f.winOnce.Do(f.buildWinMaps)
	for _, typ := range []int{4, 0} {
		var buf [4]int
		ids := f.winMaps[typ].lookup(addr, buf[:0])
		if len(ids) == 0 {
			continue
		}
		e := f.win[ids[0]]
		line := f.lineFrom(e.off)
		i := bytes.Index(line, []byte("WIN"))
		if i < 0 || i+4 > len(line) {
			return nil, false
		}
		w, ok := parseStackWin(line[i+4:])
		if !ok {
			return nil, false
		}
		return &w, true
	}
	return nil, false
}

func (f *File) buildWinMaps() {
	for i, e := range f.win {
		f.winMaps[f.winType[i]].store(e.addr, e.size, i)
	}
}
