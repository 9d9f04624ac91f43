package pesupplier

import (
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// arm64Rules unwinds the ARM64 frame at rva as Windows' unwinder does
// with .pdata: in frame 0 (context), inside an epilog only its codes not
// yet executed apply, inside the prolog only those already executed;
// elsewhere the whole prolog is undone. A context pc no entry covers is a
// leaf: the return address is in lr.
func (m *Module) arm64Rules(rva uint32, context bool) (symfile.CFIRules, bool) {
	i := sort.Search(len(m.arm64), func(i int) bool { return m.arm64[i].Begin > rva }) - 1
	var u *pe.ARM64Unwind
	var err error
	if i >= 0 {
		u, err = m.img.ARM64UnwindOf(m.arm64[i])
	}
	if i < 0 || err != nil || rva-m.arm64[i].Begin >= u.FunctionLength {
		if context && m.IsCode(uint64(rva)) {
			var r frameRules
			return r.cfi(loc{reg: "sp"}, loc{reg: "x30"}, nil), true
		}
		return symfile.CFIRules{}, false
	}
	codes, ok := arm64Codes(u, rva-m.arm64[i].Begin, context)
	if !ok {
		return symfile.CFIRules{}, false
	}
	return unwindARM64(codes)
}

// arm64Codes picks the codes that undo the frame at off bytes into the
// function, in unwind order.
func arm64Codes(u *pe.ARM64Unwind, off uint32, context bool) ([]pe.ARM64Code, bool) {
	prolog := pe.ResolveSaveNext(u.Prolog)
	if !context || u.Fragment {
		return prolog, true
	}
	if codes, in, ok := arm64EpilogCodes(u, prolog, off); in {
		return codes, ok
	}
	if n := uint32(len(prolog)); off/4 < n { // k instructions of the prolog ran: undo the last k codes
		return prolog[n-off/4:], true
	}
	return prolog, true
}

// maxEpilogCodes bounds an epilog's codes: .xdata holds at most 1020
// code bytes.
const maxEpilogCodes = 1024

// arm64EpilogCodes reports whether off lies in an epilog and returns the
// codes of its instructions not yet executed.
func arm64EpilogCodes(u *pe.ARM64Unwind, prolog []pe.ARM64Code, off uint32) ([]pe.ARM64Code, bool, bool) {
	if u.Packed {
		// The canonical epilog ends the function: the prolog undone in
		// reverse (set_fp has no epilog instruction), then ret.
		var ep []pe.ARM64Code
		for _, c := range prolog {
			if c.Op != pe.A64SetFP && c.Op != pe.A64PACSignLR {
				ep = append(ep, c)
			}
		}
		start := int64(u.FunctionLength) - 4*int64(len(ep)+1)
		if int64(off) < start || start < 0 {
			return nil, false, false
		}
		return ep[(int64(off)-start)/4:], true, true
	}
	scopes := u.Epilogs
	if u.E {
		codes, err := u.EpilogCodes(u.EpilogIndex)
		if err != nil {
			return nil, false, false
		}
		scopes = []pe.ARM64Epilog{{Start: u.FunctionLength - 4*uint32(len(codes)+1), StartIndex: u.EpilogIndex}}
	}
	for _, s := range scopes {
		if off < s.Start || off-s.Start >= 4*maxEpilogCodes {
			continue // decode only the scopes that can hold off
		}
		codes, err := u.EpilogCodes(s.StartIndex)
		if err != nil {
			continue
		}
		n := uint32(len(codes))
		if off < s.Start || off >= s.Start+4*(n+1) {
			continue
		}
		codes = pe.ResolveSaveNext(codes)
		return codes[(off-s.Start)/4:], true, true
	}
	return nil, false, false
}

// arm64Regs are the registers a save stores, lowest first.
func arm64Regs(c pe.ARM64Code) []string {
	switch {
	case c.Float():
		return nil // d registers are not in the walker's register set
	case c.Op == pe.A64SaveLRPair:
		return []string{fmt.Sprintf("x%d", c.Reg), "x30"}
	case c.Pair():
		return []string{fmt.Sprintf("x%d", c.Reg), fmt.Sprintf("x%d", c.Reg+1)}
	}
	return []string{fmt.Sprintf("x%d", c.Reg)}
}

// unwindARM64 undoes codes (in unwind order) and returns the caller's
// rules: .cfa is the caller's sp, .ra its pc (lr as the prolog saved it).
func unwindARM64(codes []pe.ARM64Code) (symfile.CFIRules, bool) {
	cur := loc{reg: "sp"}
	var rules frameRules
	for _, c := range codes {
		switch c.Op {
		case pe.A64AllocS, pe.A64AllocM, pe.A64AllocL:
			cur = cur.add(int64(c.Offset))
		case pe.A64SetFP:
			cur = loc{reg: "x29"}
		case pe.A64AddFP:
			cur = loc{reg: "x29", off: -int64(c.Offset)}
		case pe.A64Nop, pe.A64EndC, pe.A64PACSignLR, pe.A64ClearUnwoundToCall:
		case pe.A64SaveR19R20X, pe.A64SaveFPLR, pe.A64SaveFPLRX, pe.A64SaveRegP, pe.A64SaveRegPX,
			pe.A64SaveReg, pe.A64SaveRegX, pe.A64SaveLRPair, pe.A64SaveFRegP, pe.A64SaveFRegPX,
			pe.A64SaveFReg, pe.A64SaveFRegX:
			at := cur
			if !c.Writeback() {
				at = cur.add(int64(c.Offset))
			}
			for k, reg := range arm64Regs(c) {
				rules.save(reg, at.add(int64(8*k)))
			}
			if c.Writeback() {
				cur = cur.add(int64(c.Offset))
			}
		default: // machine frames, contexts, SVE, save_any_reg: not undone here
			return symfile.CFIRules{}, false
		}
	}
	ra := loc{reg: "x30"}
	if at, ok := rules.saved["x30"]; ok {
		ra = loc{at.reg, at.off, true}
	}
	return rules.cfi(cur, ra, nil), true
}
