package crashinfo

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// x86 and amd64: the instruction is printed in yaxpeax-x86's Intel syntax
// (what rust-minidump prints: "mov dword [rax + 0x8], 0x5"), and its
// accesses follow rust-minidump's op_analysis: the opcodes it models get a
// direction, every other memory operand an unknown one.

// x86Regs names the 16 general registers by x86asm's numbering (ax, cx,
// dx, bx, sp, bp, si, di, r8..r15) in each width.
var (
	x86Names64 = []string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}
	x86Names32 = []string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}
	x86Names8  = []string{"al", "cl", "dl", "bl", "ah", "ch", "dh", "bh",
		"spl", "bpl", "sil", "dil"}
)

// x86RegName is the register's name in yaxpeax's spelling.
func x86RegName(r x86asm.Reg) string {
	switch {
	case r >= x86asm.AL && r <= x86asm.R15B:
		i := int(r - x86asm.AL)
		if i < len(x86Names8) {
			return x86Names8[i]
		}
		return fmt.Sprintf("r%db", i-4)
	case r >= x86asm.AX && r <= x86asm.R15W:
		i := int(r - x86asm.AX)
		if i < 8 {
			return x86Names32[i][1:]
		}
		return fmt.Sprintf("r%dw", i)
	case r >= x86asm.EAX && r <= x86asm.R15L:
		i := int(r - x86asm.EAX)
		if i < 8 {
			return x86Names32[i]
		}
		return fmt.Sprintf("r%dd", i)
	case r >= x86asm.RAX && r <= x86asm.R15:
		return x86Names64[r-x86asm.RAX]
	case r >= x86asm.X0 && r <= x86asm.X15:
		return fmt.Sprintf("xmm%d", r-x86asm.X0)
	case r >= x86asm.Y0 && r <= x86asm.Y15:
		return fmt.Sprintf("ymm%d", r-x86asm.Y0)
	case r >= x86asm.M0 && r <= x86asm.M7:
		return fmt.Sprintf("mm%d", r-x86asm.M0)
	}
	return strings.ToLower(r.String())
}

// x86RegValue reads a general register used for addressing: its context
// name and the mask of its width. ok is false for registers the context
// does not hold (segment, vector registers).
func x86RegValue(g *regs, r x86asm.Reg, mode int) (uint64, string, bool) {
	var i int
	mask := ^uint64(0)
	switch {
	case r >= x86asm.EAX && r <= x86asm.R15L:
		i, mask = int(r-x86asm.EAX), 0xffffffff
	case r >= x86asm.RAX && r <= x86asm.R15:
		i = int(r - x86asm.RAX)
	case r >= x86asm.AX && r <= x86asm.R15W:
		i, mask = int(r-x86asm.AX), 0xffff
	default:
		return 0, "", false
	}
	name := x86Names64[i]
	if mode == 32 {
		if i >= 8 {
			return 0, "", false
		}
		name = x86Names32[i]
	}
	return g.get(name) & mask, name, true
}

// x86Op is how an opcode rust-minidump models accesses each operand.
type x86Op struct {
	explicit []AccessType // by operand index; missing: no access
	stack    AccessType   // implicit stack access (AccessUnknown: none)
	push     bool         // the stack access is below the stack pointer
}

const rw, r, w = AccessReadWrite, AccessRead, AccessWrite

// The operand accesses of x86OpOf's opcodes (package-level: the linker
// lays them out, where a literal in the function would allocate).
var (
	accessRWR = []AccessType{rw, r}
	accessR   = []AccessType{r}
	accessRR  = []AccessType{r, r}
	accessRW  = []AccessType{rw}
	accessW   = []AccessType{w}
	accessWR  = []AccessType{w, r}
)

// x86OpOf is how rust-minidump models op's accesses; false for an opcode
// it does not model.
func x86OpOf(op x86asm.Op) (x86Op, bool) {
	switch op {
	case x86asm.ADD, x86asm.SUB:
		return x86Op{explicit: accessRWR}, true
	case x86asm.CALL, x86asm.LCALL, x86asm.PUSH:
		return x86Op{explicit: accessR, stack: w, push: true}, true
	case x86asm.JMP, x86asm.LJMP:
		return x86Op{explicit: accessR}, true
	case x86asm.CMP, x86asm.UCOMISS:
		return x86Op{explicit: accessRR}, true
	case x86asm.DEC, x86asm.INC:
		return x86Op{explicit: accessRW}, true
	case x86asm.POP:
		return x86Op{explicit: accessW, stack: r}, true
	case x86asm.MOV, x86asm.MOVAPS, x86asm.MOVUPS:
		return x86Op{explicit: accessWR}, true
	case x86asm.LEA:
		return x86Op{}, true // no access
	case x86asm.RET, x86asm.LRET:
		return x86Op{stack: r}, true
	case x86asm.JO, x86asm.JNO, x86asm.JB, x86asm.JAE, x86asm.JE, x86asm.JNE, x86asm.JA, x86asm.JBE,
		x86asm.JS, x86asm.JNS, x86asm.JP, x86asm.JNP, x86asm.JL, x86asm.JGE, x86asm.JG, x86asm.JLE:
		return x86Op{}, true
	}
	return x86Op{}, false
}

// analyzeX86 decodes code in 32- or 64-bit mode.
func analyzeX86(code []byte, in *Input, mode int) *decoded {
	if len(code) == 0 {
		return nil
	}
	inst, err := x86asm.Decode(code, mode)
	if err != nil || inst.Len == 0 || inst.Op == 0 {
		return nil
	}
	ip, _ := in.Context.IP()
	d := &decoded{text: formatX86(&inst)}
	g := &regs{ctx: in.Context, ok: true}
	d.accesses, d.registers = x86Accesses(&inst, g, ip, mode)
	d.known = g.ok && !x86SegmentBased(&inst)
	if !d.known {
		d.accesses = nil
	}
	d.ipUpdate = x86IPUpdate(&inst, in, mode)
	d.ipKnown = !x86Branch(inst.Op)
	d.props = x86Properties(inst.Op)
	return d
}

// x86SegmentBased tells an fs: or gs: operand, whose segment base (thread
// local storage) the context does not hold: its address is unknown.
func x86SegmentBased(inst *x86asm.Inst) bool {
	for _, a := range inst.Args {
		if m, ok := a.(x86asm.Mem); ok && (m.Segment == x86asm.FS || m.Segment == x86asm.GS) {
			return true
		}
	}
	return false
}

// x86MemSize is the size of the instruction's memory accesses: its memory
// operand's, or a stack word for pushes, pops, calls and returns; 0 when it
// touches no memory.
func x86MemSize(inst *x86asm.Inst, mode int) int {
	if n := x86StringSize(inst.Op); n > 0 {
		return n
	}
	for _, a := range inst.Args {
		if _, ok := a.(x86asm.Mem); ok {
			return inst.MemBytes
		}
	}
	switch inst.Op {
	case x86asm.PUSH, x86asm.POP:
		if inst.DataSize == 16 {
			return 2
		}
		return mode / 8
	case x86asm.CALL, x86asm.RET, x86asm.LCALL, x86asm.LRET:
		return mode / 8
	}
	return 0
}

// x86StringSize is the element size of a string instruction (x86asm
// leaves MemBytes 0 for them); 0 for other instructions.
func x86StringSize(op x86asm.Op) int {
	if !x86StringOp(x86Mnemonic(op)) {
		return 0
	}
	switch op.String()[len(op.String())-1] {
	case 'B':
		return 1
	case 'W':
		return 2
	case 'D':
		return 4
	case 'Q':
		return 8
	}
	return 0
}

func x86Accesses(inst *x86asm.Inst, g *regs, ip uint64, mode int) ([]Access, []string) {
	var regNames []string
	for _, a := range inst.Args {
		if m, ok := a.(x86asm.Mem); ok {
			for _, reg := range []x86asm.Reg{m.Base, m.Index} {
				if _, name, ok := x86RegValue(&regs{ctx: g.ctx, ok: true}, reg, mode); ok {
					regNames = append(regNames, name)
				}
			}
		}
	}
	sort.Strings(regNames)
	regNames = dedup(regNames)
	size := x86MemSize(inst, mode)
	if size == 0 {
		return nil, regNames
	}
	op, derivable := x86OpOf(inst.Op)
	var out []Access
	for i, a := range inst.Args {
		m, ok := a.(x86asm.Mem)
		if !ok {
			continue
		}
		t := AccessUnknown
		if derivable {
			if i >= len(op.explicit) {
				continue // lea: no access
			}
			t = op.explicit[i]
		}
		acc := x86Address(m, g, ip, inst.Len, mode)
		acc.Size, acc.Type = size, t
		out = append(out, acc)
	}
	if derivable && op.stack != AccessUnknown {
		if sp, ok := g.ctx.SP(); ok {
			addr := sp
			if op.push {
				addr = sp - uint64(size)
			}
			if mode == 32 {
				addr &= 0xffffffff
			}
			out = append(out, Access{Address: addr, Size: size, Type: op.stack, LikelyNull: addr == 0})
		}
	}
	return out, regNames
}

// x86Address computes a memory operand's address. A zero base register
// marks a likely null pointer, as rust-minidump does.
func x86Address(m x86asm.Mem, g *regs, ip uint64, length, mode int) Access {
	var a Access
	switch m.Base {
	case 0:
	case x86asm.RIP, x86asm.EIP:
		// The next instruction's address, as the CPU computes it.
		a.Address = ip + uint64(length)
	default:
		v, _, ok := x86RegValue(g, m.Base, mode)
		if !ok {
			g.ok = false
		}
		a.Address = v
		a.LikelyNull = v == 0
	}
	if m.Index != 0 {
		v, _, ok := x86RegValue(g, m.Index, mode)
		if !ok {
			g.ok = false
		}
		a.Address += v * uint64(max(m.Scale, 1))
	}
	a.Address += uint64(m.Disp)
	if mode == 32 {
		a.Address &= 0xffffffff
	}
	return a
}

// x86Branch reports whether op is an instruction whose target x86IPUpdate
// may not know: every other instruction leaves the instruction pointer to
// fall through.
func x86Branch(op x86asm.Op) bool {
	switch op {
	case x86asm.CALL, x86asm.LCALL, x86asm.JMP, x86asm.LJMP,
		x86asm.RET, x86asm.LRET, x86asm.IRET, x86asm.IRETD, x86asm.IRETQ,
		x86asm.JO, x86asm.JNO, x86asm.JB, x86asm.JAE, x86asm.JE, x86asm.JNE,
		x86asm.JA, x86asm.JBE, x86asm.JS, x86asm.JNS, x86asm.JP, x86asm.JNP,
		x86asm.JL, x86asm.JGE, x86asm.JG, x86asm.JLE,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ,
		x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		return true
	}
	return false
}

// x86IPUpdate is where a call, jump or return goes, when the registers or
// memory tell; conditional and relative branches are left unknown.
func x86IPUpdate(inst *x86asm.Inst, in *Input, mode int) *Access {
	word := mode / 8
	readWord := func(addr uint64) (uint64, bool) {
		b := make([]byte, word)
		if in.Memory.ReadMemory(addr, b) != nil {
			return 0, false
		}
		var v uint64
		for i := word - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v, true
	}
	update := func(v uint64) *Access { return &Access{Address: v, LikelyNull: v == 0} }
	ip, _ := in.Context.IP()
	switch inst.Op {
	case x86asm.CALL, x86asm.JMP:
		switch a := inst.Args[0].(type) {
		case x86asm.Reg:
			g := &regs{ctx: in.Context, ok: true}
			if v, _, ok := x86RegValue(g, a, mode); ok && g.ok {
				return update(v)
			}
		case x86asm.Mem:
			if x86SegmentBased(inst) {
				return nil
			}
			g := &regs{ctx: in.Context, ok: true}
			acc := x86Address(a, g, ip, inst.Len, mode)
			if g.ok {
				if v, ok := readWord(acc.Address); ok {
					return update(v)
				}
			}
		}
	case x86asm.RET:
		if sp, ok := in.Context.SP(); ok {
			if v, ok := readWord(sp); ok {
				return update(v)
			}
		}
	}
	return nil
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// x86Mnemonic is yaxpeax's name for op where x86asm's differs, else "".
func x86Mnemonic(op x86asm.Op) string {
	switch op {
	case x86asm.JE:
		return "jz"
	case x86asm.JNE:
		return "jnz"
	case x86asm.JAE:
		return "jnb"
	case x86asm.JBE:
		return "jna"
	case x86asm.CMOVE:
		return "cmovz"
	case x86asm.CMOVNE:
		return "cmovnz"
	case x86asm.CMOVAE:
		return "cmovnb"
	case x86asm.CMOVBE:
		return "cmovna"
	case x86asm.SETE:
		return "setz"
	case x86asm.SETNE:
		return "setnz"
	case x86asm.SETAE:
		return "setnb"
	case x86asm.SETBE:
		return "setna"
	case x86asm.MOVSB, x86asm.MOVSW, x86asm.MOVSD, x86asm.MOVSQ:
		return "movs"
	case x86asm.CMPSB, x86asm.CMPSW, x86asm.CMPSD, x86asm.CMPSQ:
		return "cmps"
	case x86asm.STOSB, x86asm.STOSW, x86asm.STOSD, x86asm.STOSQ:
		return "stos"
	case x86asm.LODSB, x86asm.LODSW, x86asm.LODSD, x86asm.LODSQ:
		return "lods"
	case x86asm.SCASB, x86asm.SCASW, x86asm.SCASD, x86asm.SCASQ:
		return "scas"
	case x86asm.LRET:
		return "retf"
	case x86asm.LCALL:
		return "callf"
	case x86asm.LJMP:
		return "jmpf"
	case x86asm.MOVSD_XMM:
		return "movsd"
	case x86asm.CMPSD_XMM:
		return "cmpsd"
	}
	return ""
}

// x86StringOp reports whether a yaxpeax mnemonic names a string instruction.
func x86StringOp(name string) bool {
	switch name {
	case "movs", "cmps", "stos", "lods", "scas":
		return true
	}
	return false
}

// x86SizeName is yaxpeax's operand size word for a byte count, or "".
func x86SizeName(size int) string {
	switch size {
	case 1:
		return "byte"
	case 2:
		return "word"
	case 4:
		return "dword"
	case 6:
		return "far"
	case 8:
		return "qword"
	case 10:
		return "mword"
	case 16:
		return "xmmword"
	case 32:
		return "ymmword"
	case 64:
		return "zmmword"
	}
	return ""
}

// formatX86 prints inst in yaxpeax-x86's Intel syntax.
func formatX86(inst *x86asm.Inst) string {
	var b strings.Builder
	name := x86Mnemonic(inst.Op)
	if name == "" {
		name = strings.ToLower(inst.Op.String())
	}
	for _, p := range inst.Prefix {
		if p == 0 {
			break
		}
		if p&(x86asm.PrefixIgnored|x86asm.PrefixInvalid) != 0 {
			continue
		}
		switch p &^ x86asm.PrefixImplicit {
		case x86asm.PrefixLOCK:
			b.WriteString("lock ")
		case x86asm.PrefixREP:
			if x86StringOp(name) {
				b.WriteString("rep ")
			}
		case x86asm.PrefixREPN:
			if x86StringOp(name) {
				b.WriteString("repnz ")
			}
		}
	}
	b.WriteString(name)
	for i, a := range inst.Args {
		if a == nil {
			break
		}
		if i == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(", ")
		}
		b.WriteString(formatX86Arg(inst, a))
	}
	return b.String()
}

func formatX86Arg(inst *x86asm.Inst, a x86asm.Arg) string {
	switch a := a.(type) {
	case x86asm.Reg:
		return x86RegName(a)
	case x86asm.Imm:
		return formatX86Imm(inst, uint64(a))
	case x86asm.Rel:
		if a >= 0 {
			return fmt.Sprintf("$+%#x", int64(a))
		}
		return fmt.Sprintf("$-%#x", -int64(a))
	case x86asm.Mem:
		var b strings.Builder
		size := inst.MemBytes
		if n := x86StringSize(inst.Op); n > 0 {
			size = n
		}
		if size == 0 && inst.Op == x86asm.LEA {
			size = inst.DataSize / 8
		}
		if s := x86SizeName(size); s != "" {
			b.WriteString(s + " ")
		}
		if a.Segment != 0 {
			b.WriteString(strings.ToLower(a.Segment.String()) + ":")
		}
		b.WriteString(formatX86Mem(inst, a))
		return b.String()
	}
	return strings.ToLower(a.String())
}

// formatX86Imm prints an immediate as yaxpeax does: sign-extended
// immediates of 16 bits or more as signed hex, bytes as unsigned.
func formatX86Imm(inst *x86asm.Inst, v uint64) string {
	bits := inst.DataSize
	if inst.MemBytes == 1 || bits == 0 {
		return fmt.Sprintf("%#x", v&0xff)
	}
	s := int64(v<<(64-bits)) >> (64 - bits)
	if s < 0 {
		return fmt.Sprintf("-%#x", uint64(-s))
	}
	return fmt.Sprintf("%#x", s)
}

func formatX86Mem(inst *x86asm.Inst, m x86asm.Mem) string {
	if m.Base == 0 && m.Index == 0 {
		if inst.Mode == 64 && inst.AddrSize == 64 && (m.Disp > 0xffffffff || m.Disp < -0x80000000) {
			return fmt.Sprintf("[%#x]", uint64(m.Disp))
		}
		return fmt.Sprintf("[%#x]", uint32(m.Disp))
	}
	var parts []string
	if m.Base != 0 {
		parts = append(parts, x86RegName(m.Base))
	}
	if m.Index != 0 {
		parts = append(parts, fmt.Sprintf("%s * %d", x86RegName(m.Index), max(m.Scale, 1)))
	}
	s := "[" + strings.Join(parts, " + ")
	switch {
	case m.Disp > 0:
		s += fmt.Sprintf(" + %#x", m.Disp)
	case m.Disp < 0:
		s += fmt.Sprintf(" - %#x", -m.Disp)
	}
	return s + "]"
}
