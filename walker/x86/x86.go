package x86

import (
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/internal/retaddr"
)

// maxFrameGap bounds the distance between a scanned frame's restored EBP
// and its stack pointer (Breakpad's kMaxReasonableGapBetweenFrames, 128 KiB).
const maxFrameGap = 128 * 1024

var cfiRegs = []walker.CFIRegister{
	{Index: minidump.X86EIP, Name: "$eip", Alt: ".ra"},
	{Index: minidump.X86ESP, Name: "$esp", Alt: ".cfa"},
	{Index: minidump.X86EBP, Name: "$ebp", CalleeSaves: true},
	{Index: minidump.X86EAX, Name: "$eax"},
	{Index: minidump.X86EBX, Name: "$ebx", CalleeSaves: true},
	{Index: minidump.X86ECX, Name: "$ecx"},
	{Index: minidump.X86EDX, Name: "$edx"},
	{Index: minidump.X86ESI, Name: "$esi", CalleeSaves: true},
	{Index: minidump.X86EDI, Name: "$edi", CalleeSaves: true},
}

// frameInfo is what Breakpad's FindWindowsFrameInfo gives for a frame: a
// full STACK WIN record, or only the parameter size of the covering FUNC.
type frameInfo struct {
	win            *symfile.StackWin // nil: only the parameter size is known
	paramSize      uint32
	paramSizeValid bool
}

// state is the x86 per-frame state, kept in Frame.ArchState.
type state struct {
	info *frameInfo // set when the frame was the callee of a STACK WIN attempt
}

// Walker is the x86 walker.Arch. In Breakpad mode (walker.Env.Mode) it
// reproduces Breakpad's choice of .cbCalleeParams (see byWindowsFrameInfo)
// instead of the callee's parameter size, and its stack scans, which never
// read the dump's code to check the call before a candidate return
// address.
type Walker struct{}

// New returns the x86 walker.
func New() walker.Arch { return Walker{} }

func reg(f *walker.Frame, i int) uint32 {
	v, _ := f.Context.Index(i)
	return uint32(v)
}

func valid(f *walker.Frame, i int) bool {
	_, ok := f.Context.Index(i)
	return ok
}

func findFrameInfo(w *walker.Walker, f *walker.Frame) *frameInfo {
	if win, ok := w.StackWin(f); ok && win != nil {
		return &frameInfo{win: win, paramSize: win.ParameterSize, paramSizeValid: true}
	}
	if ps, ok := w.FuncParamSize(f); ok {
		return &frameInfo{paramSize: ps, paramSizeValid: true}
	}
	return nil
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
	ip, _ := f.Context.IP()
	sp, _ := f.Context.SP()
	lastSP, _ := last.Context.SP()
	if walker.Terminate(ip, sp, lastSP, last.Trust == walker.TrustContext) {
		return w.Stopped(f, "pc below 4096 or sp not above the callee's")
	}
	f.Instruction = uint64(uint32(ip - 1))
	if m.sigreturnLookup {
		if tramp, _ := sigreturnKind(w, uint32(ip)); tramp {
			// The kernel made the trampoline's first byte the handler's
			// return address: nothing called it, the lookup is at ip.
			f.Instruction = ip
		}
	}
	return f
}

// cannotBeCaller reports whether f, recovered for last's caller, is
// refused by the stop rule or returns into no module.
func cannotBeCaller(w *walker.Walker, f, last *walker.Frame) bool {
	ip, _ := f.Context.IP()
	sp, _ := f.Context.SP()
	lastSP, _ := last.Context.SP()
	return walker.Terminate(ip, sp, lastSP, last.Trust == walker.TrustContext) || w.ModuleAt(ip) == nil
}

// maxRealign bounds how far a realigning prologue may have moved the stack
// pointer down (its alignment, and the callee-saved registers pushed
// between the frame record and the saved DRAP register).
const maxRealign = 4096

// byDRAP recovers the caller of a frame whose function realigned its stack
// (GCC's dynamic realignment: i386 main, functions with over-aligned
// locals). Its prologue is `lea 4(%esp), %ecx; and $-N, %esp; push
// -4(%ecx); push %ebp; mov %esp, %ebp; [push callee-saved registers;]
// push %ecx`: the frame record at ebp holds a copy of the return address,
// and a word just below it (the saved DRAP register, ecx, edx or edi) the
// caller's stack pointer, with the original return address right below
// that. The caller's stack pointer is the saved word whose preceding word
// equals the record's return address, at least 12 bytes above ebp (the
// copy and the original lie between). Following the frame record alone
// gives the right return address but the realigned stack pointer.
func byDRAP(w *walker.Walker, last *walker.Frame) *walker.Frame {
	if !valid(last, minidump.X86EBP) {
		return nil
	}
	ebp := reg(last, minidump.X86EBP)
	ra, ok1 := w.ReadUint32(uint64(ebp) + 4)
	savedEBP, ok2 := w.ReadUint32(uint64(ebp))
	if !ok1 || !ok2 || ra < walker.MinCallerIP || w.ModuleAt(uint64(ra)) == nil || ebp < 32 {
		return nil
	}
	for k := uint32(1); k <= 8; k++ {
		cfa, ok := w.ReadUint32(uint64(ebp - 4*k))
		if !ok || cfa < ebp+12 || cfa-ebp > maxRealign || cfa%4 != 0 {
			continue
		}
		if orig, ok := w.ReadUint32(uint64(cfa - 4)); !ok || orig != ra {
			continue
		}
		ctx := minidump.NewContext(last.Context.Arch)
		ctx.SetIndex(minidump.X86EIP, uint64(ra))
		ctx.SetIndex(minidump.X86ESP, uint64(cfa))
		ctx.SetIndex(minidump.X86EBP, uint64(savedEBP))
		w.Found("frame record at ebp %#x, saved stack pointer %#x at ebp-%d with the return address %#x below it", ebp, cfa, 4*k, ra)
		return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustFramePointer, Rule: walker.RuleRealigned})
	}
	w.Reject(walker.RuleRealigned, "no saved stack pointer below ebp %#x with the return address %#x below it", ebp, ra)
	return nil
}

// calleeParamSize is the parameter size of callee, the frame whose
// arguments lie between its caller's stack pointer and the caller's locals:
// from its STACK WIN or FUNC record, or else from the PUBLIC symbol that
// names it. A PUBLIC's size is the stdcall argument size a PDB's decorated
// name gives (dump_syms writes it); Breakpad's FindWindowsFrameInfo reads it
// but drops it (it returns no frame info without a FUNC), so a frame
// called by a function with a STACK WIN record starts its search for the
// return address among the callee's arguments and may take a stale word
// there for it.
func calleeParamSize(callee *walker.Frame) uint32 {
	if ci := infoOf(callee); ci != nil && ci.paramSizeValid {
		return ci.paramSize
	}
	if callee.IsPublic && callee.Trust != walker.TrustInline {
		return callee.ParamSize
	}
	return 0
}

func setState(f *walker.Frame, info *frameInfo) {
	if s, ok := f.ArchState.(*state); ok {
		s.info = info
		return
	}
	f.ArchState = &state{info: info}
}

func infoOf(f *walker.Frame) *frameInfo {
	if s, ok := f.ArchState.(*state); ok {
		return s.info
	}
	return nil
}

func scan(w *walker.Walker, start uint32, words int) (loc, ip uint32, ok bool) {
	l, v, ok := w.ScanForReturnAddress(uint64(start), words, 4)
	return uint32(l), uint32(v), ok
}

// scanCaller scans for the return address of callee's caller: Breakpad's
// scan, or outside Breakpad mode its candidates less those the symbols
// rule out (retaddr.CheckSymbols: a function's first byte, _init's
// padding, _fini, the entry point), chosen by their call sites when the
// dump holds code (retaddr.Scan). rule says how the word was chosen.
func scanCaller(w *walker.Walker, callee *walker.Frame, start uint32, words int, breakpad bool) (loc, ip uint32, rule walker.Rule, ok bool) {
	var checks retaddr.Checks
	if !breakpad {
		checks = retaddr.CheckSymbols
	}
	l, v, ok := retaddr.Scan(w, callee, uint64(start), words, ^uint64(0), scanArch, checks)
	if !ok {
		return 0, 0, walker.RuleNone, false
	}
	return uint32(l), uint32(v), retaddr.ScanRule(w, callee, v, !breakpad), true
}

func byWindowsFrameInfo(w *walker.Walker, last *walker.Frame, info *frameInfo, scanAllowed, breakpad bool) *walker.Frame {
	setState(last, info)
	if info.win == nil {
		w.Reject(walker.RuleStackWin, "no STACK WIN record at %#x, only a parameter size", last.Instruction)
		return nil // only a parameter size: not enough to unwind
	}
	win := info.win

	// .cbCalleeParams is the parameter size of last's callee (the frame
	// before it), 0 when unknown or when last is the context frame.
	// Breakpad's loop over the earlier frames lacks a break, so it takes the
	// innermost frame with a known size instead (frame 0's, whatever the
	// depth); that is reproduced only on request.
	calleeParams := calleeParamsOf(w.Frames(), breakpad)

	esp := reg(last, minidump.X86ESP)
	ebp := reg(last, minidump.X86EBP)
	eip := reg(last, minidump.X86EIP)
	vars := map[string]uint64{
		"$ebp":            uint64(ebp),
		"$esp":            uint64(esp),
		".cbCalleeParams": uint64(calleeParams),
		".cbSavedRegs":    uint64(win.SavedRegisterSize),
		".cbLocals":       uint64(win.LocalSize),
		".cbParams":       uint64(win.ParameterSize),
	}
	if valid(last, minidump.X86EBX) {
		vars["$ebx"] = uint64(reg(last, minidump.X86EBX))
	}

	raSearchStart := esp + calleeParams + win.LocalSize + win.SavedRegisterSize
	// Breakpad moves .raSearchStart to the first plausible return address
	// within three words; for the context frame of an FPO function, a hit at
	// the start that equals the current EIP is skipped.
	old := raSearchStart
	if loc, found, ok := scan(w, raSearchStart, 3); ok {
		raSearchStart = loc
		if last.Trust == walker.TrustContext && win.Type == 0 && loc == old && found == eip {
			raSearchStart += 4
			if loc2, _, ok := scan(w, raSearchStart, 3); ok {
				raSearchStart = loc2
			}
		}
	}

	program, recoverEBP := winProgram(last, win)
	trust := walker.TrustCFI
	if valid(last, minidump.X86EBP) && strings.Contains(program, "@") {
		raSearchStart = ebp + 4
	}
	vars[".raSearchStart"] = uint64(raSearchStart)
	vars[".raSearch"] = uint64(raSearchStart)

	rule := walker.RuleStackWin
	assigned, ok := evaluate(program, vars, w.SymbolMemory())
	if !ok || !assigned["$eip"] || !assigned["$esp"] {
		w.Reject(walker.RuleStackWin, "program %q does not set $eip and $esp", program)
		if !scanAllowed {
			return nil
		}
		loc, ip, scanRule, ok := scanCaller(w, last, esp, retaddr.ScanWords(w, last), breakpad)
		if !ok {
			return nil
		}
		vars["$eip"] = uint64(ip)
		vars["$esp"] = uint64(loc + 4)
		trust, rule = walker.TrustScan, scanRule
	}

	newEIP := uint32(vars["$eip"])
	newEBP := uint32(vars["$ebp"])
	if newEIP != 0 || newEBP != 0 {
		var offset uint32
		// An EIP outside every module means the program found the wrong
		// slot: look further up the stack for a return address.
		if w.ModuleAt(uint64(newEIP)) == nil {
			start := uint32(vars[".raSearchStart"]) + 4
			w.Reject(rule, "$eip %#x lies in no module: scanning from %#x", newEIP, start)
			if scanAllowed {
				if loc, ip, _, ok := scanCaller(w, last, start, retaddr.ScanWords(w, last), breakpad); ok {
					vars["$eip"] = uint64(ip)
					vars["$esp"] = uint64(loc + 4)
					offset = loc - start
					trust, rule = walker.TrustCFIScan, walker.RuleStackWinScan
				}
			}
		}
		if recoverEBP {
			// When frames were skipped or the recovered EBP does not point
			// into the stack, take the outermost saved word that does.
			skipped := trust != walker.TrustCFI && newEBP <= raSearchStart+offset
			if _, readable := w.ReadUint32(uint64(newEBP)); skipped || !readable {
				if v, ok := savedEBP(w, esp+calleeParams, win.SavedRegisterSize+offset); ok {
					vars["$ebp"] = uint64(v)
				}
			}
		}
	}

	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.X86EIP, vars["$eip"])
	ctx.SetIndex(minidump.X86ESP, vars["$esp"])
	ctx.SetIndex(minidump.X86EBP, vars["$ebp"])
	for _, r := range []struct {
		name string
		idx  int
	}{{"$ebx", minidump.X86EBX}, {"$esi", minidump.X86ESI}, {"$edi", minidump.X86EDI}} {
		if assigned[r.name] {
			ctx.SetIndex(r.idx, vars[r.name])
		}
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: trust, Rule: rule})
}

// calleeParamsOf is .cbCalleeParams for the frame being unwound, the last
// of frames (see byWindowsFrameInfo).
func calleeParamsOf(frames []*walker.Frame, breakpad bool) uint32 {
	var calleeParams uint32
	if breakpad {
		for i := len(frames) - 2; i >= 0; i-- {
			if ci := infoOf(frames[i]); ci != nil && ci.paramSizeValid {
				calleeParams = ci.paramSize
			}
		}
	} else if len(frames) >= 2 {
		calleeParams = calleeParamSize(frames[len(frames)-2])
	}
	return calleeParams
}

// winProgram is the STACK WIN program that unwinds last: the record's own,
// or Breakpad's for a frame that does or does not allocate a base pointer;
// recoverEBP says whether the caller's EBP comes from it.
func winProgram(last *walker.Frame, win *symfile.StackWin) (program string, recoverEBP bool) {
	switch {
	case win.HasProgramString:
		return win.ProgramString, true
	case win.AllocatesBasePointer:
		return "$eip .raSearchStart ^ = " +
			"$ebp $esp .cbCalleeParams + .cbSavedRegs + 8 - ^ = " +
			"$esp .raSearchStart 4 + =", true
	}
	program = "$eip .raSearchStart ^ = $esp .raSearchStart 4 + ="
	if valid(last, minidump.X86EBX) {
		program += " $ebx $ebx ="
	}
	return program, false
}

// savedEBP searches the searchBytes above end, from the outermost word
// down, for a saved EBP: a word that points at readable memory.
func savedEBP(w *walker.Walker, end, searchBytes uint32) (uint32, bool) {
	for n, l := 0, end+searchBytes; l >= end && n <= int(searchBytes/4)+1; n, l = n+1, l-4 {
		v, ok := w.ReadUint32(uint64(l))
		if !ok {
			break
		}
		if _, ok := w.ReadUint32(uint64(v)); ok {
			return v, true
		}
		if l < 4 {
			break
		}
	}
	return 0, false
}

// evaluate runs a STACK WIN program one assignment at a time, as Breakpad's
// evaluator does, and reports which variables were assigned before any
// failure, and whether the whole program ran. It splits the program as
// the evaluator does (symfile.ProgramTokens): MSVC glues "=" to the next
// token ("=$eip"), and Breakpad marks $eip assigned there too.
func evaluate(program string, vars map[string]uint64, mem symfile.Memory) (map[string]bool, bool) {
	assigned := map[string]bool{}
	var stmt []string
	for tok := range symfile.ProgramTokens(program) {
		stmt = append(stmt, tok)
		if tok != "=" {
			continue
		}
		if len(stmt) < 3 {
			return assigned, false
		}
		if err := symfile.Evaluate(strings.Join(stmt, " "), vars, mem, 4); err != nil {
			return assigned, false
		}
		assigned[stmt[0]] = true
		stmt = stmt[:0]
	}
	return assigned, len(stmt) == 0
}

func byCFI(w *walker.Walker, last *walker.Frame, rules symfile.CFIRules) *walker.Frame {
	ctx, ok := w.CallerByCFI(rules, last, cfiRegs)
	if !ok {
		return nil
	}
	for _, i := range []int{minidump.X86EIP, minidump.X86ESP, minidump.X86EBP} {
		if _, ok := ctx.Index(i); !ok {
			return nil
		}
	}
	return w.NewFrame(walker.Frame{Context: ctx, Trust: walker.TrustCFI})
}

// byEBP follows the frame pointer, or scans when it points nowhere or the
// function keeps none (frameless: its ebp is still a caller's).
func byEBP(w *walker.Walker, last *walker.Frame, scanAllowed, breakpad, frameless bool) *walker.Frame {
	esp := reg(last, minidump.X86ESP)
	ebp := reg(last, minidump.X86EBP)
	var callerEIP, callerESP, callerEBP uint32
	trust, rule := walker.TrustFramePointer, walker.RuleFrameRecord
	ip, ok1 := w.ReadUint32(uint64(ebp + 4))
	savedEBP, ok2 := w.ReadUint32(uint64(ebp))
	inData := ok1 && ok2 && w.ReturnsIntoData(uint64(ip))
	if inData {
		// walker.CallerRules refuses such a pc from any rule; here the
		// scan is the record's own fallback. As for a STACK WIN $eip in
		// no module (Breakpad's rule), the slot read was the wrong one:
		// the scan starts above it, where the junk frame it made would
		// have scanned from (x86-abort without symbols: from esp the
		// scan takes stale words below the record and a stale record
		// of pc 0 ends the walk, 4 of gdb's 10 frames; from above it 6,
		// as before, with 24 foreign frames instead of 29).
		w.Reject(walker.RuleFrameRecord, "record at ebp %#x: return address %#x is no code: in no module, and the dump's memory map lists it in no executable mapping", ebp, ip)
		ok1 = false
	}
	if frameless && ok1 && ok2 && scanAllowed {
		// The record is a caller's: take the scan's word instead when
		// its call site calls this function directly; otherwise the
		// record is still the better guess than an unconfirmed word.
		if _, sip, _, ok := scanCaller(w, last, esp, retaddr.ScanWords(w, last), breakpad); !ok || retaddr.Judge(w, last, uint64(sip)) != retaddr.Confirmed {
			frameless = false
		}
	}
	if ok1 && ok2 && !frameless {
		callerEIP, callerEBP, callerESP = ip, savedEBP, ebp+8
	} else {
		switch {
		case inData:
		case frameless:
			w.Reject(walker.RuleFrameRecord, "the code shows %s keeps no frame pointer: the record at ebp %#x is a caller's", last.Function, ebp)
		default:
			w.Reject(walker.RuleFrameRecord, "no frame record at ebp %#x in the stack", ebp)
		}
		if !scanAllowed {
			return nil
		}
		start := esp
		if inData && ebp+8 > esp {
			start = ebp + 8
		}
		loc, ip, scanRule, ok := scanCaller(w, last, start, retaddr.ScanWords(w, last), breakpad)
		if !ok {
			if w.Tracing() { // boxing the arguments allocates
				w.Reject(walker.RuleScan, "no candidate from %#x", start)
			}
			return nil
		}
		callerEIP, callerESP = ip, loc+4
		if w.Tracing() { // boxing the arguments allocates
			w.Found("word at %#x = %#x", loc, ip)
		}
		// If the function pushed EBP right below its return address, the
		// saved value is the caller's EBP; otherwise keep the callee's.
		chain := callerESP - 8
		v, ok := w.ReadUint32(uint64(chain))
		if !ok || v <= chain || v-chain > maxFrameGap {
			v = ebp
		}
		callerEBP = v
		trust, rule = walker.TrustScan, scanRule
	}
	ctx := minidump.NewContext(last.Context.Arch)
	ctx.SetIndex(minidump.X86EIP, uint64(callerEIP))
	ctx.SetIndex(minidump.X86ESP, uint64(callerESP))
	ctx.SetIndex(minidump.X86EBP, uint64(callerEBP))
	return w.NewFrame(walker.Frame{Context: ctx, Trust: trust, Rule: rule})
}
