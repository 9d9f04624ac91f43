package retaddr

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// CallKind is what the instructions just before a return address show.
type CallKind uint8

// Call kinds.
const (
	// CallUnknown: the dump does not hold the bytes (or not enough of them
	// to rule every call encoding out).
	CallUnknown CallKind = iota
	// NotCall: the bytes are there and no call instruction ends at the
	// address, so nothing returns there: a stale word, not a return address.
	NotCall
	// CallDirect: a call with an immediate target (CallSite.Target).
	CallDirect
	// CallIndirect: a call through a register or memory.
	CallIndirect
)

// isCall reports whether a call instruction ends at the address.
func (k CallKind) isCall() bool { return k == CallDirect || k == CallIndirect }

// CallSite is the call instruction that ends at a return address.
type CallSite struct {
	Kind   CallKind
	Target uint64 // CallDirect: the called address (ARM: Thumb bit clear)
}

// ClassifyCallSite decodes the call instruction, if any, that ends at the
// return address ra in the dump's code (walker.Env.Code). ra is the value
// saved on the stack: on ARM with the Thumb bit of the caller's code, on
// arm64 with pointer-authentication bits already cleared.
func ClassifyCallSite(w *walker.Walker, arch minidump.Arch, ra uint64) CallSite {
	return isaOf(arch).desc().callSite(w, ra)
}

// callSite is ClassifyCallSite in instruction set s.
func (set *instrSet) callSite(w *walker.Walker, ra uint64) CallSite {
	if set.maxCallBytes == 0 || !w.HasCode() {
		return CallSite{}
	}
	end := ra &^ set.thumbBit & set.mask()
	var buf [maxCallBytes]byte
	return set.isa.decode(readBefore(w, end, buf[:set.maxCallBytes]), ra)
}

// readBefore returns the longest run of dump memory (at most len(buf)
// bytes) that ends at addr, read from Env.Code into the end of buf; a run
// may span adjacent regions.
func readBefore(w *walker.Walker, addr uint64, buf []byte) []byte {
	n := len(buf)
	if addr < uint64(n) {
		n = int(addr)
		buf = buf[:n]
	}
	if n == 0 || w.ReadCode(addr-uint64(n), buf) {
		return buf
	}
	k := 0
	for k < n && w.ReadCode(addr-uint64(k)-1, buf[n-k-1:n-k]) {
		k++
	}
	return buf[n-k:]
}

// decodeARMState picks the decoder by the return address's Thumb bit.
func decodeARMState(b []byte, ra uint64) CallSite {
	if ra&1 == 1 {
		return decodeThumb(b, ra&^1&0xffffffff)
	}
	return decodeARM(b, ra&0xffffffff)
}

func signExtend(v uint64, bits uint) uint64 {
	shift := 64 - bits
	return uint64(int64(v<<shift) >> shift)
}

// decodeThumb looks for a Thumb call ending at addr (Thumb bit clear):
// BL (T1) or BLX immediate (T2) in the 32 bits before it, BLX register
// (16-bit) in the 16 bits before it (ARM ARM A8.8.25, A8.8.26).
func decodeThumb(b []byte, addr uint64) CallSite {
	n := len(b)
	if n >= 4 {
		hw1 := uint64(binary.LittleEndian.Uint16(b[n-4:]))
		hw2 := uint64(binary.LittleEndian.Uint16(b[n-2:]))
		// hw1: 11110 S imm10; hw2: 11 J1 X J2 imm11 (X=1 BL, X=0 BLX with imm11's bit 0 clear).
		if hw1&0xf800 == 0xf000 && hw2&0xc000 == 0xc000 && (hw2&0x1000 != 0 || hw2&1 == 0) {
			s := hw1 >> 10 & 1
			j1, j2 := hw2>>13&1, hw2>>11&1
			i1, i2 := ^(j1^s)&1, ^(j2^s)&1
			imm := s<<24 | i1<<23 | i2<<22 | (hw1&0x3ff)<<12 | (hw2&0x7ff)<<1
			pc := addr           // the instruction's address + 4
			if hw2&0x1000 == 0 { // BLX: ARM target, from Align(PC, 4)
				pc &^= 3
			}
			return CallSite{Kind: CallDirect, Target: (pc + signExtend(imm, 25)) & 0xffffffff &^ 1}
		}
	}
	if n >= 2 {
		if hw := binary.LittleEndian.Uint16(b[n-2:]); hw&0xff87 == 0x4780 { // BLX Rm: 010001111 Rm 000
			return CallSite{Kind: CallIndirect}
		}
	}
	if n < 4 {
		return CallSite{}
	}
	return CallSite{Kind: NotCall}
}

// decodeARM looks for an ARM-state call ending at addr: BL, BLX immediate,
// BLX register (ARM ARM A8.8.25, A8.8.26), or `mov lr, pc` followed by a
// branch to a register or a load into pc (pre-ARMv5 code).
func decodeARM(b []byte, addr uint64) CallSite {
	n := len(b)
	if n < 4 {
		return CallSite{}
	}
	if addr&3 != 0 {
		return CallSite{Kind: NotCall} // ARM instructions are word-aligned
	}
	w := uint64(binary.LittleEndian.Uint32(b[n-4:]))
	cond := w >> 28
	pc := addr + 4 // the instruction's address + 8
	switch {
	case cond != 0xf && w&0x0f000000 == 0x0b000000: // BL<c> imm24
		return CallSite{Kind: CallDirect, Target: (pc + signExtend((w&0xffffff)<<2, 26)) & 0xffffffff}
	case cond == 0xf && w&0x0e000000 == 0x0a000000: // BLX imm24:H, Thumb target
		return CallSite{Kind: CallDirect, Target: (pc + signExtend((w&0xffffff)<<2|(w>>24&1)<<1, 26)) & 0xffffffff}
	case cond != 0xf && w&0x0ffffff0 == 0x012fff30: // BLX<c> Rm
		return CallSite{Kind: CallIndirect}
	}
	branchToReg := cond != 0xf && (w&0x0ffffff0 == 0x012fff10 || // BX Rm
		w&0x0ffffff0 == 0x01a0f000 || // MOV pc, Rm
		w&0x0c50f000 == 0x0410f000) // LDR pc, [...] (word load, Rt = 15)
	if !branchToReg {
		return CallSite{Kind: NotCall}
	}
	if n < 8 {
		return CallSite{} // a `mov lr, pc` may precede it
	}
	if prev := binary.LittleEndian.Uint32(b[n-8:]); prev>>28 != 0xf && prev&0x0fffffff == 0x01a0e00f { // MOV lr, pc
		return CallSite{Kind: CallIndirect}
	}
	return CallSite{Kind: NotCall}
}

// decodeARM64 looks for BL, BLR or BLRAA/BLRAB/BLRAAZ/BLRABZ ending at ra
// (ARM ARM C6.2).
func decodeARM64(b []byte, ra uint64) CallSite {
	n := len(b)
	if n < 4 {
		return CallSite{}
	}
	if ra&3 != 0 {
		return CallSite{Kind: NotCall}
	}
	w := uint64(binary.LittleEndian.Uint32(b[n-4:]))
	switch {
	case w&0xfc000000 == 0x94000000: // BL imm26
		return CallSite{Kind: CallDirect, Target: ra - 4 + signExtend((w&0x3ffffff)<<2, 28)}
	case w&0xfffffc1f == 0xd63f0000, // BLR Xn
		w&0xfffff81f == 0xd63f081f, // BLRAAZ / BLRABZ Xn (M in bit 10)
		w&0xfffff800 == 0xd73f0800: // BLRAA / BLRAB Xn, Xm|SP
		return CallSite{Kind: CallIndirect}
	}
	return CallSite{Kind: NotCall}
}

// decodeX86 looks for a call ending at ra (Intel SDM vol. 2, CALL): E8
// rel32 (direct), FF /2 and FF /3 in every ModRM form, 9A ptr16:32 (32-bit
// only), and 66 E8 rel16 (32-bit only; taken as a call without a target).
// Prefixes and REX come before the opcode and do not move the end. It is
// NotCall only when all 7 bytes that could hold a call's opcode are there
// and none ends at ra.
func decodeX86(b []byte, ra uint64, long bool) CallSite {
	n := len(b)
	mask := ^uint64(0)
	if !long {
		mask = 0xffffffff
	}
	if n >= 5 && b[n-5] == 0xe8 {
		rel := uint64(int64(int32(binary.LittleEndian.Uint32(b[n-4:]))))
		return CallSite{Kind: CallDirect, Target: (ra + rel) & mask}
	}
	if !long && (n >= 4 && b[n-4] == 0x66 && b[n-3] == 0xe8 || n >= 7 && b[n-7] == 0x9a || n >= 6 && b[n-6] == 0x66 && b[n-5] == 0x9a) {
		return CallSite{Kind: CallIndirect}
	}
	for s := n - 2; s >= 0 && s >= n-7; s-- {
		if b[s] != 0xff {
			continue
		}
		modrm := b[s+1]
		if r := modrm >> 3 & 7; r != 2 && r != 3 {
			continue
		}
		if s+modrmLength32(b[s+1:]) == n {
			return CallSite{Kind: CallIndirect}
		}
		// 16-bit addressing (an 0x67 prefix in 32-bit code); unknown
		// prefix bytes count as one.
		if !long && s+modrmLength16(modrm) == n && prefix67Possible(b[:s]) {
			return CallSite{Kind: CallIndirect}
		}
	}
	if n < 7 {
		return CallSite{}
	}
	return CallSite{Kind: NotCall}
}

// prefix67Possible reports whether an address-size prefix may sit among
// the (up to 4) prefix bytes before an opcode: one is there, or the bytes
// are not all known.
func prefix67Possible(before []byte) bool {
	if len(before) < 4 {
		return true
	}
	for _, c := range before[len(before)-4:] {
		if c == 0x67 {
			return true
		}
	}
	return false
}

// modrmLength32 is the length of opcode + ModRM + SIB + displacement with
// 32- or 64-bit addressing; m starts at the ModRM byte. A SIB byte that is
// not there counts as base != 5.
func modrmLength32(m []byte) int {
	mod, rm := m[0]>>6, m[0]&7
	switch mod {
	case 3:
		return 2
	case 0:
		switch rm {
		case 5:
			return 6 // disp32 (RIP-relative in 64-bit mode)
		case 4:
			if len(m) > 1 && m[1]&7 == 5 {
				return 7 // SIB with no base: disp32
			}
			return 3
		}
		return 2
	case 1:
		if rm == 4 {
			return 4
		}
		return 3
	}
	if rm == 4 {
		return 7
	}
	return 6
}

// modrmLength16 is the length of opcode + ModRM + displacement with 16-bit addressing.
func modrmLength16(modrm byte) int {
	mod, rm := modrm>>6, modrm&7
	switch {
	case mod == 3:
		return 2
	case mod == 0 && rm == 6, mod == 2:
		return 4
	case mod == 1:
		return 3
	}
	return 2
}

// Verdict is what a call site says about a candidate return address of a
// given callee frame.
type Verdict uint8

// Verdicts.
const (
	// Undecided: no bytes, an indirect call, a direct call to an address
	// that starts no known function (a PLT stub, veneer or thunk), or a
	// callee whose function is unknown.
	Undecided Verdict = iota
	// NoCall: no call instruction ends at the address.
	NoCall
	// Confirmed: a direct call to the start of the callee's function.
	Confirmed
	// Contradicted: a direct call to the start of another known function
	// (also what a tail call leaves behind).
	Contradicted
)

func (v Verdict) String() string {
	switch v {
	case NoCall:
		return "no call"
	case Confirmed:
		return "confirmed"
	case Contradicted:
		return "contradicted"
	}
	return "undecided"
}

// Judge compares the call site before ra with callee, the frame the
// candidate would return from. ra as for ClassifyCallSite.
func Judge(w *walker.Walker, callee *walker.Frame, ra uint64) Verdict {
	arch := callee.Context.Arch
	cs := ClassifyCallSite(w, arch, ra)
	switch {
	case cs.Kind == NotCall:
		return NoCall
	case cs.Kind != CallDirect || callee.Function == "":
		return Undecided
	}
	// On ARM the decoded target has the Thumb bit clear, and a Thumb
	// PUBLIC symbol's address has it set: compare without it, and look the
	// target up as both instruction sets would name it.
	thumbBit := isaOf(arch).desc().thumbBit
	target := cs.Target &^ thumbBit
	if callee.FunctionBase&^thumbBit == target {
		return Confirmed
	}
	if startsFunction(w, target, thumbBit) || thumbBit != 0 && startsFunction(w, target|thumbBit, thumbBit) {
		return Contradicted
	}
	return Undecided
}

// startsFunction reports whether a symbol names the function at addr and
// that function starts at addr (bits in ignore cleared from both).
func startsFunction(w *walker.Walker, addr, ignore uint64) bool {
	f := &walker.Frame{Instruction: addr}
	w.Symbolize(f, false)
	return f.Function != "" && f.FunctionBase&^ignore == addr&^ignore
}

// CallSiteContradicts reports whether the dump's code (walker.Env.Code)
// shows that ra cannot be callee's return address: no call instruction
// ends at ra, or the one that does is a direct call to the start of a known
// function other than callee's. It is false when the dump holds no code
// there, for indirect calls, for direct calls to the callee's function or
// to an address that starts no known function (PLT stubs, veneers), and
// when callee's function is unknown. Extended (non-Breakpad) modes only.
//
// ra is the saved return address as the walker would use it: on ARM with
// the caller's Thumb bit, on arm64 with pointer-authentication bits
// cleared. callee must be symbolized (Function, FunctionBase) and have its
// Context.Arch set; a's WordSize must match it.
//
// A tail call leaves a real return address after a direct call to another
// function (the caller called f, f tail-called callee): the frame walkers
// accept that for scanned candidates when nothing better is in the window;
// a caller of this function that rejects a frame record on a contradiction
// gives up that case (ReturnRejected rejects one only when a confirmed
// return address lies below the record).
func CallSiteContradicts(w *walker.Walker, callee *walker.Frame, ra uint64, a Arch) bool {
	if a.WordSize == 4 {
		ra &= 0xffffffff
	}
	v := Judge(w, callee, ra)
	return v == NoCall || v == Contradicted
}
