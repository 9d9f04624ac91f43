package dumptext

// Printers of the contexts of CPUs beyond the walkers' four, as
// DumpContext::Print lays them out (minidump_dump on an x86-64 host, which
// leaves out RISC-V floating point registers).

var riscvNames = []string{"pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0", "a1", "a2", "a3",
	"a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"}

func (d *dump) printOtherContext(c *context) {
	r := c.raw
	u32 := func(o int) uint32 { return le.Uint32(r[o:]) }
	u64 := func(o int) uint64 { return le.Uint64(r[o:]) }
	p := d.printf
	switch c.cpu {
	case ctxPPC, ctxPPC64:
		// Both: 32 general registers, cr, xer, lr, ctr, (mq,) vrsave, then
		// the floating point and vector areas; ppc64's fields are 8 bytes.
		w, get := 4, func(o int) uint64 { return uint64(u32(o)) }
		names := []string{"cr", "xer", "lr", "ctr", "mq", "vrsave"}
		if c.cpu == ctxPPC64 {
			w, get = 8, u64
			names = []string{"cr", "xer", "lr", "ctr", "vrsave"}
			p("MDRawContextPPC64\n")
		} else {
			p("MDRawContextPPC\n")
		}
		p("  context_flags            = 0x%x\n", get(0))
		p("  srr0                     = 0x%x\n", get(w))
		p("  srr1                     = 0x%x\n", get(2*w))
		for i := 0; i < 32; i++ {
			p("  gpr[%2d]                  = 0x%x\n", i, get((3+i)*w))
		}
		for i, n := range names {
			p("  %-24s = 0x%x\n", n, get((35+i)*w))
		}
		fp := (35 + len(names)) * w
		for i := 0; i < 32; i++ {
			p("  float_save.fpregs[%2d]    = 0x%x\n", i, u64(fp+8*i))
		}
		p("  float_save.fpscr         = 0x%x\n", u32(fp+260))
		p("  vector_save.save_vrvalid = 0x%x\n\n", u32(fp+264+544))
	case ctxSPARC:
		p("MDRawContextSPARC\n")
		p("  context_flags       = 0x%x\n", u32(0))
		for i := 0; i < 32; i++ {
			p("  g_r[%2d]             = 0x%x\n", i, u64(8+8*i))
		}
		for i, n := range []string{"ccr", "pc", "npc", "y", "asi", "fprs"} {
			p("  %-19s = 0x%x\n", n, u64(264+8*i))
		}
		for i := 0; i < 32; i++ {
			p("  float_save.regs[%2d] = 0x%x\n", i, u64(312+8*i))
		}
		p("  float_save.filler   = 0x%x\n", u64(568))
		p("  float_save.fsr      = 0x%x\n", u64(576))
	case ctxMIPS, ctxMIPS64:
		p("MDRawContextMIPS\n")
		p("  context_flags        = 0x%x\n", u32(0))
		for i := 0; i < 32; i++ {
			p("  iregs[%2d]           = 0x%x\n", i, u64(8+8*i))
		}
		p("  mdhi                 = 0x%x\n", u64(264))
		p("  mdlo                 = 0x%x\n", u64(264)) // Breakpad prints mdhi twice
		for i := 0; i < 3; i++ {
			p("  hi[%d]              = 0x%x\n", i, u32(280+4*i))
			p("  lo[%d]              = 0x%x\n", i, u32(292+4*i))
		}
		p("  dsp_control          = 0x%x\n", u32(304))
		p("  epc                  = 0x%x\n", u64(312))
		p("  badvaddr             = 0x%x\n", u64(320))
		p("  status               = 0x%x\n", u32(328))
		p("  cause                = 0x%x\n", u32(332))
		for i := 0; i < 32; i++ {
			p("  float_save.regs[%2d] = 0x%x\n", i, u64(336+8*i))
		}
		p("  float_save.fpcsr     = 0x%x\n", u32(592))
		p("  float_save.fir       = 0x%x\n", u32(596))
	case ctxRISCV, ctxRISCV64:
		w, get := 4, func(o int) uint64 { return uint64(u32(o)) }
		if c.cpu == ctxRISCV64 {
			w, get = 8, u64
			p("MDRawContextRISCV64\n")
		} else {
			p("MDRawContextRISCV\n")
		}
		p("  context_flags        = 0x%x\n", u32(0))
		for i, n := range riscvNames {
			p("  %-13s = 0x%x\n", n, get(8+w*i))
		}
	}
}
