package crashinfo

import (
	"strconv"
	"strings"

	"golang.org/x/arch/arm64/arm64asm"
)

// arm64: the instruction is printed in GNU syntax (as objdump does), and
// every load and store gets its accesses: loads read, stores write, pairs
// give one access per register.

func analyzeARM64(code []byte, in *Input) *decoded {
	if len(code) < 4 {
		return nil
	}
	inst, err := arm64asm.Decode(code[:4])
	if err != nil || inst.Op == 0 {
		return nil
	}
	d := &decoded{text: spaceAfterCommas(arm64asm.GNUSyntax(inst)), known: true}
	g := &regs{ctx: in.Context, ok: true}
	ip, _ := in.Context.IP()
	d.accesses, d.registers = arm64Accesses(&inst, g, ip)
	if !g.ok {
		d.known, d.accesses = false, nil
	}
	d.ipUpdate = arm64IPUpdate(&inst, in)
	switch inst.Op {
	case arm64asm.B, arm64asm.BL, arm64asm.CBZ, arm64asm.CBNZ, arm64asm.TBZ, arm64asm.TBNZ,
		arm64asm.BR, arm64asm.BLR, arm64asm.RET, arm64asm.ERET:
	default:
		d.ipKnown = true
	}
	return d
}

// arm64RegValue reads a general register (W forms are the low half).
func arm64RegValue(g *regs, name string) (uint64, string) {
	name = strings.ToLower(name)
	switch {
	case name == "sp" || name == "wsp":
		return g.get("sp") & arm64Mask(name), "sp"
	case name == "xzr" || name == "wzr":
		return 0, ""
	case strings.HasPrefix(name, "x"):
		return g.get(name), name
	case strings.HasPrefix(name, "w"):
		x := "x" + name[1:]
		return g.get(x) & 0xffffffff, x
	}
	g.ok = false
	return 0, ""
}

func arm64Mask(name string) uint64 {
	if strings.HasPrefix(name, "w") {
		return 0xffffffff
	}
	return ^uint64(0)
}

// arm64RegSize is a transfer register's size from its name's letter.
func arm64RegSize(a arm64asm.Arg) int {
	if a == nil {
		return 0
	}
	s := a.String()
	if s == "" {
		return 0
	}
	switch s[0] {
	case 'W':
		return 4
	case 'X':
		return 8
	case 'B':
		return 1
	case 'H':
		return 2
	case 'S':
		return 4
	case 'D':
		return 8
	case 'Q':
		return 16
	}
	return 0
}

func arm64Accesses(inst *arm64asm.Inst, g *regs, ip uint64) ([]Access, []string) {
	op := inst.Op.String()
	isLoad, isStore := strings.HasPrefix(op, "LD"), strings.HasPrefix(op, "ST")
	if !isLoad && !isStore {
		return nil, nil // PRFM and the rest touch no data memory
	}
	// The transfer registers come first; exclusive stores lead with a
	// status register.
	args := inst.Args[:]
	if strings.HasPrefix(op, "STXR") || strings.HasPrefix(op, "STLXR") ||
		strings.HasPrefix(op, "STXP") || strings.HasPrefix(op, "STLXP") {
		args = args[1:]
	}
	var transfer []arm64asm.Arg
	var base Access
	var regNames []string
	found := false
	for _, a := range args {
		if a == nil {
			break
		}
		switch m := a.(type) {
		case arm64asm.MemImmediate:
			v, name := arm64RegValue(g, m.Base.String())
			regNames = appendName(regNames, name)
			if m.Mode == arm64asm.AddrOffset || m.Mode == arm64asm.AddrPreIndex {
				v += uint64(int64(memImmediateOffset(m)))
			}
			base, found = Access{Address: v, LikelyNull: v == 0 && name != "sp"}, true
		case arm64asm.MemExtend:
			b, bname := arm64RegValue(g, m.Base.String())
			x, xname := arm64RegValue(g, m.Index.String())
			regNames = appendName(appendName(regNames, bname), xname)
			x = arm64Extend(x, m.Extend)
			if !m.ShiftMustBeZero {
				x <<= m.Amount
			}
			base, found = Access{Address: b + x, LikelyNull: b == 0}, true
		case arm64asm.PCRel:
			base, found = Access{Address: ip + uint64(int64(m))}, true
		default:
			if !found {
				transfer = append(transfer, a)
			}
		}
	}
	if !found || len(transfer) == 0 {
		return nil, regNames
	}
	size := arm64RegSize(transfer[0])
	if n := arm64OpSize(op); n > 0 {
		size = n
	}
	if len(op) >= 3 && op[2] >= '1' && op[2] <= '4' {
		size = 0 // LD1..ST4 vector structures: the size depends on the arrangement
	}
	t := AccessRead
	if isStore {
		t = AccessWrite
	}
	n := 1
	if strings.HasSuffix(op, "P") || op == "LDPSW" { // pairs: one access per register
		n = len(transfer)
	}
	var out []Access
	for i := 0; i < n; i++ {
		a := base
		a.Address += uint64(i * size)
		a.Size, a.Type = size, t
		out = append(out, a)
	}
	return out, regNames
}

func appendName(names []string, n string) []string {
	if n == "" {
		return names
	}
	for _, x := range names {
		if x == n {
			return names
		}
	}
	return append(names, n)
}

// memImmediateOffset recovers the immediate of a MemImmediate, which
// arm64asm keeps unexported but prints as "#imm".
func memImmediateOffset(m arm64asm.MemImmediate) int64 {
	s := m.String()
	i := strings.IndexByte(s, '#')
	if i < 0 {
		return 0
	}
	j := i + 1
	for j < len(s) && (s[j] == '-' || s[j] >= '0' && s[j] <= '9') {
		j++
	}
	v, err := strconv.ParseInt(s[i+1:j], 10, 64)
	if err != nil {
		return 0
	}
	return v
}

func arm64Extend(x uint64, e arm64asm.ExtShift) uint64 {
	switch strings.ToLower(e.String()) {
	case "uxtw":
		return x & 0xffffffff
	case "sxtw":
		return uint64(int64(int32(x)))
	}
	return x
}

// arm64IPUpdate is the target of a register branch or return.
func arm64IPUpdate(inst *arm64asm.Inst, in *Input) *Access {
	switch inst.Op {
	case arm64asm.BR, arm64asm.BLR, arm64asm.RET:
		name := "x30"
		if inst.Args[0] != nil {
			name = inst.Args[0].String()
		}
		g := &regs{ctx: in.Context, ok: true}
		v, _ := arm64RegValue(g, name)
		if g.ok {
			return &Access{Address: v, LikelyNull: v == 0}
		}
	}
	return nil
}

// arm64OpSize is the access size the opcode fixes (byte, halfword and
// sign-extending word forms); 0 when the register's size decides.
func arm64OpSize(op string) int {
	switch op {
	case "LDRB", "STRB", "LDRSB", "LDURB", "STURB", "LDURSB", "LDTRB", "STTRB", "LDTRSB",
		"LDARB", "STLRB", "LDAXRB", "STLXRB", "LDXRB", "STXRB":
		return 1
	case "LDRH", "STRH", "LDRSH", "LDURH", "STURH", "LDURSH", "LDTRH", "STTRH", "LDTRSH",
		"LDARH", "STLRH", "LDAXRH", "STLXRH", "LDXRH", "STXRH":
		return 2
	case "LDRSW", "LDURSW", "LDTRSW", "LDPSW":
		return 4
	}
	return 0
}

// spaceAfterCommas spells operands as objdump does ("[sp, #16]" where
// arm64asm's GNU syntax writes "[sp,#16]").
func spaceAfterCommas(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == ',' && i+1 < len(s) && s[i+1] != ' ' {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
