package retaddr

import "github.com/minidump-stackwalk/minidump-stackwalk/minidump"

// isa names an instruction set whose return addresses the package checks.
type isa uint8

const (
	isaNone  isa = iota
	isaARM       // 32-bit ARM; the return address's bit 0 selects Thumb
	isaARM64     // A64
	isaX86       // IA-32
	isaAMD64     // x86-64
)

// instrSet is the one description of an instruction set every check
// reads: what a return address looks like in it and how the call before
// one is decoded.
type instrSet struct {
	isa      isa
	wordSize int // bytes in a stack word and a return address
	// callOffset is how far before a return address a lookup goes to land
	// in the call instruction: 1 on x86 and amd64, 2 on ARM (after
	// clearing the Thumb bit), 4 on arm64.
	callOffset uint64
	// thumbBit is the return-address bit that selects the caller's
	// instruction set (ARM: 1), cleared before a lookup.
	thumbBit uint64
	// maxCallBytes is how many bytes before a return address decode looks
	// at: ARM's `mov lr, pc` + branch idiom is 8 bytes; an x86 call ends
	// at most 7 bytes after its opcode (FF, ModRM, SIB, disp32; 9A
	// ptr16:32), and up to 4 more bytes may hold an address-size prefix.
	maxCallBytes int
	// minCallBytes is the length of the shortest call instruction: x86's
	// and amd64's `call *%reg` (FF /2 with a register ModRM) and Thumb's
	// BLX Rm are 2 bytes; ARM-state and A64 calls 4.
	minCallBytes uint64
	// chainScan: a scan chosen by call site yields to an earlier
	// candidate whose own caller follows it (chainedCandidate). The x86
	// family's scans, which take Breakpad's candidates without the
	// symbol and CFI checks of the ARM family's, rely on it.
	chainScan bool
	// wideFromCFI: outside Breakpad's mode the scan from a frame
	// recovered by CFI looks as far as the one from the context frame
	// (ScanWords). The ARM family's scans check every candidate's
	// symbols and CFI, so the wider window costs no stale words.
	wideFromCFI bool
	// spAlign is the alignment of every stack pointer a caller may have:
	// AAPCS64 requires a 16-byte-aligned sp at calls and the hardware
	// checks it (SCTLR_EL1.SA0), so a return address saved at the bottom
	// of a frame's 16-byte slot (`str x30, [sp, #-16]!`) has its caller's
	// sp 16 bytes above it, not 8. 0: the word above the return address.
	spAlign uint64
	// pushesLRAtTop: a function that calls pushes its return address at
	// the top of its frame (AAPCS code: `push {..., lr}` before any other
	// store, a variadic function's argument registers above it), so the
	// return address into a function F lies just under F's frame, above
	// any word its callee stores later (staleUnderCaller). Not arm64,
	// whose frame record (x29, x30) lies at the bottom of a frame.
	pushesLRAtTop bool
}

var isas = [...]instrSet{
	isaNone:  {isa: isaNone, wordSize: 8, callOffset: 1},
	isaARM:   {isa: isaARM, wordSize: 4, callOffset: 2, thumbBit: 1, maxCallBytes: 8, minCallBytes: 2, wideFromCFI: true, pushesLRAtTop: true},
	isaARM64: {isa: isaARM64, wordSize: 8, callOffset: 4, maxCallBytes: 4, minCallBytes: 4, wideFromCFI: true, spAlign: 16},
	isaX86:   {isa: isaX86, wordSize: 4, callOffset: 1, maxCallBytes: 11, minCallBytes: 2, chainScan: true},
	isaAMD64: {isa: isaAMD64, wordSize: 8, callOffset: 1, maxCallBytes: 11, minCallBytes: 2, chainScan: true},
}

// maxCallBytes bounds every instrSet's maxCallBytes.
const maxCallBytes = 11

// decode classifies the bytes b, which end at the return address ra; the
// zero CallSite for an instruction set without a decoder. (A switch, not
// a function in instrSet: b then stays on the caller's stack.)
func (i isa) decode(b []byte, ra uint64) CallSite {
	switch i {
	case isaARM:
		return decodeARMState(b, ra)
	case isaARM64:
		return decodeARM64(b, ra)
	case isaX86:
		return decodeX86(b, ra, false)
	case isaAMD64:
		return decodeX86(b, ra, true)
	}
	return CallSite{}
}

// desc returns i's description (isaNone's for an unknown value).
func (i isa) desc() *instrSet {
	if int(i) < len(isas) {
		return &isas[i]
	}
	return &isas[isaNone]
}

// callerSP is the lowest stack pointer the caller of a frame whose
// return address lies at loc can have: the word above it, rounded up to
// the stack's alignment.
func (s *instrSet) callerSP(loc uint64) uint64 {
	sp := loc + uint64(s.wordSize)
	if s.spAlign > 1 {
		sp = (sp + s.spAlign - 1) &^ (s.spAlign - 1)
	}
	return sp
}

// CallerSP is callerSP for arch: the stack pointer a scan gives the caller
// whose return address it found at loc.
func CallerSP(arch minidump.Arch, loc uint64) uint64 {
	return isaOf(arch).desc().callerSP(loc)
}

// mask keeps the bits of a word.
func (s *instrSet) mask() uint64 {
	if s.wordSize == 4 {
		return 0xffffffff
	}
	return ^uint64(0)
}

func isaOf(a minidump.Arch) isa {
	switch a {
	case minidump.ArchARM:
		return isaARM
	case minidump.ArchARM64, minidump.ArchARM64Old:
		return isaARM64
	case minidump.ArchX86:
		return isaX86
	case minidump.ArchAMD64:
		return isaAMD64
	}
	return isaNone
}
