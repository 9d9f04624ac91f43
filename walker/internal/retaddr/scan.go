package retaddr

import (
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// Arch describes an architecture's registers to the checks: its stack
// word and call offset (those of its instruction set), the context indexes
// of its PC and SP, and its CFI register map.
type Arch struct {
	WordSize   int    // bytes in a stack word: 4 or 8
	CallOffset uint64 // how far before a return address the call lies
	PC, SP     int    // minidump.Context indexes
	CFIRegs    []walker.CFIRegister
}

// Scan is the one stack scan of the walkers' own (non-Breakpad) mode: it
// looks at the words from start to start+words words (inclusive) for the
// return address of callee's caller. A word is a candidate when its value,
// with the bits outside mask cleared, less one, passes Breakpad's test
// (Candidate.InFunction); the candidates must pass checks (decide), and
// when the dump holds code they are chosen by their call sites (pick). A
// window without a candidate is searched on for a confirmed one
// (confirmedBeyond); on x86 and amd64 a confirmed choice may yield to an
// earlier candidate whose own caller follows it (chainedCandidate); with
// CheckProof an unproven choice may yield to a later word returning into
// the same function (sameFunctionAbove). mask
// has no bits above a word; on arm64 it also clears pointer-authentication
// signatures, which Apple's arm64e code puts on every return address it
// saves. Without code and checks it is exactly Breakpad's scan.
func Scan(w *walker.Walker, callee *walker.Frame, start uint64, words int, mask uint64, a Arch, checks Checks) (loc, ra uint64, ok bool) {
	set := isaOf(callee.Context.Arch).desc()
	mask &= set.mask()
	start &= mask
	p := pick{useCode: w.HasCode()}
	size := uint64(set.wordSize)
	for i := 0; i <= words; i++ {
		l := start + uint64(i)*size
		if l < start || l > mask {
			break
		}
		v, ok := w.ReadWord(l, set.wordSize)
		if !ok {
			break
		}
		if !inFunction(w, callee, mask, v) { // also: inside a loaded module
			continue
		}
		if p.offer(NewCandidate(w, callee, a, mask, l, v), checks) {
			break
		}
	}
	if !p.ok {
		return confirmedBeyond(w, callee, start, words, mask, a, checks)
	}
	if set.chainScan && p.useCode && Judge(w, callee, p.ra) == Confirmed {
		return chainedCandidate(w, callee, start, p.loc, p.ra, set.wordSize)
	}
	if checks&CheckProof != 0 {
		if l, ra, ok := sameFunctionAbove(w, callee, p.c, start+uint64(words)*size, checks); ok {
			return l, ra, true
		}
		if l, ra, ok := staleUnderCaller(w, callee, p.c, p.refused, checks); ok {
			return l, ra, true
		}
	}
	return p.loc, p.ra, true
}

// staleUnderCaller looks, on an instruction set whose functions push
// their return address at the top of their frame (pushesLRAtTop: ARM),
// at the scan's choice c when only its own CFI proves it: the CFI step
// gives its caller F (pc P, stack pointer S) and reads P from a word
// below S. A return address into F is stored by F's callee under F's
// frame, and the live one is the highest there: the callee pushes it at
// entry, with nothing between it and S but what that push stores (a
// variadic function's argument registers), while the words below are its
// locals, which keep stale return addresses of the calls F made before.
// So when a higher word under S returns into F at another call site, P
// is such a stale word, and c, whose CFI reads it as its own return
// address, lay in the frame F's earlier callee left: its CFI step
// follows that call's chain back onto F, proving nothing of the live
// one. The higher word is then taken when it passes checks (proven, if
// refused says a word of the window was refused): its function is F,
// whose frame starts at S.
func staleUnderCaller(w *walker.Walker, callee *walker.Frame, c *Candidate, refused bool, checks Checks) (loc, ra uint64, ok bool) {
	if c == nil || !c.set.pushesLRAtTop || c.provenBeyondCFI() {
		return 0, 0, false
	}
	caller, ok := c.cfiStep()
	if !ok {
		return 0, 0, false
	}
	p, pOK := caller.IP()
	s, sOK := caller.SP()
	size := uint64(c.set.wordSize)
	if !pOK || !sOK || p < walker.MinCallerIP || s <= c.Loc+size || s-c.Loc > beyondBytes {
		return 0, 0, false
	}
	at := (p&^c.set.thumbBit - c.set.callOffset) & c.mask
	if !FunctionKnown(w, at) {
		return 0, 0, false
	}
	read := uint64(0) // a word under S holding P, below the words looked at next
	for l := c.Loc + size; l < s; l += size {
		v, ok := w.ReadWord(l, c.set.wordSize)
		if !ok {
			return 0, 0, false
		}
		switch {
		case v&c.mask == p&c.mask:
			read = l
		case read != 0 && inFunction(w, callee, c.mask, v):
			d := NewCandidate(w, callee, c.a, c.mask, l, v)
			if !SameFunction(w, at, (d.RA&^c.set.thumbBit-c.set.callOffset)&c.mask) {
				continue
			}
			if ok, _ := decide(d, checks); !ok || refused && !d.Proven() {
				continue
			}
			if w.Tracing() {
				w.Reject(walker.RuleScanChecked, "word at %#x = %#x: its CFI reads the return into its caller at %#x = %#x, below the word at %#x = %#x returning into the same function: a stale return of an earlier call", c.Loc, c.RA, read, p, l, d.RA)
			}
			return l, d.RA, true
		}
	}
	return 0, 0, false
}

// sameFunctionAbove looks, when the scan's choice c is not Proven, for a
// later word of the window, up to end, that returns into the same
// function F (not the callee's) and passes checks. A return address into
// F is stored by F's callee, below F's frame; one found inside F's own
// frame would need F to have recursed, and the callee is not F. Of two
// such words the lower then lies in the callee's frame, a stale one left
// by an earlier call F made (the usual source of stale return addresses),
// and the higher is the callee's return address.
func sameFunctionAbove(w *walker.Walker, callee *walker.Frame, c *Candidate, end uint64, checks Checks) (loc, ra uint64, ok bool) {
	if c == nil || c.Proven() {
		return 0, 0, false
	}
	size := uint64(c.set.wordSize)
	at := (c.RA&^c.set.thumbBit - c.set.callOffset) & c.mask
	if SameFunction(w, at, callee.Instruction) || !FunctionKnown(w, at) {
		return 0, 0, false
	}
	for l := c.Loc + size; l <= end && l > c.Loc; l += size {
		v, ok := w.ReadWord(l, c.set.wordSize)
		if !ok {
			break
		}
		if !inFunction(w, callee, c.mask, v) {
			continue
		}
		d := NewCandidate(w, callee, c.a, c.mask, l, v)
		if !SameFunction(w, at, (d.RA&^c.set.thumbBit-c.set.callOffset)&c.mask) {
			continue
		}
		if ok, _ := decide(d, checks); !ok {
			continue
		}
		if w.Tracing() {
			w.Reject(walker.RuleScanChecked, "word at %#x = %#x: unproven, and the word at %#x returns into the same function: this one lies in the callee's frame", c.Loc, c.RA, l)
		}
		return l, d.RA, true
	}
	return 0, 0, false
}

// pick chooses among the candidates of a scan window, offered in order.
// Without code it takes the first one that passes the checks, as the scans
// always did. With code (useCode) it drops candidates no call instruction
// precedes, takes the first whose call site is a direct call to the
// callee's function, and otherwise the first remaining one: a real return
// address may follow a direct call to another function when that function
// tail-called the callee, or an indirect call, or code the dump lacks.
type pick struct {
	useCode bool
	loc, ra uint64
	ok      bool
	refused bool       // a candidate of the window was refused
	c       *Candidate // the chosen candidate
}

// offer considers the candidate c; its checks run only when their verdict
// could change the choice. It reports whether the choice is final.
func (p *pick) offer(c *Candidate, checks Checks) (done bool) {
	w := c.w
	if !p.useCode {
		if ok, why := p.decide(c, checks); !ok {
			if w.Tracing() {
				w.Reject(walker.RuleScanChecked, "word at %#x = %#x: %s", c.Loc, c.RA, why)
			}
			return false
		}
		p.loc, p.ra, p.ok, p.c = c.Loc, c.RA, true, c
		return true
	}
	v := c.Call()
	switch {
	case v == NoCall:
		p.refused = true
		if w.Tracing() {
			w.Reject(walker.RuleScanAfterCall, "word at %#x = %#x: no call instruction precedes it", c.Loc, c.RA)
		}
		return false
	case p.ok && v != Confirmed:
		if w.Tracing() {
			w.Reject(walker.RuleScanCallSite, "word at %#x = %#x: call site %s, the earlier candidate at %#x stays", c.Loc, c.RA, v, p.loc)
		}
		return false
	}
	if ok, why := p.decide(c, checks); !ok {
		if w.Tracing() {
			w.Reject(walker.RuleScanChecked, "word at %#x = %#x: %s", c.Loc, c.RA, why)
		}
		return false
	}
	if p.ok && w.Tracing() {
		w.Reject(walker.RuleScanAfterCall, "word at %#x = %#x: call site not confirmed, a later confirmed one replaces it", p.loc, p.ra)
	}
	p.loc, p.ra, p.c = c.Loc, c.RA, c
	p.ok = true
	// Nothing can confirm a callee whose function is unknown: the first
	// candidate after a call is final.
	return v == Confirmed || c.callee.Function == ""
}

// decide is the package's decide, and CheckProof's test: an unproven
// candidate after a refused one is refused. Every refusal is remembered.
func (p *pick) decide(c *Candidate, checks Checks) (bool, string) {
	ok, why := decide(c, checks)
	if ok && checks&CheckProof != 0 && p.refused && !c.Proven() {
		ok, why = false, unprovenAfterRefused
	}
	if !ok {
		p.refused = true
	}
	return ok, why
}

// unprovenAfterRefused is the trace note of CheckProof's refusal.
const unprovenAfterRefused = "unproven (no call instruction before it in the code at hand, no CFI of its own) after a refused word of the window"

// beyondBytes bounds confirmedBeyond's search above its start: 16 KiB
// holds a frame with a PATH_MAX (4 KiB) or BUFSIZ (8 KiB) buffer and the
// frames of the callee's callers below it whose stack pointer a scan
// cannot restore (arm64 saves the link register at the bottom of a frame).
const beyondBytes = 16 << 10

// confirmedBeyond continues a scan of words words from start that found
// no candidate, up to beyondBytes above start, taking only a word whose
// call site is a direct call to callee's function (Judge: Confirmed) and
// that passes checks. A function with a large frame (alloca,
// variable-length arrays, big local buffers: 1 KiB in testdata's *-large
// cases, 260 words on arm and x86; glibc's __libc_start_call_main keeps a
// jmp_buf) keeps its return address beyond the window of a scanned frame;
// a call to the callee's own function is the evidence that lets the
// search go on. Only with the dump's code and callee's function known.
func confirmedBeyond(w *walker.Walker, callee *walker.Frame, start uint64, words int, mask uint64, a Arch, checks Checks) (loc, ra uint64, ok bool) {
	size := isaOf(callee.Context.Arch).desc().wordSize
	limit := beyondBytes / size
	if !w.HasCode() || callee.Function == "" || words >= limit {
		return 0, 0, false
	}
	for i := words + 1; i <= limit; i++ {
		l := start + uint64(i*size)
		if l < start || l > mask {
			break
		}
		v, ok := w.ReadWord(l, size)
		if !ok {
			break
		}
		if !inFunction(w, callee, mask, v) {
			continue
		}
		c := NewCandidate(w, callee, a, mask, l, v)
		if c.Call() != Confirmed {
			continue
		}
		if ok, _ := decide(c, checks); !ok {
			continue
		}
		w.Found("word at %#x = %#x, past the %d-word window: a direct call to %s precedes it", l, c.RA, words, callee.Function)
		return l, c.RA, true
	}
	return 0, 0, false
}

// wordBelow reports whether a stack word from start up to end (exclusive;
// at most ScanWords(w, callee) words) that could be a return address (value
// − 1 seems a valid instruction, mask applied) satisfies match and passes
// the symbol and CFI checks.
func wordBelow(w *walker.Walker, callee *walker.Frame, start, end, mask uint64, a Arch, match func(c *Candidate) bool) bool {
	if a.WordSize == 4 {
		mask &= 0xffffffff
	}
	size := uint64(a.WordSize)
	if limit := start + uint64(ScanWords(w, callee))*size; limit > start && limit < end {
		end = limit
	}
	for l := start; l < end && l >= start; l += size {
		v, ok := w.ReadWord(l, a.WordSize)
		if !ok {
			break
		}
		if !inFunction(w, callee, mask, v) {
			continue
		}
		c := NewCandidate(w, callee, a, mask, l, v)
		if !match(c) {
			continue
		}
		if ok, _ := decide(c, CheckSymbols|CheckCFI); ok {
			return true
		}
	}
	return false
}
