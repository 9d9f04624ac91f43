package microdump

import (
	"encoding/binary"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

var le = binary.LittleEndian

// decodeARM reads MDRawContextARM: context_flags, r0..r15, cpsr, VFP state.
// The caller checked the size.
func decodeARM(b []byte) *minidump.Context {
	c := minidump.NewContext(minidump.ArchARM)
	c.Flags = le.Uint32(b)
	for i := 0; i < 16; i++ {
		c.SetIndex(i, uint64(le.Uint32(b[4+4*i:])))
	}
	return &c
}

// decodeARM64 reads MDRawContextARM64 (Microsoft's layout): context_flags,
// cpsr, x0..x28, fp, lr, sp, pc, then floating point and debug registers.
func decodeARM64(b []byte) *minidump.Context {
	c := minidump.NewContext(minidump.ArchARM64)
	c.Flags = le.Uint32(b)
	for i := 0; i < 33; i++ {
		c.SetIndex(i, le.Uint64(b[8+8*i:]))
	}
	return &c
}

// Context flags of Breakpad's pre-2018 arm64 layout and of the current one.
const (
	flagARM64Old         = 0x80000000
	flagARM64OldInteger  = flagARM64Old | 0x2
	flagARM64OldFloat    = flagARM64Old | 0x4
	flagARM64            = 0x00400000
	flagARM64Control     = flagARM64 | 0x1
	flagARM64Integer     = flagARM64 | 0x2
	flagARM64FloatingPnt = flagARM64 | 0x4
)

// decodeARM64Old reads MDRawContextARM64_Old, Breakpad's layout before
// Microsoft defined one: a 64-bit context_flags, then x0..pc, cpsr, FP state.
// Its flags are translated to the new layout's, as Breakpad does.
func decodeARM64Old(b []byte) *minidump.Context {
	c := minidump.NewContext(minidump.ArchARM64)
	old := le.Uint64(b)
	flags := uint32(flagARM64)
	if old&flagARM64OldInteger == flagARM64OldInteger {
		flags |= flagARM64Integer | flagARM64Control
	}
	if old&flagARM64OldFloat == flagARM64OldFloat {
		flags |= flagARM64FloatingPnt
	}
	c.Flags = flags
	for i := 0; i < 33; i++ {
		c.SetIndex(i, le.Uint64(b[8+8*i:]))
	}
	return &c
}

// decodeX86 reads MDRawContextX86. Offsets: context_flags 0, debug registers
// 4..27, FLOATING_SAVE_AREA 28..139, gs fs es ds 140..155, edi 156, esi 160,
// ebx 164, edx 168, ecx 172, eax 176, ebp 180, eip 184, cs 188, eflags 192,
// esp 196, ss 200.
func decodeX86(b []byte) *minidump.Context {
	c := minidump.NewContext(minidump.ArchX86)
	c.Flags = le.Uint32(b)
	for _, r := range []struct{ idx, off int }{
		{minidump.X86EDI, 156}, {minidump.X86ESI, 160}, {minidump.X86EBX, 164},
		{minidump.X86EDX, 168}, {minidump.X86ECX, 172}, {minidump.X86EAX, 176},
		{minidump.X86EBP, 180}, {minidump.X86EIP, 184}, {minidump.X86EFL, 192},
		{minidump.X86ESP, 196},
	} {
		c.SetIndex(r.idx, uint64(le.Uint32(b[r.off:])))
	}
	return &c
}
