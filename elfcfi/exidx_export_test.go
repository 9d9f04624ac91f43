package elfcfi

import (
	"fmt"
	"sort"
	"strings"
)

// Find returns the entry covering pc. The linker sorts .ARM.exidx by
// address; a hostile unsorted table gives wrong answers but no crash.
func (x *Exidx) Find(pc uint64) (*ExidxEntry, error) {
	n := x.Len()
	i := sort.Search(n, func(i int) bool { return x.funcAt(i) > pc }) - 1
	if i < 0 {
		return nil, ErrNotFound
	}
	return x.Entry(i)
}

// String renders the opcode as readelf -u does, so tests can compare.
func (o ExidxOp) String() string {
	switch o.Kind {
	case OpVSPAdd:
		return fmt.Sprintf("vsp = vsp + %d", o.Value)
	case OpVSPSub:
		return fmt.Sprintf("vsp = vsp - %d", o.Value)
	case OpRefuse:
		return "refuse to unwind"
	case OpPopCore:
		var regs []string
		for r := 0; r < 16; r++ {
			if o.Mask&(1<<r) != 0 {
				regs = append(regs, fmt.Sprintf("r%d", r))
			}
		}
		return "pop {" + strings.Join(regs, ", ") + "}"
	case OpVSPFromReg:
		return fmt.Sprintf("vsp = r%d", o.Reg)
	case OpFinish:
		return "finish"
	case OpPopVFP:
		pre := ""
		if o.FSTMFDX {
			pre = "fstmfdx "
		}
		if o.Count == 1 {
			return fmt.Sprintf("pop {%sD%d}", pre, o.Reg)
		}
		return fmt.Sprintf("pop {%sD%d-D%d}", pre, o.Reg, int(o.Reg)+int(o.Count)-1)
	case OpPopWMMX:
		if o.Count == 1 {
			return fmt.Sprintf("pop {wR%d}", o.Reg)
		}
		return fmt.Sprintf("pop {wR%d-wR%d}", o.Reg, int(o.Reg)+int(o.Count)-1)
	case OpPopWCGR:
		var regs []string
		for r := 0; r < 4; r++ {
			if o.Mask&(1<<r) != 0 {
				regs = append(regs, fmt.Sprintf("wCGR%d", r))
			}
		}
		return "pop {" + strings.Join(regs, ", ") + "}"
	}
	return "[spare]"
}
