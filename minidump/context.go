package minidump

import "strings"

// Arch is a CPU architecture as written in MINIDUMP_SYSTEM_INFO.ProcessorArchitecture.
type Arch uint16

// Architecture values. The 0x8000 range holds Breakpad's own extensions.
const (
	ArchX86      Arch = 0
	ArchMIPS     Arch = 1
	ArchAlpha    Arch = 2
	ArchPPC      Arch = 3
	ArchSHX      Arch = 4
	ArchARM      Arch = 5
	ArchIA64     Arch = 6
	ArchAlpha64  Arch = 7
	ArchMSIL     Arch = 8
	ArchAMD64    Arch = 9
	ArchX86Win64 Arch = 10
	ArchARM64    Arch = 12 // Microsoft's PROCESSOR_ARCHITECTURE_ARM64
	ArchSPARC    Arch = 0x8001
	ArchPPC64    Arch = 0x8002
	ArchARM64Old Arch = 0x8003 // Breakpad's value before Microsoft assigned 12
	ArchMIPS64   Arch = 0x8004
	ArchRISCV    Arch = 0x8005
	ArchRISCV64  Arch = 0x8006
	ArchUnknown  Arch = 0xffff
)

// String returns the name Breakpad's minidump_stackwalk prints on its "CPU:" line.
func (a Arch) String() string {
	switch a {
	case ArchX86:
		return "x86"
	case ArchAMD64:
		return "amd64"
	case ArchARM:
		return "arm"
	case ArchARM64, ArchARM64Old:
		return "arm64"
	case ArchPPC:
		return "ppc"
	case ArchPPC64:
		return "ppc64"
	case ArchSPARC:
		return "sparc"
	case ArchMIPS:
		return "mips"
	case ArchMIPS64:
		return "mips64"
	case ArchRISCV:
		return "riscv"
	case ArchRISCV64:
		return "riscv64"
	}
	return "unknown"
}

// Register tables, in index order. The first name of each entry is the one
// Breakpad prints; the others are aliases accepted by Context.Get and Set
// (DWARF/CFI spellings such as "r11" for ARM's frame pointer).
var (
	regsX86 = [][]string{{"eip"}, {"esp"}, {"ebp"}, {"ebx"}, {"esi"}, {"edi"}, {"eax"}, {"ecx"}, {"edx"}, {"efl", "eflags"}}

	regsAMD64 = [][]string{{"rax"}, {"rdx"}, {"rcx"}, {"rbx"}, {"rsi"}, {"rdi"}, {"rbp"}, {"rsp"},
		{"r8"}, {"r9"}, {"r10"}, {"r11"}, {"r12"}, {"r13"}, {"r14"}, {"r15"}, {"rip"}}

	regsARM = [][]string{{"r0"}, {"r1"}, {"r2"}, {"r3"}, {"r4"}, {"r5"}, {"r6"}, {"r7"},
		{"r8"}, {"r9"}, {"r10"}, {"fp", "r11"}, {"r12"}, {"sp", "r13"}, {"lr", "r14"}, {"pc", "r15"}}

	regsARM64 = [][]string{{"x0"}, {"x1"}, {"x2"}, {"x3"}, {"x4"}, {"x5"}, {"x6"}, {"x7"},
		{"x8"}, {"x9"}, {"x10"}, {"x11"}, {"x12"}, {"x13"}, {"x14"}, {"x15"},
		{"x16"}, {"x17"}, {"x18"}, {"x19"}, {"x20"}, {"x21"}, {"x22"}, {"x23"},
		{"x24"}, {"x25"}, {"x26"}, {"x27"}, {"x28"}, {"fp", "x29"}, {"lr", "x30"}, {"sp", "x31"}, {"pc"}}
)

// Register indices used by the walkers. Each constant indexes the table of its architecture.
const (
	X86EIP = 0
	X86ESP = 1
	X86EBP = 2
	X86EBX = 3
	X86ESI = 4
	X86EDI = 5
	X86EAX = 6
	X86ECX = 7
	X86EDX = 8
	X86EFL = 9

	AMD64RBX = 3
	AMD64RBP = 6
	AMD64RSP = 7
	AMD64R12 = 12
	AMD64R13 = 13
	AMD64R14 = 14
	AMD64R15 = 15
	AMD64RIP = 16

	ARMR4 = 4
	ARMR7 = 7
	ARMFP = 11
	ARMSP = 13
	ARMLR = 14
	ARMPC = 15

	ARM64X19 = 19
	ARM64FP  = 29
	ARM64LR  = 30
	ARM64SP  = 31
	ARM64PC  = 32
)

// maxRegs bounds every table above, so a Context needs no allocation.
const maxRegs = 33

func regTable(a Arch) [][]string {
	switch a {
	case ArchX86:
		return regsX86
	case ArchAMD64:
		return regsAMD64
	case ArchARM:
		return regsARM
	case ArchARM64, ArchARM64Old:
		return regsARM64
	}
	return nil
}

// RegisterNames returns the registers of a in index order, by the names Breakpad prints.
func RegisterNames(a Arch) []string {
	t := regTable(a)
	names := make([]string, len(t))
	for i, n := range t {
		names[i] = n[0]
	}
	return names
}

// RegisterName returns the name Breakpad prints for register i of a, or ""
// when a has no register i. Unlike RegisterNames it allocates nothing.
func RegisterName(a Arch, i int) string {
	t := regTable(a)
	if i < 0 || i >= len(t) {
		return ""
	}
	return t[i][0]
}

// RegisterIndex returns the index of a register name or alias of a, ignoring a
// leading '$' as written in CFI and STACK WIN programs. It returns -1 for an unknown name.
func RegisterIndex(a Arch, name string) int {
	name = strings.TrimPrefix(name, "$")
	for i, names := range regTable(a) {
		for _, n := range names {
			if n == name {
				return i
			}
		}
	}
	return -1
}

// Context is a register file of one thread or stack frame: values by register
// index plus a validity bit per register. Frames recovered by a walker carry
// only the registers the unwind rules restore, so validity matters.
type Context struct {
	Arch  Arch
	Flags uint32 // the raw context flags from the dump; 0 when synthesized
	regs  [maxRegs]uint64
	valid uint64
}

// NewContext returns a context of a with no valid registers.
func NewContext(a Arch) Context { return Context{Arch: a} }

// NumRegs is the number of registers of c's architecture.
func (c *Context) NumRegs() int { return len(regTable(c.Arch)) }

// WordSize is 4 for 32-bit architectures and 8 for 64-bit ones.
func (c *Context) WordSize() int {
	switch c.Arch {
	case ArchX86, ArchARM, ArchMIPS, ArchPPC, ArchRISCV:
		return 4
	}
	return 8
}

// Index returns register i and whether it is valid.
func (c *Context) Index(i int) (uint64, bool) {
	if i < 0 || i >= c.NumRegs() {
		return 0, false
	}
	return c.regs[i], c.valid&(1<<uint(i)) != 0
}

// SetIndex sets register i and marks it valid; values are truncated to the word size.
func (c *Context) SetIndex(i int, v uint64) {
	if i < 0 || i >= c.NumRegs() {
		return
	}
	if c.WordSize() == 4 {
		v &= 0xffffffff
	}
	c.regs[i] = v
	c.valid |= 1 << uint(i)
}

// Invalidate marks register i unknown.
func (c *Context) Invalidate(i int) {
	if i >= 0 && i < maxRegs {
		c.valid &^= 1 << uint(i)
		c.regs[i] = 0
	}
}

// Get returns a register by name or alias ("rsp", "$rsp", "fp", "x29").
func (c *Context) Get(name string) (uint64, bool) {
	return c.Index(RegisterIndex(c.Arch, name))
}

// Set sets a register by name or alias; it reports false for an unknown name.
func (c *Context) Set(name string, v uint64) bool {
	i := RegisterIndex(c.Arch, name)
	if i < 0 {
		return false
	}
	c.SetIndex(i, v)
	return true
}

// ipIndex and spIndex give the instruction and stack pointer of each architecture.
func (c *Context) ipIndex() int {
	switch c.Arch {
	case ArchX86:
		return X86EIP
	case ArchAMD64:
		return AMD64RIP
	case ArchARM:
		return ARMPC
	case ArchARM64, ArchARM64Old:
		return ARM64PC
	}
	return -1
}

func (c *Context) spIndex() int {
	switch c.Arch {
	case ArchX86:
		return X86ESP
	case ArchAMD64:
		return AMD64RSP
	case ArchARM:
		return ARMSP
	case ArchARM64, ArchARM64Old:
		return ARM64SP
	}
	return -1
}

// IP returns the instruction pointer and whether it is valid.
func (c *Context) IP() (uint64, bool) { return c.Index(c.ipIndex()) }

// SP returns the stack pointer and whether it is valid.
func (c *Context) SP() (uint64, bool) { return c.Index(c.spIndex()) }

// SetIP sets the instruction pointer.
func (c *Context) SetIP(v uint64) { c.SetIndex(c.ipIndex(), v) }

// SetSP sets the stack pointer.
func (c *Context) SetSP(v uint64) { c.SetIndex(c.spIndex(), v) }
