package minidump

import "fmt"

// Context flag values (CONTEXT.ContextFlags). The CPU bits select the layout;
// the low bits say which register groups were captured.
const (
	ContextCPUMask = 0xffffff00

	ContextX86      = 0x00010000
	ContextAMD64    = 0x00100000
	ContextARM      = 0x40000000
	ContextARMOld   = 0x00000040 // Breakpad's first ARM value, without CPU bits
	ContextARM64    = 0x00400000
	ContextARM64Old = 0x80000000 // Breakpad's arm64 before Microsoft's layout

	ContextControl  = 0x1 // x86/amd64/arm64: instruction and stack pointers, frame pointer (x86), flags
	ContextInteger  = 0x2 // general-purpose registers
	ContextSegments = 0x4 // x86/amd64 segment registers
)

// Raw context sizes. Larger contexts (XSTATE, CET) are accepted for x86 and amd64.
const (
	ContextX86Size      = 716
	ContextAMD64Size    = 1232
	ContextARMSize      = 368
	ContextARM64Size    = 912
	ContextARM64OldSize = 796

	maxContextSize = 1 << 20 // bounds an extended (XSAVE) area
)

// contextCPUForArch maps a SystemInfo architecture to the context CPU flag.
func contextCPUForArch(a Arch) uint32 {
	switch a {
	case ArchX86, ArchX86Win64:
		return ContextX86
	case ArchAMD64:
		return ContextAMD64
	case ArchARM:
		return ContextARM
	case ArchARM64:
		return ContextARM64
	case ArchARM64Old:
		return ContextARM64Old
	}
	return 0
}

// ParseContext decodes a raw CPU context. sysArch is the SystemInfo architecture
// (ArchUnknown when there is none); like Breakpad it picks the layout from the
// size and flags, falls back to sysArch for flags without CPU bits, and rejects
// contexts whose CPU contradicts sysArch. off and stream only label errors.
func ParseContext(b []byte, sysArch Arch, off int64, stream string) (*Context, error) {
	bad := func(format string, args ...any) error {
		return &FormatError{off, stream, "context: " + fmt.Sprintf(format, args...)}
	}
	if len(b) > maxContextSize {
		return nil, bad("size %d too large", len(b))
	}
	sysCPU := contextCPUForArch(sysArch)
	n := len(b)
	var cpu, flags uint32
	switch {
	case n == ContextAMD64Size || (sysCPU == ContextAMD64 && n >= ContextAMD64Size):
		flags = le.Uint32(b[48:])
		cpu = flags & ContextCPUMask
		if cpu == 0 {
			cpu = sysCPU
			flags |= cpu
		}
		if cpu != ContextAMD64 {
			return nil, bad("amd64-sized context with flags %#x", flags)
		}
	case n == ContextARM64OldSize:
		flags64 := le.Uint64(b)
		flags = uint32(flags64)
		cpu = flags & ContextCPUMask
		if cpu == 0 {
			cpu = sysCPU
			flags |= cpu
		}
		if cpu != ContextARM64Old {
			return nil, bad("old-arm64-sized context with flags %#x", flags64)
		}
	default:
		if n < 4 {
			return nil, bad("size %d too small", n)
		}
		flags = le.Uint32(b)
		cpu = flags & ContextCPUMask
		if cpu == 0 && flags&ContextARMOld != 0 {
			flags = flags&^ContextARMOld | ContextARM
			cpu = ContextARM
		}
		if cpu == 0 {
			cpu = sysCPU
			flags |= cpu
		}
	}
	if sysCPU != 0 && !cpuMatches(cpu, sysCPU) {
		return nil, bad("CPU %#x in context flags does not match system info architecture %v", cpu, sysArch)
	}
	switch cpu {
	case ContextX86:
		return parseX86(b, flags, bad)
	case ContextAMD64:
		return parseAMD64(b, flags, bad)
	case ContextARM:
		return parseARM(b, flags, bad)
	case ContextARM64:
		return parseARM64(b, flags, bad)
	case ContextARM64Old:
		return parseARM64Old(b, flags, bad)
	}
	return nil, bad("unsupported context CPU %#x (size %d)", cpu, n)
}

// cpuMatches applies Breakpad's CheckAgainstSystemInfo: an x86 context is
// accepted in an amd64 dump (a WoW64 process); otherwise the CPUs must agree,
// the two arm64 layouts each with their own architecture value.
func cpuMatches(ctx, sys uint32) bool {
	return ctx == sys || (ctx == ContextX86 && sys == ContextAMD64)
}

func parseX86(b []byte, flags uint32, bad func(string, ...any) error) (*Context, error) {
	// Breakpad insists on the exact size; Windows writes larger x86 contexts with
	// XSTATE/CET data appended, which we accept and ignore.
	if len(b) < ContextX86Size {
		return nil, bad("x86 context size %d, want %d", len(b), ContextX86Size)
	}
	c := &Context{Arch: ArchX86, Flags: flags}
	u := func(off int) uint64 { return uint64(le.Uint32(b[off:])) }
	control := []int{X86EBP, X86EIP, X86EFL, X86ESP}
	for i, off := range []int{180, 184, 192, 196} {
		c.regs[control[i]] = u(off)
	}
	integer := []int{X86EDI, X86ESI, X86EBX, X86EDX, X86ECX, X86EAX}
	for i, off := range []int{156, 160, 164, 168, 172, 176} {
		c.regs[integer[i]] = u(off)
	}
	c.setValidity(control, integer)
	return c, nil
}

func parseAMD64(b []byte, flags uint32, bad func(string, ...any) error) (*Context, error) {
	if len(b) < ContextAMD64Size {
		return nil, bad("amd64 context size %d, want %d", len(b), ContextAMD64Size)
	}
	c := &Context{Arch: ArchAMD64, Flags: flags}
	u := func(off int) uint64 { return le.Uint64(b[off:]) }
	// Offsets of rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8..r15, rip in CONTEXT.
	const rax = 120
	c.regs[AMD64RSP] = u(rax + 4*8)
	c.regs[AMD64RIP] = u(248)
	// Our order rax, rdx, rcx, rbx, rsi, rdi, rbp against CONTEXT's slots
	// rax 0, rcx 1, rdx 2, rbx 3, rsp 4, rbp 5, rsi 6, rdi 7.
	for i, slot := range []int{0, 2, 1, 3, 6, 7, 5} {
		c.regs[i] = u(rax + 8*slot)
	}
	for r := 8; r <= 15; r++ {
		c.regs[r] = u(rax + 64 + (r-8)*8)
	}
	c.setValidity([]int{AMD64RSP, AMD64RIP}, []int{0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15})
	return c, nil
}

func parseARM(b []byte, flags uint32, bad func(string, ...any) error) (*Context, error) {
	if len(b) < ContextARMSize {
		return nil, bad("arm context size %d, want %d", len(b), ContextARMSize)
	}
	c := &Context{Arch: ArchARM, Flags: flags}
	// ARM has no control group: the integer group holds r0..r15 (pc included).
	all := make([]int, 16)
	for i := range all {
		c.regs[i] = uint64(le.Uint32(b[4+4*i:]))
		all[i] = i
	}
	c.setValidity(nil, all)
	return c, nil
}

func parseARM64(b []byte, flags uint32, bad func(string, ...any) error) (*Context, error) {
	if len(b) < ContextARM64Size {
		return nil, bad("arm64 context size %d, want %d", len(b), ContextARM64Size)
	}
	c := &Context{Arch: ArchARM64, Flags: flags}
	var integer []int
	for i := 0; i <= ARM64PC; i++ {
		c.regs[i] = le.Uint64(b[8+8*i:])
		if i < ARM64FP {
			integer = append(integer, i)
		}
	}
	c.setValidity([]int{ARM64FP, ARM64LR, ARM64SP, ARM64PC}, integer)
	return c, nil
}

func parseARM64Old(b []byte, flags uint32, bad func(string, ...any) error) (*Context, error) {
	if len(b) < ContextARM64OldSize {
		return nil, bad("old arm64 context size %d, want %d", len(b), ContextARM64OldSize)
	}
	// Breakpad converts this layout to Microsoft's; so do we, keeping the
	// raw flags. Its integer group covers x0..x31 and pc.
	c := &Context{Arch: ArchARM64, Flags: flags}
	all := make([]int, ARM64PC+1)
	for i := range all {
		c.regs[i] = le.Uint64(b[8+8*i:])
		all[i] = i
	}
	c.setValidity(nil, all)
	return c, nil
}

// setValidity marks the control and integer registers valid according to
// c.Flags. Every value is stored regardless, readable through Index. When the
// flags name no register group at all (macOS writers leave them 0), all
// registers are marked valid: Breakpad and rust-minidump ignore the flags of
// a dump's contexts, and such a writer did capture the registers.
func (c *Context) setValidity(control, integer []int) {
	const groups = ContextControl | ContextInteger | ContextSegments | 0x8 | 0x10 | 0x20 | 0x40
	all := c.Flags&groups == 0
	if all || c.Flags&ContextControl != 0 {
		for _, i := range control {
			c.valid |= 1 << uint(i)
		}
	}
	if all || c.Flags&ContextInteger != 0 {
		for _, i := range integer {
			c.valid |= 1 << uint(i)
		}
	}
}

// SetAllValid marks every register valid, keeping the stored values. Breakpad
// treats a thread's context this way whatever its flags say.
func (c *Context) SetAllValid() {
	c.valid = 1<<uint(c.NumRegs()) - 1
}
