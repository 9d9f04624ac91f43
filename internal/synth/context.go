package synth

import (
	"encoding/binary"
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// Raw context sizes and flags, from Breakpad's minidump_cpu_*.h.
const (
	ContextSizeX86      = 716
	ContextSizeAMD64    = 1232
	ContextSizeARM      = 368
	ContextSizeARM64    = 912
	ContextSizeARM64Old = 796

	ContextFlagsX86      = 0x00010000
	ContextFlagsAMD64    = 0x00100000
	ContextFlagsARM      = 0x40000000
	ContextFlagsARM64    = 0x00400000
	ContextFlagsARM64Old = 0x80000000

	// The flag sets Breakpad's Linux client writes by default.
	ContextX86All       = ContextFlagsX86 | 0x3f      // CONTROL|INTEGER|SEGMENTS|FLOATING_POINT|DEBUG|EXTENDED
	ContextAMD64Full    = ContextFlagsAMD64 | 0x0b    // CONTROL|INTEGER|FLOATING_POINT
	ContextARMFull      = ContextFlagsARM | 0x06      // INTEGER|FLOATING_POINT
	ContextARM64Full    = ContextFlagsARM64 | 0x07    // CONTROL|INTEGER|FLOATING_POINT
	ContextARM64OldFull = ContextFlagsARM64Old | 0x06 // INTEGER|FLOATING_POINT
)

// ContextExtra holds the registers of a raw context that minidump.Context
// does not carry: flags and segment registers. Zero values are written as 0.
type ContextExtra struct {
	EFlags uint32 // amd64 only (x86 takes eflags from the Context)
	CPSR   uint32 // arm and arm64
	// Segment registers of x86 and amd64.
	CS, DS, ES, FS, GS, SS uint16
	MXCSR                  uint32 // amd64
}

// EncodeContext returns ctx in the raw layout Breakpad and Windows use for its
// architecture. ArchARM64Old selects Breakpad's older arm64 layout. Invalid
// registers are written as zero. ctx.Flags is written as the context flags
// when it is nonzero; otherwise the flags Breakpad's Linux client writes.
func EncodeContext(ctx minidump.Context, extra ContextExtra) ([]byte, error) {
	reg := func(i int) uint64 { v, _ := ctx.Index(i); return v }
	le := binary.LittleEndian
	flags := ctx.Flags
	switch ctx.Arch {
	case minidump.ArchX86:
		b := make([]byte, ContextSizeX86)
		if flags == 0 {
			flags = ContextX86All
		}
		le.PutUint32(b[0:], flags)
		le.PutUint32(b[140:], uint32(extra.GS))
		le.PutUint32(b[144:], uint32(extra.FS))
		le.PutUint32(b[148:], uint32(extra.ES))
		le.PutUint32(b[152:], uint32(extra.DS))
		for off, r := range map[int]int{
			156: minidump.X86EDI, 160: minidump.X86ESI, 164: minidump.X86EBX, 168: minidump.X86EDX,
			172: minidump.X86ECX, 176: minidump.X86EAX, 180: minidump.X86EBP, 184: minidump.X86EIP,
			192: minidump.X86EFL, 196: minidump.X86ESP,
		} {
			le.PutUint32(b[off:], uint32(reg(r)))
		}
		le.PutUint32(b[188:], uint32(extra.CS))
		le.PutUint32(b[200:], uint32(extra.SS))
		return b, nil
	case minidump.ArchAMD64:
		b := make([]byte, ContextSizeAMD64)
		if flags == 0 {
			flags = ContextAMD64Full
		}
		le.PutUint32(b[48:], flags)
		le.PutUint32(b[52:], extra.MXCSR)
		le.PutUint16(b[56:], extra.CS)
		le.PutUint16(b[58:], extra.DS)
		le.PutUint16(b[60:], extra.ES)
		le.PutUint16(b[62:], extra.FS)
		le.PutUint16(b[64:], extra.GS)
		le.PutUint16(b[66:], extra.SS)
		le.PutUint32(b[68:], extra.EFlags)
		// rax rcx rdx rbx rsp rbp rsi rdi r8..r15 rip from offset 120; our
		// register table orders them rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip.
		order := []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
			"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}
		for i, name := range order {
			v, _ := ctx.Get(name)
			le.PutUint64(b[120+8*i:], v)
		}
		// flt_save.mx_csr mirrors the context's mx_csr.
		le.PutUint32(b[256+24:], extra.MXCSR)
		return b, nil
	case minidump.ArchARM:
		b := make([]byte, ContextSizeARM)
		if flags == 0 {
			flags = ContextARMFull
		}
		le.PutUint32(b[0:], flags)
		for i := 0; i < 16; i++ {
			le.PutUint32(b[4+4*i:], uint32(reg(i)))
		}
		le.PutUint32(b[68:], extra.CPSR)
		return b, nil
	case minidump.ArchARM64:
		b := make([]byte, ContextSizeARM64)
		if flags == 0 {
			flags = ContextARM64Full
		}
		le.PutUint32(b[0:], flags)
		le.PutUint32(b[4:], extra.CPSR)
		for i := 0; i < 33; i++ {
			le.PutUint64(b[8+8*i:], reg(i))
		}
		return b, nil
	case minidump.ArchARM64Old:
		b := make([]byte, ContextSizeARM64Old)
		if flags == 0 {
			flags = ContextARM64OldFull
		}
		le.PutUint64(b[0:], uint64(flags))
		for i := 0; i < 33; i++ {
			le.PutUint64(b[8+8*i:], reg(i))
		}
		le.PutUint32(b[272:], extra.CPSR)
		return b, nil
	}
	return nil, fmt.Errorf("synth: no raw context layout for architecture %v (%d)", ctx.Arch, uint16(ctx.Arch))
}
