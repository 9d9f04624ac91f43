// Command macosdump writes testdata/macos/{x86_64,arm64,symbolic}/crash.dmp:
// minidumps of testdata/macos's program and of Sentry symbolic's fixture
// (../shared/corpus/symbolic/macos/crash) as Crashpad writes them on macOS (platform macOS, the
// module's UUID as its CodeView id, EXC_BAD_ACCESS), whose stack is laid
// out by running the program's call chain over llvm-objdump's disassembly:
// each function's instructions from its entry to its call of the next one
// are executed for their effect on the stack pointer, the frame pointer
// and the stack (push, sub, stp, mov to the frame pointer, call/bl); no
// unwind table of ours is used. It also writes crash.truth, the frames by
// construction: "function pc" from the innermost.
//
//	go run ./scripts/gen-testdata/macosdump   (from the repository root)
package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/synth"
	"github.com/minidump-stackwalk/minidump-stackwalk/machofile"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// target is a program and its call chain, outermost first. A name
// starting with "jmp:" is entered by a tail call (it makes no frame). The
// crash is at the innermost function's first call, or its first
// instruction when it calls nothing (testdata's crash_here: the store
// through a null pointer).
type target struct {
	arch, bin, out string
	chain          []string
}

var targets = []target{
	{"x86_64", "testdata/macos/x86_64/crash", "testdata/macos/x86_64/", []string{"start", "middle", "big_frame", "leaf_sum", "crash_here"}},
	{"arm64", "testdata/macos/arm64/crash", "testdata/macos/arm64/", []string{"start", "middle", "big_frame", "leaf_sum", "crash_here"}},
	// Sentry symbolic's fixture (../shared): main constructs an
	// ExceptionHandler (C1 tail-calls C2), which names its next dump.
	{"x86_64", "../shared/corpus/symbolic/macos/crash", "testdata/macos/symbolic/", []string{"main",
		"_ZN15google_breakpad16ExceptionHandlerC1ERKNSt3__112basic_stringIcNS1_11char_traitsIcEENS1_9allocatorIcEEEEPFbPvEPFbPKcSE_SA_bESA_bSE_",
		"jmp:_ZN15google_breakpad16ExceptionHandlerC2ERKNSt3__112basic_stringIcNS1_11char_traitsIcEENS1_9allocatorIcEEEEPFbPvEPFbPKcSE_SA_bESA_bSE_",
		"_ZN15google_breakpad16ExceptionHandler12UpdateNextIDEv",
		"_ZN15google_breakpad17MinidumpGenerator21UniqueNameInDirectoryERKNSt3__112basic_stringIcNS1_11char_traitsIcEENS1_9allocatorIcEEEEPS7_",
		"_ZN14MacStringUtils15ConvertToStringEPK10__CFString"}},
}

const (
	slide    = 0x4000000      // the module's load address minus its __TEXT address
	stackTop = 0x7ff7bfeff000 // the thread's stack top, as on macOS
	codePath = "/Applications/Crash.app/Contents/MacOS/crash"
)

type insn struct {
	addr uint64
	text string
}

var (
	funcRe = regexp.MustCompile(`^([0-9a-f]+) <_(\w+)>:$`)
	insnRe = regexp.MustCompile(`^\s*([0-9a-f]+):\s+(.*)$`)
)

func disassemble(path string) (map[string][]insn, error) {
	out, err := exec.Command("llvm-objdump", "-d", "--no-show-raw-insn", path).Output()
	if err != nil {
		return nil, fmt.Errorf("llvm-objdump: %w", err)
	}
	funcs := map[string][]insn{}
	cur := ""
	for _, line := range strings.Split(string(out), "\n") {
		if m := funcRe.FindStringSubmatch(line); m != nil {
			cur = m[2]
			continue
		}
		if m := insnRe.FindStringSubmatch(line); m != nil && cur != "" {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			funcs[cur] = append(funcs[cur], insn{a, strings.Join(strings.Fields(m[2]), " ")})
		}
	}
	return funcs, nil
}

// machine is the simulated state: registers by name and the stack.
type machine struct {
	regs  map[string]uint64
	mem   map[uint64]uint64 // 8-byte words
	arm64 bool
}

func (m *machine) push(v uint64) {
	m.regs["sp"] -= 8
	m.mem[m.regs["sp"]] = v
}

var (
	x86Push = regexp.MustCompile(`^pushq %(\w+)$`)
	x86Sub  = regexp.MustCompile(`^subq \$(\d+), %rsp`)
	x86Mov  = regexp.MustCompile(`^movq %rsp, %rbp$`)
	x86Call = regexp.MustCompile(`^callq 0x([0-9a-f]+) <_(\w+)>$`)
	x86Jmp  = regexp.MustCompile(`^jmp 0x([0-9a-f]+) <_(\w+)>$`)
	armStpP = regexp.MustCompile(`^stp (x\d+), (x\d+), \[sp, #-(\d+)\]!$`)
	armStp  = regexp.MustCompile(`^stp (x\d+), (x\d+), \[sp, #(\d+)\]$`)
	armSub  = regexp.MustCompile(`^sub sp, sp, #(\d+)(, lsl #12)?`)
	armMov  = regexp.MustCompile(`^mov x29, sp$`)
	armAdd  = regexp.MustCompile(`^add x29, sp, #(\d+)$`)
	armBL   = regexp.MustCompile(`^bl 0x([0-9a-f]+) <_(\w+)>$`)
	spWrite = regexp.MustCompile(`(, %rsp$|^popq|^\w+ sp,|\]!$|^ldp x29)`)
)

// step executes one instruction for its stack effect; it returns the
// callee's name at a call.
func (m *machine) step(in insn, next uint64) (string, error) {
	t := in.text
	if !m.arm64 {
		switch {
		case x86Push.MatchString(t):
			m.push(m.regs[x86Push.FindStringSubmatch(t)[1]])
		case x86Sub.MatchString(t):
			n, _ := strconv.ParseUint(x86Sub.FindStringSubmatch(t)[1], 10, 64)
			m.regs["sp"] -= n
		case x86Mov.MatchString(t):
			m.regs["rbp"] = m.regs["sp"]
		case x86Call.MatchString(t):
			m.push(next)
			return x86Call.FindStringSubmatch(t)[2], nil
		case x86Jmp.MatchString(t):
			return "jmp:" + x86Jmp.FindStringSubmatch(t)[2], nil
		case spWrite.MatchString(t):
			return "", fmt.Errorf("%#x: %q changes the stack or frame pointer in a way not simulated", in.addr, t)
		}
		return "", nil
	}
	switch {
	case armStpP.MatchString(t):
		s := armStpP.FindStringSubmatch(t)
		n, _ := strconv.ParseUint(s[3], 10, 64)
		m.regs["sp"] -= n
		m.mem[m.regs["sp"]], m.mem[m.regs["sp"]+8] = m.regs[s[1]], m.regs[s[2]]
	case armStp.MatchString(t):
		s := armStp.FindStringSubmatch(t)
		n, _ := strconv.ParseUint(s[3], 10, 64)
		m.mem[m.regs["sp"]+n], m.mem[m.regs["sp"]+n+8] = m.regs[s[1]], m.regs[s[2]]
	case armSub.MatchString(t):
		s := armSub.FindStringSubmatch(t)
		n, _ := strconv.ParseUint(s[1], 10, 64)
		if s[2] != "" {
			n <<= 12
		}
		m.regs["sp"] -= n
	case armMov.MatchString(t):
		m.regs["x29"] = m.regs["sp"]
	case armAdd.MatchString(t):
		n, _ := strconv.ParseUint(armAdd.FindStringSubmatch(t)[1], 10, 64)
		m.regs["x29"] = m.regs["sp"] + n
	case armBL.MatchString(t):
		m.regs["x30"] = next
		return armBL.FindStringSubmatch(t)[2], nil
	case spWrite.MatchString(t):
		return "", fmt.Errorf("%#x: %q changes the stack or frame pointer in a way not simulated", in.addr, t)
	}
	return "", nil
}

// run executes the chain; it returns the frames (function, pc) from the
// innermost and leaves the machine at the crash.
func run(chain []string, funcs map[string][]insn, m *machine) ([][2]string, error) {
	var frames [][2]string
	for i, entry := range chain {
		name := strings.TrimPrefix(entry, "jmp:")
		code := funcs[name]
		if len(code) == 0 {
			return nil, fmt.Errorf("no function %s", name)
		}
		if i == len(chain)-1 {
			crash := 0
			for j, in := range code {
				if strings.HasPrefix(in.text, "callq ") || strings.HasPrefix(in.text, "bl ") {
					crash = j
					break
				}
			}
			for _, in := range code[:crash] {
				if _, err := m.step(in, 0); err != nil {
					return nil, err
				}
			}
			m.regs["pc"] = code[crash].addr
			frames = append(frames, [2]string{name, fmt.Sprintf("%x", code[crash].addr)})
			break
		}
		called := false
		for j, in := range code {
			next := in.addr + 4
			if j+1 < len(code) {
				next = code[j+1].addr
			}
			callee, err := m.step(in, next)
			if err != nil {
				return nil, err
			}
			if callee == "" {
				continue
			}
			if callee != chain[i+1] {
				return nil, fmt.Errorf("%s calls %s, not %s", name, callee, chain[i+1])
			}
			if !strings.HasPrefix(callee, "jmp:") { // a tail call leaves no frame
				frames = append(frames, [2]string{name, fmt.Sprintf("%x", next)})
			}
			called = true
			break
		}
		if !called {
			return nil, fmt.Errorf("%s never calls %s", name, chain[i+1])
		}
	}
	for i, j := 0, len(frames)-1; i < j; i, j = i+1, j-1 {
		frames[i], frames[j] = frames[j], frames[i]
	}
	return frames, nil
}

func main() {
	for _, t := range targets {
		if err := build(t); err != nil {
			fmt.Fprintf(os.Stderr, "macosdump: %s: %v\n", t.bin, err)
			os.Exit(1)
		}
	}
}

func build(t target) error {
	arch, dir := t.arch, t.out
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin, err := machofile.Open(t.bin, "")
	if err != nil {
		return err
	}
	defer bin.Close()
	funcs, err := disassemble(t.bin)
	if err != nil {
		return err
	}
	m := &machine{regs: map[string]uint64{"sp": stackTop - 0x40}, mem: map[uint64]uint64{}, arm64: arch == "arm64"}
	// Callee-saved registers hold recognizable values; the entry's frame
	// pointer and return address are 0, as in a thread's first frame.
	saved := []string{"rbx", "r12", "r13", "r14", "r15", "rbp"}
	if m.arm64 {
		saved = []string{"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30"}
	}
	for i, r := range saved {
		m.regs[r] = 0x5a5a000000000000 | uint64(i+1)<<8
	}
	m.regs["rbp"], m.regs["x29"], m.regs["x30"] = 0, 0, 0
	if !m.arm64 {
		delete(m.regs, "x29")
		delete(m.regs, "x30")
		m.push(0) // start's return address: none
	} else {
		delete(m.regs, "rbp")
	}
	frames, err := run(t.chain, funcs, m)
	if err != nil {
		return err
	}
	// Code addresses are the file's; the module is loaded slid.
	slid := func(v uint64) uint64 {
		if v >= bin.TextAddr && v < bin.TextAddr+0x20000 {
			return v + slide
		}
		return v
	}
	for a, v := range m.mem {
		m.mem[a] = slid(v)
	}
	lo := m.regs["sp"]
	stack := make([]byte, stackTop-lo)
	for a, v := range m.mem {
		binary.LittleEndian.PutUint64(stack[a-lo:], v)
	}
	return writeDump(dir, arch, bin, m, frames, stack, slid)
}

func writeDump(dir, arch string, bin *machofile.File, m *machine, frames [][2]string, stack []byte, slid func(uint64) uint64) error {
	a, os0 := minidump.ArchAMD64, synth.MacOS
	if arch == "arm64" {
		a = minidump.ArchARM64
	}
	b := synth.New(a, os0)
	ctx := minidump.NewContext(a)
	for i := 0; i < ctx.NumRegs(); i++ {
		ctx.SetIndex(i, 0)
	}
	for r, v := range m.regs {
		name := r
		if arch != "arm64" {
			name = map[string]string{"sp": "rsp", "pc": "rip"}[r]
			if name == "" {
				name = r
			}
		} else if r == "x29" {
			name = "fp"
		} else if r == "x30" {
			name = "lr"
		}
		if !ctx.Set(name, slid(v)) {
			return fmt.Errorf("no register %s in the %s context", name, arch)
		}
	}
	b.AddThread(1, ctx, m.regs["sp"], stack)
	b.SetException(1, 1, 0, 1, 0) // EXC_BAD_ACCESS, KERN_INVALID_ADDRESS at 0
	// Crashpad's CodeView record: the UUID as the GUID (Data1-3 stored
	// little-endian, so that the debug id reads as the UUID), age 0.
	u := bin.UUID
	guid := [16]byte{u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6]}
	copy(guid[8:], u[8:])
	b.AddModule(codePath, bin.TextAddr+slide, 0x20000).SetPDB70(guid, 0, "crash")
	data, err := b.Bytes()
	if err != nil {
		return err
	}
	if err := os.WriteFile(dir+"crash.dmp", data, 0o644); err != nil {
		return err
	}
	var truth strings.Builder
	for _, f := range frames {
		pc, _ := strconv.ParseUint(f[1], 16, 64)
		fmt.Fprintf(&truth, "%s %x\n", f[0], slid(pc))
	}
	return os.WriteFile(dir+"crash.truth", []byte(truth.String()), 0o644)
}
