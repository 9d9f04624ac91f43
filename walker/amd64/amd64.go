package amd64

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// cfiRegs is Breakpad's amd64 CFI register map: rbx, rbp, r12–r15 are callee-saved.
var cfiRegs = []walker.CFIRegister{
	{Index: 0, Name: "$rax"},
	{Index: 1, Name: "$rdx"},
	{Index: 2, Name: "$rcx"},
	{Index: minidump.AMD64RBX, Name: "$rbx", CalleeSaves: true},
	{Index: 4, Name: "$rsi"},
	{Index: 5, Name: "$rdi"},
	{Index: minidump.AMD64RBP, Name: "$rbp", CalleeSaves: true},
	{Index: minidump.AMD64RSP, Name: "$rsp", Alt: ".cfa"},
	{Index: 8, Name: "$r8"},
	{Index: 9, Name: "$r9"},
	{Index: 10, Name: "$r10"},
	{Index: 11, Name: "$r11"},
	{Index: minidump.AMD64R12, Name: "$r12", CalleeSaves: true},
	{Index: minidump.AMD64R13, Name: "$r13", CalleeSaves: true},
	{Index: minidump.AMD64R14, Name: "$r14", CalleeSaves: true},
	{Index: minidump.AMD64R15, Name: "$r15", CalleeSaves: true},
	{Index: minidump.AMD64RIP, Name: "$rip", Alt: ".ra"},
}

// state is the per-frame walker state: Breakpad keeps the callee's rbp
// value in a frame's context even when it marks rbp invalid (after a scan),
// and later frame-pointer recovery reads that stale value; CFI frames hold
// Breakpad's 0xdada… filler instead.
type state struct {
	rawRBP uint64
}

// Walker is the amd64 walker.Arch.
type Walker struct{}

// New returns the amd64 walker.
func New() walker.Arch { return Walker{} }

func rawRBP(f *walker.Frame) uint64 {
	if s, ok := f.ArchState.(*state); ok {
		return s.rawRBP
	}
	v, _ := f.Context.Index(minidump.AMD64RBP)
	return v
}

// Caller implements walker.Arch: the rules of the table chosen from
// the mode and the OS (rules.go), in order, then the stop rule.
func (Walker) Caller(w *walker.Walker, scanAllowed bool) *walker.Frame {
	last := w.Last()
	if last == nil || w.Env.Memory == nil {
		return nil
	}
	m := modeOf(w.Env)
	s := step{last: last, scanAllowed: scanAllowed}
	f := m.rules.Try(w, s)
	if f == nil || f.Trust == walker.TrustSignal {
		return f // a signal frame's Instruction is the interrupted one
	}
	if w.Env.OS == "nacl" {
		for _, i := range []int{minidump.AMD64RIP, minidump.AMD64RSP, minidump.AMD64RBP} {
			if v, ok := f.Context.Index(i); ok {
				f.Context.SetIndex(i, uint64(uint32(v)))
			}
		}
	}
	ip, _ := f.Context.IP()
	sp, _ := f.Context.SP()
	lastSP, _ := last.Context.SP()
	if walker.Terminate(ip, sp, lastSP, last.Trust == walker.TrustContext) {
		return w.Stopped(f, "pc below 4096 or sp not above the callee's")
	}
	f.Instruction = ip - 1
	if m.sigreturnLookup && isSigreturn(w, ip) {
		// The kernel made the trampoline's first byte the handler's
		// return address: nothing called it, the lookup is at ip.
		f.Instruction = ip
	}
	return f
}

const dadaFiller = 0xdadadadadadadada

func byCFI(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules) *walker.Frame {
	ctx, ok := w.CallerByCFI(rules, last, cfiRegs)
	if !ok {
		return nil
	}
	ip, ipOK := ctx.IP()
	sp, spOK := ctx.SP()
	if !ipOK || !spOK || ip == 0 || sp == 0 {
		return nil
	}
	st := &state{rawRBP: dadaFiller}
	if v, ok := ctx.Index(minidump.AMD64RBP); ok {
		st.rawRBP = v
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustCFI, ArchState: st})
}

// nonCanonical reports an address no user-space pointer can hold.
func nonCanonical(p uint64) bool { return p > 0x7fffffffffff && p < 0xffff800000000000 }

// byFramePointer follows the frame record at rbp. Breakpad's checks of
// the saved rbp (at or above the caller's rsp, readable) are skipped when
// the code proves the record is the frame's own (proven): the saved value
// is then the caller's rbp whatever it holds (a frameless caller's data,
// 0 at the chain's end).
func byFramePointer(w *walker.Walker, last *walker.Frame, proven bool) *walker.Frame {
	rbp := rawRBP(last)
	if rbp%8 != 0 {
		return nil
	}
	callerIP, ok1 := w.ReadUint64(rbp + 8)
	callerRBP, ok2 := w.ReadUint64(rbp)
	if !ok1 || !ok2 {
		w.Reject(walker.RuleFrameRecord, "no frame record at rbp %#x in the stack", rbp)
		return nil
	}
	callerSP := rbp + 16
	if nonCanonical(callerIP) || callerSP <= rbp {
		w.Reject(walker.RuleFrameRecord, "record at rbp %#x: return address %#x is no user address", rbp, callerIP)
		return nil
	}
	if !proven {
		if callerRBP < callerSP {
			w.Reject(walker.RuleFrameRecord, "record at rbp %#x: saved rbp %#x below the caller's rsp", rbp, callerRBP)
			return nil
		}
		if _, ok := w.ReadUint64(callerRBP); !ok {
			w.Reject(walker.RuleFrameRecord, "record at rbp %#x: saved rbp %#x outside the stack", rbp, callerRBP)
			return nil
		}
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.AMD64RIP, callerIP)
	ctx.SetIndex(minidump.AMD64RSP, callerSP)
	ctx.SetIndex(minidump.AMD64RBP, callerRBP)
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustFramePointer, ArchState: &state{rawRBP: callerRBP}})
}

// byFramelessLeaf returns from a frameless context frame through the
// word at rsp when the evidence says so (retaddr.FramelessLeaf); every
// other register is still the caller's.
func byFramelessLeaf(w *walker.Walker, last *walker.Frame) *walker.Frame {
	rsp, ok1 := last.Context.SP()
	rbp, ok2 := last.Context.Index(minidump.AMD64RBP)
	if !ok1 || !ok2 {
		return nil
	}
	ra, ok := retaddr.FramelessLeaf(w, last, rsp, rbp, scanArch)
	why := "the code confirms it"
	if !ok {
		ra, why, ok = retaddr.FramelessLeafWithoutCode(w, last, rsp, rbp, scanArch)
	}
	if !ok {
		w.Reject(walker.RuleLeafReturn, "the word at rsp %#x is no return address the code confirms over the record at rbp %#x", rsp, rbp)
		return nil
	}
	ctx := last.Context
	ctx.SetIndex(minidump.AMD64RIP, ra)
	ctx.SetIndex(minidump.AMD64RSP, rsp+8)
	w.Found("frameless: the word at rsp %#x = %#x returns, the record at rbp %#x is the caller's (%s)", rsp, ra, rbp, why)
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustLeaf, Rule: walker.RuleLeafReturn, ArchState: &state{rawRBP: rawRBP(last)}})
}

// scanArch describes amd64 to the shared checks.
var scanArch = retaddr.Arch{WordSize: 8, CallOffset: 1, PC: minidump.AMD64RIP, SP: minidump.AMD64RSP, CFIRegs: cfiRegs}

func bySimulatingReturn(w *walker.Walker, last *walker.Frame) *walker.Frame {
	sp, _ := last.Context.SP()
	loc, ip, ok := w.ScanForReturnAddress(sp, 1, 8)
	if !ok {
		return nil
	}
	ctx := last.Context // every register as the leaf left it
	ctx.SetIndex(minidump.AMD64RIP, ip)
	ctx.SetIndex(minidump.AMD64RSP, loc+8)
	if w.Tracing() { // boxing the arguments allocates
		w.Found("word at rsp %#x = %#x", loc, ip)
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustLeaf, Rule: walker.RuleLeafReturn, ArchState: &state{rawRBP: rawRBP(last)}})
}

// byScan scans for a return address; checks is what a candidate must pass
// beyond Breakpad's test (0: Breakpad's scan).
func byScan(w *walker.Walker, last *walker.Frame, checks retaddr.Checks) *walker.Frame {
	sp, _ := last.Context.SP()
	// Breakpad's scan; when the dump holds code (never in Breakpad's
	// modes), the candidates are chosen by their call sites.
	loc, ip, ok := retaddr.Scan(w, last, sp, retaddr.ScanWords(w, last), ^uint64(0), scanArch, checks)
	if !ok {
		if w.Tracing() { // boxing the arguments allocates
			w.Reject(walker.RuleScan, "no candidate from %#x", sp)
		}
		return nil
	}
	if w.Tracing() { // boxing the arguments allocates
		w.Found("word at %#x = %#x", loc, ip)
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.AMD64RIP, ip)
	ctx.SetIndex(minidump.AMD64RSP, loc+8)
	// rbp: recovered when the return address sits right above a saved
	// frame pointer, kept when the callee's rbp still points above it.
	stale := rawRBP(last)
	if rbp, valid := last.Context.Index(minidump.AMD64RBP); valid {
		if loc-8 == rbp {
			if callerRBP, ok := w.ReadUint64(rbp); ok && callerRBP > loc {
				ctx.SetIndex(minidump.AMD64RBP, callerRBP)
			}
		} else if rbp >= loc+8 {
			ctx.SetIndex(minidump.AMD64RBP, rbp)
		}
	}
	st := &state{rawRBP: stale}
	if v, ok := ctx.Index(minidump.AMD64RBP); ok {
		st.rawRBP = v
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustScan, Rule: retaddr.ScanRule(w, last, ip, checks != 0), ArchState: st})
}
