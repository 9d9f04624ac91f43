package dumptext

// Context flags and raw sizes of the layouts Breakpad reads.
const (
	cpuMask     = 0xffffff00
	ctxX86      = 0x00010000
	ctxAMD64    = 0x00100000
	ctxARM      = 0x40000000
	ctxARMOld   = 0x00000040
	ctxARM64    = 0x00400000
	ctxARM64Old = 0x80000000
	ctxPPC64    = 0x01000000
	ctxPPC      = 0x20000000
	ctxSPARC    = 0x10000000
	ctxMIPS     = 0x00040000
	ctxMIPS64   = 0x00080000
	ctxRISCV    = 0x00800000
	ctxRISCV64  = 0x08000000

	sizeX86      = 716
	sizeAMD64    = 1232
	sizeARM      = 368
	sizeARM64    = 912
	sizeARM64Old = 796
	sizePPC64    = 1160
	sizePPC      = 1004
	sizeSPARC    = 584
	sizeMIPS     = 600
	sizeRISCV    = 268
	sizeRISCV64  = 528

	maxXSaveArea = 16384
)

// Architectures of MINIDUMP_SYSTEM_INFO that select a context layout.
const (
	archX86      = 0
	archMIPS     = 1
	archPPC      = 3
	archARM      = 5
	archAMD64    = 9
	archX86Win64 = 10
	archARM64    = 12
	archSPARC    = 0x8001
	archPPC64    = 0x8002
	archARM64Old = 0x8003
	archMIPS64   = 0x8004
	archRISCV    = 0x8005
	archRISCV64  = 0x8006
)

// contextCPUOf is the context CPU flags of the system info's architecture,
// as Minidump::GetContextCPUFlagsFromSystemInfo; 0 for another.
func contextCPUOf(arch uint16) uint32 {
	switch arch {
	case archX86:
		return ctxX86
	case archMIPS:
		return 0x00040000
	case archMIPS64, 6:
		return 0x00080000
	case 2:
		return 0x00020000
	case archPPC:
		return 0x20000000
	case archPPC64:
		return ctxPPC64
	case 4:
		return 0x000000c0
	case archARM:
		return ctxARM
	case archARM64:
		return ctxARM64
	case archARM64Old:
		return ctxARM64Old
	case archAMD64:
		return ctxAMD64
	case archSPARC:
		return 0x10000000
	case archRISCV:
		return 0x00800000
	case archRISCV64:
		return 0x08000000
	}
	return 0
}

// sysArchOf is the one architecture each other CPU's context matches;
// 0 (archX86) for the others.
func sysArchOf(cpu uint32) uint16 {
	switch cpu {
	case ctxPPC:
		return archPPC
	case ctxSPARC:
		return archSPARC
	case ctxMIPS:
		return archMIPS
	case ctxMIPS64:
		return archMIPS64
	case ctxRISCV:
		return archRISCV
	case ctxRISCV64:
		return archRISCV64
	}
	return 0
}

// contextSize is the exact size of the layout read after the flags cpu;
// false for a CPU without one.
func contextSize(cpu uint32) (uint32, bool) {
	switch cpu {
	case ctxX86:
		return sizeX86, true
	case ctxARM:
		return sizeARM, true
	case ctxARM64:
		return sizeARM64, true
	case ctxPPC:
		return sizePPC, true
	case ctxSPARC:
		return sizeSPARC, true
	case ctxMIPS, ctxMIPS64:
		return sizeMIPS, true
	case ctxRISCV:
		return sizeRISCV, true
	case ctxRISCV64:
		return sizeRISCV64, true
	}
	return 0, false
}

// context is a CPU context as Breakpad keeps it: its layout and raw bytes
// (in that layout, flags already fixed up).
type context struct {
	cpu uint32
	raw []byte
}

// contextCPUFromSystemInfo is the CPU the system info stream names, 0 when
// unknown; it keeps the cursor where it was.
func (d *dump) contextCPUFromSystemInfo() uint32 {
	pos := d.c.tell()
	if pos < 0 {
		return 0
	}
	var cpu uint32
	if si := d.systemInfo(); si != nil {
		cpu = contextCPUOf(si.arch)
	}
	d.c.seek(pos)
	return cpu
}

// matchesSystemInfo is MinidumpContext::CheckAgainstSystemInfo: a dump
// without a readable system info stream passes.
func (d *dump) matchesSystemInfo(cpu uint32) bool {
	si := d.systemInfo()
	if si == nil {
		return true
	}
	switch cpu {
	case ctxX86:
		return si.arch == archX86 || si.arch == archX86Win64 || si.arch == archAMD64
	case ctxAMD64:
		return si.arch == archAMD64
	case ctxARM:
		return si.arch == archARM
	case ctxARM64:
		return si.arch == archARM64
	case ctxARM64Old:
		return si.arch == archARM64Old
	case ctxPPC64:
		return si.arch == archPPC64
	}
	return si.arch == sysArchOf(cpu)
}

// readContext reads a context of size bytes at the cursor, as
// MinidumpContext::Read; nil where Breakpad fails.
func (d *dump) readContext(size uint32) *context {
	sysCPU := d.contextCPUFromSystemInfo()
	switch {
	case size == sizeAMD64 || (sysCPU == ctxAMD64 && size >= sizeAMD64):
		return d.readAMD64(size, sysCPU)
	case size == sizePPC64:
		return d.readPPC64(sysCPU)
	case size == sizeARM64Old:
		return d.readARM64Old(sysCPU)
	}
	fb, ok := d.c.read(4)
	if !ok {
		return nil
	}
	flags := le.Uint32(fb)
	cpu := flags & cpuMask
	if cpu == 0 && flags&ctxARMOld != 0 {
		flags = flags&^ctxARMOld | ctxARM
		cpu = ctxARM
	}
	if cpu == 0 {
		cpu = sysCPU
		flags |= cpu
	}
	// Every layout must have its exact size: minidump_dump 0.26.0, the
	// oracle, takes no XSAVE area after an x86 context, as later Breakpad
	// does.
	want, ok := contextSize(cpu)
	if !ok || size != want {
		return nil
	}
	rest, ok := d.c.read(int64(want) - 4)
	if !ok || !d.matchesSystemInfo(cpu) {
		return nil
	}
	raw := append(le.AppendUint32(nil, flags), rest...)
	return &context{cpu: cpu, raw: raw}
}

func (d *dump) readAMD64(size, sysCPU uint32) *context {
	raw, ok := d.c.read(sizeAMD64)
	if !ok {
		return nil
	}
	if size > sizeAMD64 {
		if size-sizeAMD64 > maxXSaveArea {
			return nil
		}
		if _, ok := d.c.read(int64(size - sizeAMD64)); !ok {
			return nil
		}
	}
	flags := le.Uint32(raw[48:])
	cpu := flags & cpuMask
	if cpu == 0 {
		le.PutUint32(raw[48:], flags|sysCPU)
	}
	if cpu != ctxAMD64 || !d.matchesSystemInfo(cpu) {
		return nil
	}
	return &context{cpu: ctxAMD64, raw: raw}
}

// readPPC64 reads a ppc64 context, whose flags are 64 bits wide.
func (d *dump) readPPC64(sysCPU uint32) *context {
	raw, ok := d.c.read(sizePPC64)
	if !ok {
		return nil
	}
	flags := le.Uint64(raw)
	cpu := uint32(flags) & cpuMask
	if cpu == 0 {
		cpu = sysCPU
	}
	if cpu != ctxPPC64 || !d.matchesSystemInfo(cpu) || flags>>32 != 0 {
		return nil
	}
	return &context{cpu: ctxPPC64, raw: raw}
}

// readARM64Old reads Breakpad's first arm64 layout and converts it to
// Microsoft's, as ConvertOldARM64Context.
func (d *dump) readARM64Old(sysCPU uint32) *context {
	old, ok := d.c.read(sizeARM64Old)
	if !ok {
		return nil
	}
	cpu := uint32(le.Uint64(old)) & cpuMask
	if cpu == 0 {
		cpu = sysCPU
	}
	if cpu != ctxARM64Old || !d.matchesSystemInfo(cpu) {
		return nil
	}
	raw := make([]byte, sizeARM64)
	// The old integer bit test also matches the CPU bit, so the converted
	// flags always claim control, integer and floating point registers.
	le.PutUint32(raw, ctxARM64|0x7)
	copy(raw[4:8], old[272:276])     // cpsr
	copy(raw[8:272], old[8:272])     // x0-x31, pc
	copy(raw[272:784], old[284:796]) // v0-v31
	copy(raw[784:788], old[280:284]) // fpcr
	copy(raw[788:792], old[276:280]) // fpsr
	return &context{cpu: ctxARM64, raw: raw}
}

// printContext is DumpContext::Print.
func (d *dump) printContext(c *context) {
	r := c.raw
	u32 := func(o int) uint32 { return le.Uint32(r[o:]) }
	u64 := func(o int) uint64 { return le.Uint64(r[o:]) }
	p := d.printf
	switch c.cpu {
	case ctxX86:
		p("MDRawContextX86\n")
		p("  context_flags                = 0x%x\n", u32(0))
		for i, n := range []string{"dr0", "dr1", "dr2", "dr3", "dr6", "dr7"} {
			p("  %-28s = 0x%x\n", n, u32(4+4*i))
		}
		for i, n := range []string{"control_word", "status_word", "tag_word", "error_offset", "error_selector", "data_offset", "data_selector"} {
			p("  float_save.%-17s = 0x%x\n", n, u32(28+4*i))
		}
		p("  float_save.register_area[80] = 0x%x\n", r[56:136])
		p("  float_save.cr0_npx_state     = 0x%x\n", u32(136))
		for i, n := range []string{"gs", "fs", "es", "ds", "edi", "esi", "ebx", "edx", "ecx", "eax", "ebp", "eip", "cs", "eflags", "esp", "ss"} {
			p("  %-28s = 0x%x\n", n, u32(140+4*i))
		}
		p("  extended_registers[512]      = 0x%x\n\n", r[204:716])
	case ctxAMD64:
		p("MDRawContextAMD64\n")
		for i := 0; i < 6; i++ {
			p("  p%d_home       = 0x%x\n", i+1, u64(8*i))
		}
		p("  context_flags = 0x%x\n", u32(48))
		p("  mx_csr        = 0x%x\n", u32(52))
		for i, n := range []string{"cs", "ds", "es", "fs", "gs", "ss"} {
			p("  %-13s = 0x%x\n", n, le.Uint16(r[56+2*i:]))
		}
		p("  eflags        = 0x%x\n", u32(68))
		for i, n := range []string{"dr0", "dr1", "dr2", "dr3", "dr6", "dr7", "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"} {
			p("  %-13s = 0x%x\n", n, u64(72+8*i))
		}
		p("\n")
	case ctxARM:
		p("MDRawContextARM\n")
		p("  context_flags        = 0x%x\n", u32(0))
		names := []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"}
		for i, n := range names {
			p("  %-3s                  = 0x%x\n", n, u32(4+4*i))
		}
		p("  cpsr                 = 0x%x\n", u32(68))
		p("  float_save.fpscr     = 0x%x\n", u64(72))
		for i := 0; i < 32; i++ {
			p("  float_save.regs[%2d]  = 0x%x\n", i, u64(80+8*i))
		}
		for i := 0; i < 8; i++ {
			p("  float_save.extra[%2d] = 0x%x\n", i, u32(336+4*i))
		}
	case ctxARM64:
		p("MDRawContextARM64\n")
		p("  context_flags       = 0x%x\n", u32(0))
		for i := 0; i < 33; i++ {
			p("  iregs[%2d]            = 0x%x\n", i, u64(8+8*i))
		}
		p("  cpsr                = 0x%x\n", u32(4))
		p("  float_save.fpsr     = 0x%x\n", u32(788))
		p("  float_save.fpcr     = 0x%x\n", u32(784))
		for i := 0; i < 32; i++ {
			// uint128_struct's halves in file order: Breakpad normalizes
			// them only when byte-swapping.
			p("  float_save.regs[%2d]            = 0x%x%x\n", i, u64(272+16*i), u64(280+16*i))
		}
	default:
		d.printOtherContext(c)
	}
}
