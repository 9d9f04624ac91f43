package arm64

import (
	"encoding/binary"
	"strconv"
	"testing"
)

// TestSigreturnCode checks the trampoline's bytes against its two
// instructions: movz x8, #nrSigreturn (0xd2800008 | imm16<<5) and svc #0.
func TestSigreturnCode(t *testing.T) {
	want := binary.LittleEndian.AppendUint32(nil, 0xd2800008|nrSigreturn<<5)
	want = binary.LittleEndian.AppendUint32(want, 0xd4000001)
	if string(sigreturnCode) != string(want) {
		t.Errorf("sigreturnCode = % x, want % x", sigreturnCode, want)
	}
}

// TestCFIRegs checks the table by its rule: x0-x30 by index, x19-x29
// callee-saved (AAPCS64), then sp and pc.
func TestCFIRegs(t *testing.T) {
	if len(cfiRegs) != 33 {
		t.Fatalf("%d registers, want 33", len(cfiRegs))
	}
	for i, r := range cfiRegs[:31] {
		if r.Index != i || r.Name != "x"+strconv.Itoa(i) || r.CalleeSaves != (i >= 19 && i <= 29) || r.Alt != "" {
			t.Errorf("cfiRegs[%d] = %+v", i, r)
		}
	}
	if r := cfiRegs[31]; r.Index != regSP || r.Name != "sp" || r.Alt != ".cfa" || r.CalleeSaves {
		t.Errorf("cfiRegs[31] = %+v", r)
	}
	if r := cfiRegs[32]; r.Index != regPC || r.Name != "pc" || r.Alt != ".ra" || r.CalleeSaves {
		t.Errorf("cfiRegs[32] = %+v", r)
	}
}
