package prologue

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readObjdump is the oracle's frame: it reads objdump's mnemonics and
// operands of c's instructions before its call, independently of the
// decoders under test, and stops at the first branch.
func readObjdump(t *testing.T, c goldenCase) Frame {
	f := Frame{Arch: c.arch, FPReg: -1, Saved: map[int]int64{}}
	ip := int64(-1) // ARM: ip holds the stack pointer minus this
	for _, l := range c.lines {
		if l.addr >= c.callPC {
			break
		}
		fields := strings.Fields(l.text)
		if len(fields) == 0 {
			continue
		}
		mn, ops := fields[0], strings.Join(fields[1:], " ")
		for _, comment := range []string{" @", " //", " <"} {
			if i := strings.Index(ops, comment); i >= 0 {
				ops = ops[:i]
			}
		}
		if c.arch == X86 || c.arch == AMD64 {
			if i := strings.Index(ops, " #"); i >= 0 {
				ops = ops[:i]
			}
		}
		if forwardConditional(c.arch, mn, ops, l.addr) {
			continue
		}
		var stop bool
		switch c.arch {
		case ARM, Thumb:
			stop = readARM(t, &f, &ip, mn, ops)
		case ARM64:
			stop = readARM64(t, &f, mn, ops)
		default:
			stop = readX86(t, &f, mn, ops, c.arch == AMD64)
		}
		if stop {
			break
		}
	}
	for r := range f.Saved {
		if !c.arch.calleeSaved(r) {
			delete(f.Saved, r)
		}
	}
	return f
}

var armRegs = map[string]int{"sb": 9, "sl": 10, "fp": 11, "ip": 12, "sp": 13, "lr": 14, "pc": 15}

func armReg(t *testing.T, s string) int {
	s = strings.TrimSpace(s)
	if r, ok := armRegs[s]; ok {
		return r
	}
	if strings.HasPrefix(s, "r") {
		if n, err := strconv.Atoi(s[1:]); err == nil {
			return n
		}
	}
	t.Fatalf("register %q", s)
	return -1
}

// regSet reads "{r4, r5, lr}" (ranges "r4-r7" too).
func regSet(t *testing.T, s string) []int {
	s = s[strings.Index(s, "{")+1 : strings.Index(s, "}")]
	var out []int
	for _, p := range strings.Split(s, ",") {
		if a, b, ok := strings.Cut(strings.TrimSpace(p), "-"); ok {
			for r := armReg(t, a); r <= armReg(t, b); r++ {
				out = append(out, r)
			}
			continue
		}
		out = append(out, armReg(t, p))
	}
	// A push stores the lowest register lowest.
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

var immRE = regexp.MustCompile(`#(-?(?:0x[0-9a-f]+|[0-9]+))`)

func imm(t *testing.T, s string) int64 {
	m := immRE.FindAllStringSubmatch(s, -1)
	if m == nil {
		return 0
	}
	v, err := strconv.ParseInt(m[len(m)-1][1], 0, 64)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, "lsl #12") { // arm64 shifted immediate
		v, _ = strconv.ParseInt(m[0][1], 0, 64)
		v <<= 12
	}
	return v
}

var armBranch = regexp.MustCompile(`^(b|bl|blx|bx|cbz|cbnz|tbb|tbh|pop|ldm|ldmia|ldmfd)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?(\.[nw])?$`)

func readARM(t *testing.T, f *Frame, ip *int64, mn, ops string) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(mn, ".w"), ".n")
	args := strings.Split(ops, ",")
	switch {
	case armBranch.MatchString(mn):
		return true
	case base == "push" || base == "stmdb" && strings.HasPrefix(ops, "sp!") || base == "stmfd" && strings.HasPrefix(ops, "sp!"):
		f.push(regSet(t, ops), 4)
	case base == "str" && strings.HasSuffix(ops, "[sp, #-4]!"):
		f.push([]int{armReg(t, args[0])}, 4)
	case base == "vpush" || base == "vstmdb" && strings.HasPrefix(ops, "sp!"):
		n := int64(len(strings.Split(ops[strings.Index(ops, "{")+1:strings.Index(ops, "}")], ",")))
		set := ops[strings.Index(ops, "{")+1:]
		if a, b, ok := strings.Cut(strings.SplitN(set, "}", 2)[0], "-"); ok {
			x, _ := strconv.Atoi(strings.TrimSpace(a)[1:])
			y, _ := strconv.Atoi(strings.TrimSpace(b)[1:])
			n = int64(y - x + 1)
		}
		size := int64(8)
		if strings.Contains(set, "s") {
			size = 4
		}
		f.SPBelow += n * size
	case (base == "sub" || base == "subw") && strings.HasPrefix(ops, "sp,"):
		f.SPBelow += imm(t, ops)
	default:
		readARMFrame(t, f, ip, base, ops, args)
	}
	return false
}

// readARMFrame reads the ARM instructions that set up a frame pointer or
// store registers into the frame (those that do not move sp but strd's
// pre-index).
func readARMFrame(t *testing.T, f *Frame, ip *int64, base, ops string, args []string) {
	switch {
	case base == "mov" && len(args) == 2 && strings.TrimSpace(args[1]) == "sp" && armReg(t, args[0]) == 12:
		*ip = f.SPBelow
	case (base == "mov" && len(args) == 2 || base == "add" || base == "addw") && len(args) >= 2 && strings.TrimSpace(args[1]) == "sp" &&
		(strings.TrimSpace(args[0]) == "r7" || strings.TrimSpace(args[0]) == "fp"):
		f.FPReg, f.FPBelow = armReg(t, args[0]), f.SPBelow-imm(t, ops)
	case base == "sub" && len(args) == 3 && strings.TrimSpace(args[0]) == "fp" && strings.TrimSpace(args[1]) == "ip" && *ip >= 0:
		f.FPReg, f.FPBelow = 11, *ip+imm(t, ops)
	case base == "str" && strings.Contains(ops, "[sp, #") && !strings.HasSuffix(ops, "!") && !strings.Contains(ops, "], "):
		f.save(armReg(t, args[0]), f.SPBelow-imm(t, ops))
	case base == "str" && strings.HasSuffix(ops, "[sp]"):
		f.save(armReg(t, args[0]), f.SPBelow)
	case base == "strd" && strings.Contains(ops, "[sp, #-") && strings.HasSuffix(ops, "]!"):
		f.SPBelow -= imm(t, ops)
		f.save(armReg(t, args[0]), f.SPBelow)
		f.save(armReg(t, args[1]), f.SPBelow-4)
	case base == "strd" && strings.Contains(ops, "[sp") && !strings.HasSuffix(ops, "!"):
		off := imm(t, ops)
		f.save(armReg(t, args[0]), f.SPBelow-off)
		f.save(armReg(t, args[1]), f.SPBelow-off-4)
	}
}

var a64Branch = regexp.MustCompile(`^(b|bl|blr|br|ret|cbz|cbnz|tbz|tbnz|b\.\w+)$`)

func a64Reg(t *testing.T, s string) int {
	s = strings.TrimSpace(s)
	if s == "sp" {
		return a64SP
	}
	n, err := strconv.Atoi(s[1:])
	if err != nil {
		t.Fatalf("register %q", s)
	}
	return n
}

func readARM64(t *testing.T, f *Frame, mn, ops string) bool {
	args := strings.Split(ops, ",")
	pre := strings.HasSuffix(ops, "]!")
	onSP := strings.Contains(ops, "[sp")
	xreg := len(args) > 0 && strings.HasPrefix(strings.TrimSpace(args[0]), "x")
	switch {
	case a64Branch.MatchString(mn):
		return true
	case mn == "stp" && onSP && pre:
		f.SPBelow -= imm(t, ops)
		if xreg {
			f.save(a64Reg(t, args[0]), f.SPBelow)
			f.save(a64Reg(t, args[1]), f.SPBelow-8)
		}
	case mn == "stp" && onSP && xreg && !strings.Contains(ops, "], "):
		off := imm(t, ops)
		f.save(a64Reg(t, args[0]), f.SPBelow-off)
		f.save(a64Reg(t, args[1]), f.SPBelow-off-8)
	case mn == "str" && onSP && pre && xreg:
		f.SPBelow -= imm(t, ops)
		f.save(a64Reg(t, args[0]), f.SPBelow)
	case mn == "str" && onSP && xreg && !strings.Contains(ops, "], "):
		f.save(a64Reg(t, args[0]), f.SPBelow-imm(t, ops))
	case mn == "sub" && strings.HasPrefix(ops, "sp, sp, #"):
		f.SPBelow += imm(t, ops)
	case mn == "mov" && ops == "x29, sp":
		f.FPReg, f.FPBelow = a64FP, f.SPBelow
	case mn == "add" && strings.HasPrefix(ops, "x29, sp, #"):
		f.FPReg, f.FPBelow = a64FP, f.SPBelow-imm(t, ops)
	}
	return false
}

var x86Regs = map[string]int{"ax": 0, "cx": 1, "dx": 2, "bx": 3, "sp": 4, "bp": 5, "si": 6, "di": 7}

func x86Reg(t *testing.T, s string) int {
	s = strings.TrimPrefix(strings.TrimSpace(s), "%")
	if r, ok := x86Regs[s[1:]]; ok && (s[0] == 'e' || s[0] == 'r') {
		return r
	}
	if strings.HasPrefix(s, "r") {
		if n, err := strconv.Atoi(strings.TrimRight(s[1:], "dwb")); err == nil {
			return n
		}
	}
	t.Fatalf("register %q", s)
	return -1
}

func readX86(t *testing.T, f *Frame, mn, ops string, long bool) bool {
	word := int64(4)
	if long {
		word = 8
	}
	sp, bp := "%esp", "%ebp"
	if long {
		sp, bp = "%rsp", "%rbp"
	}
	switch {
	case strings.HasPrefix(mn, "j") || strings.HasPrefix(mn, "call") || strings.HasPrefix(mn, "ret"):
		return true
	case mn == "push" || mn == "pushl" || mn == "pushq":
		if !strings.HasPrefix(ops, "%") {
			return true // a push of memory or an immediate: not a register save
		}
		f.push([]int{x86Reg(t, ops)}, word)
	case (mn == "sub" || mn == "subl" || mn == "subq") && strings.HasSuffix(ops, ","+sp) && strings.HasPrefix(ops, "$"):
		v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(ops, "$"), ","+sp), 0, 64)
		if err != nil {
			t.Fatal(err)
		}
		f.SPBelow += v
	case mn == "mov" && ops == sp+","+bp:
		f.FPReg, f.FPBelow = x86BP, f.SPBelow
	}
	return false
}

var condBranch = map[Arch]*regexp.Regexp{
	Thumb: regexp.MustCompile(`^(b(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)(\.[nw])?|cbz|cbnz)$`),
	ARM64: regexp.MustCompile(`^(b\.\w+|cbz|cbnz|tbz|tbnz)$`),
	X86:   regexp.MustCompile(`^j(?:[a-ln-z]|m[a-oq-z])\w*$`), // every j* but jmp
	AMD64: regexp.MustCompile(`^j(?:[a-ln-z]|m[a-oq-z])\w*$`),
}

var targetRE = regexp.MustCompile(`(?:0x)?([0-9a-f]+)$`)

// forwardConditional reports whether objdump's line is a conditional
// branch to a higher address (the target is the last operand).
func forwardConditional(a Arch, mn, ops string, addr uint64) bool {
	re := condBranch[a]
	if re == nil || !re.MatchString(mn) {
		return false
	}
	m := targetRE.FindStringSubmatch(strings.TrimSpace(ops))
	if m == nil {
		return false
	}
	target, err := strconv.ParseUint(m[1], 16, 64)
	return err == nil && target > addr
}
