package crashinfo

import (
	"math/bits"
	"strings"
	"sync"

	"golang.org/x/arch/arm/armasm"
)

// arm in ARM state: armasm decodes, the text is GNU syntax (objdump's).
// armasm has no Thumb decoder; thumb.go decodes Thumb's loads and stores.

// armasmMu serialises armasm.Decode, which records decoder coverage in a
// package variable without a lock.
var armasmMu sync.Mutex

func analyzeARM(code []byte, in *Input) *decoded {
	if len(code) < 4 {
		return nil
	}
	armasmMu.Lock()
	inst, err := armasm.Decode(code[:4], armasm.ModeARM)
	armasmMu.Unlock()
	if err != nil || inst.Op == 0 {
		return nil
	}
	d := &decoded{text: armasm.GNUSyntax(inst), known: true}
	g := &regs{ctx: in.Context, ok: true}
	ip, _ := in.Context.IP()
	d.accesses, d.registers = armAccesses(&inst, g, ip)
	if !g.ok {
		d.known, d.accesses = false, nil
	}
	d.ipUpdate, d.ipKnown = armIPUpdate(&inst, in, d.accesses)
	return d
}

// armIPUpdate: bx and blx go to a register, loads into pc to the loaded
// word; relative branches and writes to pc by data processing are left
// unknown; everything else does not branch.
func armIPUpdate(inst *armasm.Inst, in *Input, accesses []Access) (*Access, bool) {
	op, _, _ := strings.Cut(inst.Op.String(), ".")
	switch op {
	case "BX", "BLX":
		if r, ok := inst.Args[0].(armasm.Reg); ok {
			g := &regs{ctx: in.Context, ok: true}
			v := armReg(g, int(r-armasm.R0), 0, 8) &^ 1 // bit 0 selects Thumb state
			if g.ok {
				return &Access{Address: v, LikelyNull: v == 0}, true
			}
		}
		return nil, false
	case "B", "BL":
		return nil, false
	}
	for i, a := range inst.Args {
		switch a := a.(type) {
		case armasm.Reg:
			if a != armasm.PC || i != 0 {
				continue
			}
			if _, load, ok := armOpSize(op); ok {
				return loadedPC(load, 0, []int{15}, accesses, in.Memory)
			}
			return nil, false // pc written by data processing
		case armasm.RegList:
			if strings.HasPrefix(op, "LDM") || op == "POP" {
				return loadedPC(true, uint16(a), nil, accesses, in.Memory)
			}
		}
	}
	return nil, true
}

var armRegNames = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "fp", "r12", "sp", "lr", "pc"}

// armReg reads register n; pc reads as the instruction's address plus
// pcAhead (8 in ARM state, 4 in Thumb state).
func armReg(g *regs, n int, ip, pcAhead uint64) uint64 {
	if n == 15 {
		return ip + pcAhead
	}
	return g.get(armRegNames[n]) & 0xffffffff
}

// armOpSize is the access size of a single load or store by its mnemonic.
func armOpSize(op string) (size int, load, ok bool) {
	switch {
	case strings.HasPrefix(op, "LDR"):
		load = true
	case strings.HasPrefix(op, "STR"):
	default:
		return 0, false, false
	}
	suffix := strings.TrimSuffix(op[3:], "T")
	switch suffix {
	case "", "EX":
		return 4, load, true
	case "B", "SB", "EXB":
		return 1, load, true
	case "H", "SH", "EXH":
		return 2, load, true
	case "D", "EXD":
		return 4, load, true // two words, one access each
	}
	return 0, false, false
}

func armAccesses(inst *armasm.Inst, g *regs, ip uint64) ([]Access, []string) {
	op, _, _ := strings.Cut(inst.Op.String(), ".")
	switch op {
	case "PUSH", "POP", "LDM", "LDMIA", "LDMDA", "LDMDB", "LDMIB", "STM", "STMIA", "STMDA", "STMDB", "STMIB":
		return armListAccesses(inst, op, g)
	}
	size, load, ok := armOpSize(op)
	if !ok {
		return nil, nil
	}
	t := AccessWrite
	if load {
		t = AccessRead
	}
	n := 1
	if op == "LDRD" || op == "STRD" || op == "LDREXD" || op == "STREXD" {
		n = 2
	}
	for _, a := range inst.Args {
		var base Access
		var names []string
		switch m := a.(type) {
		case armasm.Mem:
			bn := int(m.Base - armasm.R0)
			b := armReg(g, bn, ip, 8)
			names = appendName(names, armRegNames[bn])
			base = Access{Address: b, LikelyNull: b == 0 && bn != 15}
			if m.Mode != armasm.AddrPostIndex && m.Mode != armasm.AddrLDM {
				var x uint64
				if m.Sign != 0 {
					xn := int(m.Index - armasm.R0)
					names = appendName(names, armRegNames[xn])
					x = armShift(armReg(g, xn, ip, 8), m.Shift, m.Count)
					if m.Sign < 0 {
						x = -x
					}
				} else {
					x = uint64(int64(m.Offset))
				}
				base.Address = (base.Address + x) & 0xffffffff
			}
		case armasm.PCRel:
			base = Access{Address: (ip + 8 + uint64(int64(m))) & 0xffffffff}
		default:
			continue
		}
		var out []Access
		for i := 0; i < n; i++ {
			acc := base
			acc.Address = (acc.Address + uint64(4*i)) & 0xffffffff
			acc.Size, acc.Type = size, t
			out = append(out, acc)
		}
		return out, names
	}
	return nil, nil
}

func armShift(v uint64, s armasm.Shift, count uint8) uint64 {
	v &= 0xffffffff
	switch s {
	case armasm.ShiftLeft:
		v <<= count
	case armasm.ShiftRight:
		v >>= count
	case armasm.ShiftRightSigned:
		v = uint64(int32(v) >> count)
	case armasm.RotateRight:
		v = uint64(bits.RotateLeft32(uint32(v), -int(count)))
	}
	return v & 0xffffffff
}

// armListAccesses covers the load and store multiple forms.
func armListAccesses(inst *armasm.Inst, op string, g *regs) ([]Access, []string) {
	base := 13 // push and pop use sp
	var list armasm.RegList
	for _, a := range inst.Args {
		switch a := a.(type) {
		case armasm.Reg:
			base = int(a - armasm.R0)
		case armasm.RegX:
			base = int(a.Reg - armasm.R0)
		case armasm.RegList:
			list = a
		}
	}
	load := op == "POP" || strings.HasPrefix(op, "LDM")
	mode := "IA"
	switch {
	case op == "PUSH":
		mode = "DB"
	case len(op) == 5:
		mode = op[3:]
	}
	return multipleAccesses(g, base, uint16(list), load, mode), []string{armRegNames[base]}
}

// multipleAccesses lists the word accesses of a load or store multiple:
// registers in ascending order at ascending addresses, starting at the base
// (IA), after it (IB), or ending at (DA) or before (DB) it.
func multipleAccesses(g *regs, base int, list uint16, load bool, mode string) []Access {
	b := g.get(armRegNames[base]) & 0xffffffff
	n := uint64(bits.OnesCount16(list))
	var start uint64
	switch mode {
	case "IA":
		start = b
	case "IB":
		start = b + 4
	case "DA":
		start = b - 4*n + 4
	case "DB":
		start = b - 4*n
	}
	t := AccessWrite
	if load {
		t = AccessRead
	}
	var out []Access
	for i := uint64(0); i < n; i++ {
		a := (start + 4*i) & 0xffffffff
		out = append(out, Access{Address: a, Size: 4, Type: t, LikelyNull: b == 0 && base != 13})
	}
	return out
}

// armRegListText prints a register list as objdump does: "{r4, r7, lr}".
func armRegListText(list uint16) string {
	var names []string
	for i := 0; i < 16; i++ {
		if list&(1<<i) != 0 {
			names = append(names, armRegNames[i])
		}
	}
	return "{" + strings.Join(names, ", ") + "}"
}
