package dumpsyms

import (
	"debug/elf"
	"fmt"
	"sort"

	"github.com/minidump-stackwalk/minidump-stackwalk/elfcfi"
)

// exidxEntries converts .ARM.exidx entries into STACK CFI records, for the
// functions no DWARF entry in covered starts in. An entry's range ends at
// the next entry's function, or at the end of its section for the last one.
func exidxEntries(x *elfcfi.Exidx, f *elf.File, li loadInfo, covered []*cfiEntry) []*cfiEntry {
	starts := make([][2]uint64, 0, len(covered))
	for _, e := range covered {
		starts = append(starts, [2]uint64{e.addr, e.addr + e.size})
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i][0] < starts[j][0] })
	isCovered := func(a uint64) bool {
		i := sort.Search(len(starts), func(i int) bool { return starts[i][0] > a }) - 1
		return i >= 0 && a < starts[i][1]
	}
	var out []*cfiEntry
	for i := 0; i < x.Len(); i++ {
		e, err := x.Entry(i)
		if err != nil || e.CantUnwind || !li.contains(e.Func) || isCovered(e.Func) {
			continue
		}
		end := e.End
		if end == ^uint64(0) {
			end = sectionEnd(f, e.Func)
		}
		if end <= e.Func {
			continue
		}
		rules, ok := exidxRules(e.Ops)
		if !ok {
			continue
		}
		out = append(out, &cfiEntry{addr: e.Func, size: end - e.Func, initial: rules,
			changes: map[uint64]map[string]string{}})
	}
	return out
}

func sectionEnd(f *elf.File, addr uint64) uint64 {
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && addr >= s.Addr && addr < s.Addr+s.Size {
			return s.Addr + s.Size
		}
	}
	return addr
}

// exidxRules runs EHABI opcodes symbolically: vsp is base+offset, where
// base is a postfix expression of the callee's registers (sp at first); each
// popped register is saved at the vsp of its pop. The CFA is the final vsp,
// the return address the popped pc, else lr. Opcodes that refuse unwinding,
// spare ones and vsp set from a register not yet known give false.
func exidxRules(opBytes []byte) (map[string]string, bool) {
	ops, err := elfcfi.DecodeExidxOps(opBytes)
	if err != nil {
		return nil, false
	}
	base, off := "sp", int64(0)
	// The rule of each register, once popped or still the callee's.
	saved := map[int]savedAt{}
	for _, op := range ops {
		if op.Kind == elfcfi.OpFinish {
			break
		}
		switch op.Kind {
		case elfcfi.OpVSPAdd:
			off += int64(op.Value)
		case elfcfi.OpVSPSub:
			off -= int64(op.Value)
		case elfcfi.OpPopCore:
			for r := 0; r < 16; r++ {
				if op.Mask&(1<<r) != 0 {
					saved[r] = savedAt{base, off}
					off += 4
				}
			}
			if op.Mask&(1<<13) != 0 { // sp popped: vsp is its value
				base, off = saved[13].deref(), 0
			}
			if len(base) > maxRuleLen {
				return nil, false // hostile chains of loads
			}
		case elfcfi.OpVSPFromReg:
			if s, ok := saved[int(op.Reg)]; ok {
				base = s.deref()
			} else {
				base = armRegName(int(op.Reg))
			}
			off = 0
			if len(base) > maxRuleLen {
				return nil, false
			}
		case elfcfi.OpPopVFP, elfcfi.OpPopWMMX, elfcfi.OpPopWCGR:
			off += int64(op.Value)
		default:
			return nil, false
		}
	}
	cfa := savedAt{base, off}
	rules := map[string]string{".cfa": cfa.value()}
	for r, s := range saved {
		if r == 13 {
			continue // the caller's sp is the CFA
		}
		rules[armRegName(r)] = s.relativeTo(cfa)
	}
	switch {
	case rules["pc"] != "":
		rules[".ra"] = rules["pc"]
		delete(rules, "pc")
	case rules["lr"] != "":
		rules[".ra"] = rules["lr"]
	default:
		rules[".ra"] = "lr"
	}
	return rules, true
}

// maxRuleLen bounds a rule's text: each vsp loaded from the stack nests
// the previous one.
const maxRuleLen = 1024

// savedAt is an address base+off.
type savedAt struct {
	base string
	off  int64
}

func (s savedAt) value() string { return fmt.Sprintf("%s %d +", s.base, s.off) }

func (s savedAt) deref() string { return s.value() + " ^" }

// relativeTo writes the load from s relative to the CFA when they share a
// base, as Breakpad's own ARM records do.
func (s savedAt) relativeTo(cfa savedAt) string {
	if s.base == cfa.base {
		return fmt.Sprintf(".cfa %d + ^", s.off-cfa.off)
	}
	return s.deref()
}

// armRegName names core register r (0-15), the only ones exidx restores.
func armRegName(r int) string {
	return armCoreRegNames[r]
}
