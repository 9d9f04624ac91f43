package pesupplier

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// x64Regs names the unwind codes' register numbers as STACK CFI does.
var x64Regs = [16]string{"$rax", "$rcx", "$rdx", "$rbx", "$rsp", "$rbp", "$rsi", "$rdi",
	"$r8", "$r9", "$r10", "$r11", "$r12", "$r13", "$r14", "$r15"}

// x64NonVolatile are the Windows x64 callee-saved registers Breakpad's
// (System V) register map treats as volatile: with no save slot, the
// caller has the callee's value.
var x64NonVolatile = []string{"$rsi", "$rdi"}

// maxChain bounds chained and indirect RUNTIME_FUNCTION entries followed.
const maxChain = 32

// x64Rules unwinds the x64 frame at rva as RtlVirtualUnwind does: in
// frame 0 (context), an epilog recognised by its instruction bytes is
// undone instruction by instruction, and inside a prolog only the codes
// whose offset is at or below the pc's apply; a context pc no
// RUNTIME_FUNCTION covers is a leaf (its return address at [rsp]).
func (m *Module) x64Rules(rva uint32, context bool) (symfile.CFIRules, bool) {
	rf, ok := pe.LookupFunction(m.x64, rva)
	if !ok {
		if context && m.IsCode(uint64(rva)) {
			return leafX64(), true
		}
		return symfile.CFIRules{}, false
	}
	for i := 0; rf.UnwindInfo&1 == 1; i++ { // an indirect entry names another
		if i == maxChain {
			return symfile.CFIRules{}, false
		}
		b, err := m.img.BytesAtRVA("RUNTIME_FUNCTION", rf.UnwindInfo&^1, 12)
		if err != nil {
			return symfile.CFIRules{}, false
		}
		rf = pe.RuntimeFunction{Begin: le(b), End: le(b[4:]), UnwindInfo: le(b[8:])}
	}
	u, err := m.img.UnwindInfoAt(rf.UnwindInfo)
	if err != nil {
		return symfile.CFIRules{}, false
	}
	off := rva - rf.Begin
	inProlog := off < uint32(u.PrologSize)
	if context && !inProlog {
		if rules, ok := m.x64Epilog(rva, rf, u); ok {
			return rules, true
		}
	}
	var st x64State
	st.cur = loc{reg: "$rsp"}
	st.frame = establisher(u, off, inProlog)
	if !st.apply(u, off, inProlog) {
		return symfile.CFIRules{}, false
	}
	for i := 0; u.Chained != nil && !st.machFrame; i++ {
		if i == maxChain {
			return symfile.CFIRules{}, false
		}
		if u, err = m.img.UnwindInfoAt(u.Chained.UnwindInfo); err != nil || !st.apply(u, 0, false) {
			return symfile.CFIRules{}, false
		}
	}
	return st.result(), true
}

func le(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

func leafX64() symfile.CFIRules {
	var r frameRules
	return r.cfi(loc{reg: "$rsp", off: 8}, loc{reg: "$rsp", deref: true}, x64NonVolatile)
}

// establisher is the frame base SAVE_NONVOL offsets count from: the frame
// register less its offset once SET_FPREG has run, else rsp.
func establisher(u *pe.UnwindInfo, off uint32, inProlog bool) loc {
	if u.FrameRegister == 0 {
		return loc{reg: "$rsp"}
	}
	fp := loc{reg: x64Regs[u.FrameRegister], off: -int64(u.FrameOffset)}
	if !inProlog {
		return fp
	}
	for _, c := range u.Codes {
		if c.Op == pe.OpSetFPReg && off >= uint32(c.CodeOffset) {
			return fp
		}
	}
	return loc{reg: "$rsp"}
}

// x64State is the unwind in progress: where rsp is, the frame base, the
// save slots found.
type x64State struct {
	cur, frame loc
	rules      frameRules
	machFrame  bool
	ra, cfa    loc // set by PUSH_MACHFRAME
}

// apply undoes u's codes; inside the prolog only those at or below off.
func (s *x64State) apply(u *pe.UnwindInfo, off uint32, inProlog bool) bool {
	for _, c := range u.Codes {
		if inProlog && uint32(c.CodeOffset) > off {
			continue
		}
		switch c.Op {
		case pe.OpPushNonvol:
			s.rules.save(x64Regs[c.Info], s.cur)
			s.cur = s.cur.add(8)
		case pe.OpAllocSmall, pe.OpAllocLarge:
			s.cur = s.cur.add(int64(c.Value))
		case pe.OpSetFPReg:
			if u.FrameRegister == 0 {
				return false
			}
			s.cur = loc{reg: x64Regs[u.FrameRegister], off: -int64(u.FrameOffset)}
		case pe.OpSaveNonvol, pe.OpSaveNonvolFar:
			s.rules.save(x64Regs[c.Info], s.frame.add(int64(c.Value)))
		case pe.OpPushMachFrame:
			at := s.cur
			if c.Info == 1 { // an error code above the frame
				at = at.add(8)
			}
			s.machFrame = true
			s.ra = loc{at.reg, at.off, true}
			s.cfa = loc{at.reg, at.off + 24, true}
			return true
		}
		// SAVE_XMM128(_FAR): XMM registers are not in the walker's
		// register set; version 1's SAVE_XMM and version 2's EPILOG
		// codes change nothing in the prolog.
	}
	return true
}

func (s *x64State) result() symfile.CFIRules {
	if s.machFrame {
		return s.rules.cfi(s.cfa, s.ra, x64NonVolatile)
	}
	return s.rules.cfi(s.cur.add(8), loc{s.cur.reg, s.cur.off, true}, x64NonVolatile)
}
