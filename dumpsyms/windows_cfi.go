package dumpsyms

import (
	"bufio"
	"fmt"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

// maxUnwindChain bounds the chained UNWIND_INFO followed for one function
// (hostile images may chain in a loop).
const maxUnwindChain = 32

// writeX64CFI writes a STACK CFI INIT record per x64 RUNTIME_FUNCTION as
// Breakpad's Windows dump_syms does (PrintPEFrameData): the CFA is the
// stack pointer plus everything the prologue pushed and allocated (8 for
// the return address, 8 per push, each allocation, a machine frame),
// following chained entries, and the return address is 8 below the CFA
// (88 below after a machine frame). Unless breakpadCompat, the saved
// registers' rules follow (see x64Frame). Like Breakpad's, the records
// hold the frame after the prologue only; the walker reads the full unwind
// codes from the image itself (package pe).
func writeX64CFI(w *bufio.Writer, img *pe.File, breakpadCompat bool) error {
	if img.Machine != pe.MachineAMD64 {
		return nil
	}
	fns, err := img.RuntimeFunctions()
	if err != nil {
		return err
	}
	for _, fn := range fns {
		f, ok := x64Frame(img, fn)
		if !ok {
			continue
		}
		if breakpadCompat {
			f.saved = ""
		}
		fmt.Fprintf(w, "STACK CFI INIT %x %x .cfa: $rsp %d +%s .ra: .cfa %d - ^\n", fn.Begin, fn.End-fn.Begin, f.stack, f.saved, f.ra)
	}
	return nil
}

var x64RegNames = [16]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}

// x64FrameInfo is a function's frame after its prologue: the CFA's
// distance from the stack pointer, the return address's below the CFA,
// and the rules of the registers it saves.
type x64FrameInfo struct {
	stack, ra uint64
	saved     string
}

// x64Frame adds up the prologue's unwind codes (and its chained
// entries'). Beyond Breakpad's records it gives the saved registers, as
// symbolic does: a push in prologue order lands 8 below the one before
// it, a SAVE_NONVOL at its offset from the stack pointer after the
// allocations (the CFA minus the frame's size). Functions with a frame
// register get no register rules: their save offsets are from the frame
// register, which the CFA does not describe.
func x64Frame(img *pe.File, fn pe.RuntimeFunction) (x64FrameInfo, bool) {
	f := x64FrameInfo{stack: 8, ra: 8}
	var pushes []uint8
	type save struct {
		reg uint8
		off uint32
	}
	var saves []save
	framed := false
	rva := fn.UnwindInfo
	for range maxUnwindChain {
		u, err := img.UnwindInfoAt(rva)
		if err != nil {
			return f, false
		}
		framed = framed || u.FrameRegister != 0
		for _, c := range u.Codes {
			switch c.Op {
			case pe.OpPushNonvol:
				f.stack += 8
				pushes = append(pushes, c.Info)
			case pe.OpAllocLarge, pe.OpAllocSmall:
				f.stack += uint64(c.Value)
			case pe.OpSaveNonvol, pe.OpSaveNonvolFar:
				saves = append(saves, save{c.Info, c.Value})
			case pe.OpPushMachFrame:
				f.stack += 80
				if c.Info != 0 {
					f.stack += 8
				}
				f.ra += 80
			}
		}
		if u.Chained == nil {
			break
		}
		rva = u.Chained.UnwindInfo
	}
	if framed {
		return f, true
	}
	var b []byte
	// The codes list the last prologue instruction first: the last push
	// in the list was the first made, at CFA-16.
	for i := len(pushes) - 1; i >= 0; i-- {
		if pushes[i] < 16 {
			b = fmt.Appendf(b, " $%s: .cfa %d - ^", x64RegNames[pushes[i]], 16+8*(len(pushes)-1-i))
		}
	}
	for _, sv := range saves {
		if sv.reg < 16 {
			b = fmt.Appendf(b, " $%s: .cfa %d - ^", x64RegNames[sv.reg], int64(f.stack)-int64(sv.off))
		}
	}
	f.saved = string(b)
	return f, true
}
