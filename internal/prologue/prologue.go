package prologue

import (
	"fmt"
	"sort"
)

// Arch is an instruction set.
type Arch uint8

// Instruction sets.
const (
	ARM   Arch = iota + 1 // A32
	Thumb                 // T32 (Thumb-2)
	ARM64                 // A64
	X86                   // IA-32
	AMD64                 // x86-64
)

func (a Arch) String() string {
	switch a {
	case ARM:
		return "arm"
	case Thumb:
		return "thumb"
	case ARM64:
		return "arm64"
	case X86:
		return "x86"
	case AMD64:
		return "amd64"
	}
	return "unknown"
}

// MaxBytes bounds the code Analyze reads from a function's start: gdb
// reads prologues of at most some 64 instructions too.
const MaxBytes = 256

// Frame is what the prologue instructions executed so far have done.
// Offsets are in bytes below the entry stack pointer (the stack pointer
// when the function's first instruction ran), as positive numbers.
type Frame struct {
	Arch Arch
	// SPBelow: the stack pointer is the entry stack pointer minus SPBelow.
	SPBelow int64
	// FPReg is the frame pointer register set up from the stack pointer
	// (-1: none): its value is the entry stack pointer minus FPBelow.
	FPReg   int
	FPBelow int64
	// Saved maps a register (see RegName) to its slot, SavedBelow bytes
	// below the entry stack pointer.
	Saved map[int]int64
	// Instructions is the number of instructions read; Stop says why the
	// analysis ended before the given address ("" when it reached it).
	Instructions int
	Stop         string
}

// Analyze reads the instructions of code, the bytes of a function from
// its first instruction (at address start), that end at or before pc.
func Analyze(a Arch, code []byte, start, pc uint64) Frame {
	f := Frame{Arch: a, FPReg: -1, Saved: map[int]int64{}}
	if pc < start {
		f.Stop = "address before the function's start"
		return f
	}
	n := pc - start
	if n > uint64(len(code)) {
		n = uint64(len(code))
	}
	if n > MaxBytes {
		n = MaxBytes
	}
	code = code[:n]
	var step func(*Frame, []byte) (int, string)
	switch a {
	case ARM:
		step = stepARM
	case Thumb:
		step = stepThumb
	case ARM64:
		step = stepARM64
	case X86:
		step = func(f *Frame, b []byte) (int, string) { return stepX86(f, b, false) }
	case AMD64:
		step = func(f *Frame, b []byte) (int, string) { return stepX86(f, b, true) }
	default:
		f.Stop = "unknown architecture"
		return f
	}
	for off := 0; off < len(code); {
		size, stop := step(&f, code[off:])
		if stop != "" {
			f.Stop = fmt.Sprintf("%#x: %s", start+uint64(off), stop)
			return f
		}
		off += size
		f.Instructions++
	}
	return f
}

// save records that reg was stored below bytes below the entry stack
// pointer, unless an earlier store saved it already (the later one saves
// a value the function computed).
func (f *Frame) save(reg int, below int64) {
	if _, ok := f.Saved[reg]; !ok {
		f.Saved[reg] = below
	}
}

// push records a push of regs (ascending register numbers land at
// ascending addresses, as STMDB and STP do) of size bytes each.
func (f *Frame) push(regs []int, size int64) {
	f.SPBelow += int64(len(regs)) * size
	for i, r := range regs {
		f.save(r, f.SPBelow-int64(i)*size)
	}
}

// Register numbers: ARM r0–r15 (13 sp, 14 lr, 15 pc); ARM64 x0–x30, 31
// sp; x86 and amd64 their encoding numbers (0 ax, 1 cx, 2 dx, 3 bx, 4 sp,
// 5 bp, 6 si, 7 di, 8–15 r8–r15) and 16 for the return address.
const (
	armSP, armLR, armPC = 13, 14, 15
	a64FP, a64LR, a64SP = 29, 30, 31
	x86SP, x86BP, x86RA = 4, 5, 16
)

// RegName returns Breakpad's STACK CFI name of register r.
func (a Arch) RegName(r int) string {
	switch a {
	case ARM, Thumb:
		switch r {
		case armSP:
			return "sp"
		case armLR:
			return "lr"
		case armPC:
			return "pc"
		}
		return fmt.Sprintf("r%d", r)
	case ARM64:
		if r == a64SP {
			return "sp"
		}
		return fmt.Sprintf("x%d", r)
	case X86:
		return "$" + [...]string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}[r&7]
	case AMD64:
		if r >= 8 {
			return fmt.Sprintf("$r%d", r)
		}
		return "$" + [...]string{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"}[r]
	}
	return "?"
}

// Rules returns the frame as Breakpad STACK CFI rules: ".cfa" (the stack
// pointer at the call: on x86 and amd64 above the pushed return address),
// ".ra" and a rule for every saved register.
func (f Frame) Rules() map[string]string {
	out := map[string]string{}
	word := int64(4)
	if f.Arch == ARM64 || f.Arch == AMD64 {
		word = 8
	}
	// cfaAbove: how far the CFA lies above the entry stack pointer.
	var cfaAbove int64
	sp := armSP
	switch f.Arch {
	case ARM64:
		sp = a64SP
	case X86, AMD64:
		sp, cfaAbove = x86SP, word
	}
	if f.FPReg >= 0 && f.FPReg != 12 { // ARM's ip holds sp only on its way into fp
		out[".cfa"] = fmt.Sprintf("%s %d +", f.Arch.RegName(f.FPReg), f.FPBelow+cfaAbove)
	} else {
		out[".cfa"] = fmt.Sprintf("%s %d +", f.Arch.RegName(sp), f.SPBelow+cfaAbove)
	}
	regs := make([]int, 0, len(f.Saved))
	for r := range f.Saved {
		regs = append(regs, r)
	}
	sort.Ints(regs)
	for _, r := range regs {
		if f.Arch.calleeSaved(r) {
			out[f.Arch.RegName(r)] = fmt.Sprintf(".cfa %d + ^", -(f.Saved[r] + cfaAbove))
		}
	}
	switch f.Arch {
	case ARM, Thumb:
		delete(out, "pc") // APCS frames store pc; the return address is lr
		if rule, ok := out["lr"]; ok {
			out[".ra"] = rule
		} else {
			out[".ra"] = "lr"
		}
	case ARM64:
		if rule, ok := out["x30"]; ok {
			out[".ra"] = rule
		} else {
			out[".ra"] = "x30"
		}
	default:
		out[".ra"] = fmt.Sprintf(".cfa %d + ^", -word)
	}
	return out
}

// calleeSaved reports whether the calling convention has the callee
// preserve r (AAPCS r4–r11; AAPCS64 x19–x29; System V i386 ebx, esi, edi,
// ebp; x86-64 rbx, rbp, r12–r15) or r holds the return address. Other
// registers a prologue stores (Thumb's `push {r3, lr}` keeping the stack
// aligned, a stack protector's canary) are no saved values of the caller.
func (a Arch) calleeSaved(r int) bool {
	switch a {
	case ARM, Thumb:
		return r >= 4 && r <= 11 || r == armLR
	case ARM64:
		return r >= 19 && r <= 30
	case X86:
		return r == 3 || r == 5 || r == 6 || r == 7
	case AMD64:
		return r == 3 || r == 5 || r >= 12 && r <= 15
	}
	return false
}
