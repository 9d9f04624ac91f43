package elfcfi

import (
	"errors"
	"fmt"
)

// ARMRegs are the core registers r0-r15 of a 32-bit ARM frame; bit n of
// Valid says R[n] is known.
type ARMRegs struct {
	R     [16]uint32
	Valid uint16
}

// Set sets register n and marks it valid.
func (r *ARMRegs) Set(n int, v uint32) {
	r.R[n] = v
	r.Valid |= 1 << n
}

// Get returns register n if it is valid.
func (r *ARMRegs) Get(n int) (uint32, bool) {
	return r.R[n], r.Valid&(1<<n) != 0
}

const (
	armSP = 13
	armLR = 14
	armPC = 15
)

// ErrCantUnwind is returned for entries marked EXIDX_CANTUNWIND and for the
// "refuse to unwind" opcode: the code (often the outermost frame) says it
// has no caller to find.
var ErrCantUnwind = errors.New("elfcfi: the exidx entry refuses unwinding")

// Unwind executes the entry's opcodes on the callee's registers and memory
// (mem reads size bytes at addr) and returns the caller's registers: popped
// registers from the stack, sp the final vsp, and pc the popped pc or else
// lr. Registers the opcodes do not touch keep the callee's values, as the
// EHABI's virtual register set does.
func (e *ExidxEntry) Unwind(callee ARMRegs, mem func(addr uint64, size int) (uint64, bool)) (ARMRegs, error) {
	if e.CantUnwind {
		return ARMRegs{}, ErrCantUnwind
	}
	ops, err := DecodeExidxOps(e.Ops)
	if err != nil {
		return ARMRegs{}, err
	}
	regs := callee
	vsp, ok := regs.Get(armSP)
	if !ok {
		return ARMRegs{}, fmt.Errorf("elfcfi: exidx unwind: sp not known")
	}
	popped := uint16(0)
	for i, op := range ops {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("elfcfi: exidx entry for %#x, opcode %d (%s): %s", e.Func, i, op, fmt.Sprintf(format, args...))
		}
		switch op.Kind {
		case OpFinish:
			return finishARM(regs, vsp, popped), nil
		case OpVSPAdd:
			vsp += uint32(op.Value)
		case OpVSPSub:
			vsp -= uint32(op.Value)
		case OpRefuse:
			return ARMRegs{}, ErrCantUnwind
		case OpSpare:
			return ARMRegs{}, fail("spare or reserved opcode")
		case OpVSPFromReg:
			v, ok := regs.Get(int(op.Reg))
			if !ok {
				return ARMRegs{}, fail("r%d not known", op.Reg)
			}
			vsp = v
		case OpPopCore:
			for r := 0; r < 16; r++ {
				if op.Mask&(1<<r) == 0 {
					continue
				}
				v, ok := mem(uint64(vsp), 4)
				if !ok {
					return ARMRegs{}, fail("stack at %#x not readable", vsp)
				}
				regs.Set(r, uint32(v))
				vsp += 4
			}
			popped |= op.Mask
			if op.Mask&(1<<armSP) != 0 {
				vsp = regs.R[armSP]
			}
		case OpPopVFP, OpPopWMMX, OpPopWCGR:
			vsp += uint32(op.Value) // registers we do not track
		}
	}
	return finishARM(regs, vsp, popped), nil
}

func finishARM(regs ARMRegs, vsp uint32, popped uint16) ARMRegs {
	regs.Set(armSP, vsp)
	if popped&(1<<armPC) == 0 {
		if lr, ok := regs.Get(armLR); ok {
			regs.Set(armPC, lr)
		} else {
			regs.Valid &^= 1 << armPC
		}
	}
	return regs
}
