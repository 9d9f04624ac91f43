package crashinfo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// byteMemory is code at one address.
type byteMemory struct {
	base uint64
	data []byte
}

func (m byteMemory) ReadMemory(addr uint64, p []byte) error {
	if addr < m.base || addr-m.base+uint64(len(p)) > uint64(len(m.data)) {
		return errShort
	}
	copy(p, m.data[addr-m.base:])
	return nil
}

type shortErr struct{}

func (shortErr) Error() string { return "not captured" }

var errShort = shortErr{}

type archCase struct {
	name  string
	arch  minidump.Arch
	thumb bool
	code  []byte
	regs  map[string]uint64
	// text is our spelling; objdump's must agree after normalize, except
	// where objdumpText gives its normalized form (x86 syntax details).
	text        string
	objdumpText string
	want        []Access
}

const ip = 0x10000

var archCases = []archCase{
	// amd64: rust-minidump's own op_analysis test cases, and the stack forms.
	{name: "amd64 load byte [rbx]", arch: minidump.ArchAMD64, code: []byte{0x8a, 0x03},
		regs: map[string]uint64{"rbx": 0xbadc0ffebadc0ffe}, text: "mov al, byte [rbx]",
		want: []Access{{Address: 0xbadc0ffebadc0ffe, Size: 1, Type: AccessRead}}},
	{name: "amd64 load qword base-disp", arch: minidump.ArchAMD64, code: []byte{0x48, 0x8b, 0x85, 0x00, 0xf8, 0xff, 0xff},
		regs: map[string]uint64{"rbp": 0x1000}, text: "mov rax, qword [rbp - 0x800]",
		want: []Access{{Address: 0x800, Size: 8, Type: AccessRead}}},
	{name: "amd64 base index scale disp", arch: minidump.ArchAMD64, code: []byte{0x49, 0x8b, 0x84, 0xd9, 0x01, 0x00, 0x00, 0x80},
		regs: map[string]uint64{"r9": 0x100001, "rbx": 0x1000}, text: "mov rax, qword [r9 + rbx * 8 - 0x7fffffff]",
		want: []Access{{Address: 0xffffffff80108002, Size: 8, Type: AccessRead}}},
	{name: "amd64 store through null", arch: minidump.ArchAMD64, code: []byte{0x89, 0x50, 0x10},
		regs: map[string]uint64{"rax": 0}, text: "mov dword [rax + 0x10], edx",
		want: []Access{{Address: 0x10, Size: 4, Type: AccessWrite, LikelyNull: true}}},
	{name: "amd64 absolute store", arch: minidump.ArchAMD64, code: []byte{0xc7, 0x04, 0x25, 0x45, 0, 0, 0, 5, 0, 0, 0},
		text: "mov dword [0x45], 0x5", objdumpText: "movdword0x45,0x5", want: []Access{{Address: 0x45, Size: 4, Type: AccessWrite}}},
	{name: "amd64 push", arch: minidump.ArchAMD64, code: []byte{0x55}, regs: map[string]uint64{"rsp": 0x7000},
		text: "push rbp", want: []Access{{Address: 0x6ff8, Size: 8, Type: AccessWrite}}},
	{name: "amd64 pop", arch: minidump.ArchAMD64, code: []byte{0x5d}, regs: map[string]uint64{"rsp": 0x7000},
		text: "pop rbp", want: []Access{{Address: 0x7000, Size: 8, Type: AccessRead}}},
	{name: "amd64 add to memory", arch: minidump.ArchAMD64, code: []byte{0x48, 0x01, 0x43, 0x08},
		regs: map[string]uint64{"rbx": 0x5000}, text: "add qword [rbx + 0x8], rax",
		want: []Access{{Address: 0x5008, Size: 8, Type: AccessReadWrite}}},
	{name: "amd64 rep movsb", arch: minidump.ArchAMD64, code: []byte{0xf3, 0xa4},
		regs: map[string]uint64{"rsi": 0x1000, "rdi": 0x2000, "rcx": 10}, text: "rep movs byte es:[rdi], byte ds:[rsi]",
		objdumpText: "repmovsbyte[rdi],byte[rsi]",
		want:        []Access{{Address: 0x2000, Size: 1}, {Address: 0x1000, Size: 1}}},
	{name: "amd64 register move", arch: minidump.ArchAMD64, code: []byte{0x89, 0xc5}, text: "mov ebp, eax", want: []Access{}},
	// x86
	{name: "x86 store", arch: minidump.ArchX86, code: []byte{0x89, 0x10}, regs: map[string]uint64{"eax": 0},
		text: "mov dword [eax], edx", want: []Access{{Address: 0, Size: 4, Type: AccessWrite, LikelyNull: true}}},
	{name: "x86 push", arch: minidump.ArchX86, code: []byte{0x53}, regs: map[string]uint64{"esp": 0xff00},
		text: "push ebx", want: []Access{{Address: 0xfefc, Size: 4, Type: AccessWrite}}},
	{name: "x86 stosd", arch: minidump.ArchX86, code: []byte{0xf3, 0xab}, regs: map[string]uint64{"edi": 0x3000, "ecx": 4},
		text: "rep stos dword es:[edi], eax", objdumpText: "repstosdword[edi],eax",
		want: []Access{{Address: 0x3000, Size: 4}}},
	// arm64
	{name: "arm64 store word", arch: minidump.ArchARM64, code: []byte{0x01, 0x00, 0x00, 0xb9},
		regs: map[string]uint64{"x0": 0}, text: "str w1, [x0]",
		want: []Access{{Address: 0, Size: 4, Type: AccessWrite, LikelyNull: true}}},
	{name: "arm64 load pair", arch: minidump.ArchARM64, code: []byte{0xfd, 0x7b, 0xc1, 0xa8},
		regs: map[string]uint64{"sp": 0x8000}, text: "ldp x29, x30, [sp], #16",
		want: []Access{{Address: 0x8000, Size: 8, Type: AccessRead}, {Address: 0x8008, Size: 8, Type: AccessRead}}},
	{name: "arm64 store pair pre-index", arch: minidump.ArchARM64, code: []byte{0xfd, 0x7b, 0xbe, 0xa9},
		regs: map[string]uint64{"sp": 0x8000}, text: "stp x29, x30, [sp, #-32]!",
		want: []Access{{Address: 0x7fe0, Size: 8, Type: AccessWrite}, {Address: 0x7fe8, Size: 8, Type: AccessWrite}}},
	{name: "arm64 load byte register offset", arch: minidump.ArchARM64, code: []byte{0x20, 0x68, 0x62, 0x38},
		regs: map[string]uint64{"x1": 0x4000, "x2": 0x10}, text: "ldrb w0, [x1, x2]",
		want: []Access{{Address: 0x4010, Size: 1, Type: AccessRead}}},
	{name: "arm64 load with offset", arch: minidump.ArchARM64, code: []byte{0x20, 0x08, 0x40, 0xf9},
		regs: map[string]uint64{"x1": 0x4000}, text: "ldr x0, [x1, #16]",
		want: []Access{{Address: 0x4010, Size: 8, Type: AccessRead}}},
	// arm, Thumb state
	{name: "thumb str imm5", arch: minidump.ArchARM, thumb: true, code: []byte{0x1a, 0x60},
		regs: map[string]uint64{"r3": 0}, text: "str r2, [r3, #0]",
		want: []Access{{Address: 0, Size: 4, Type: AccessWrite, LikelyNull: true}}},
	{name: "thumb ldr sp-relative", arch: minidump.ArchARM, thumb: true, code: []byte{0x03, 0x98},
		regs: map[string]uint64{"sp": 0x9000}, text: "ldr r0, [sp, #12]",
		want: []Access{{Address: 0x900c, Size: 4, Type: AccessRead}}},
	{name: "thumb push", arch: minidump.ArchARM, thumb: true, code: []byte{0x90, 0xb5},
		regs: map[string]uint64{"sp": 0x9000}, text: "push {r4, r7, lr}",
		want: []Access{{Address: 0x8ff4, Size: 4, Type: AccessWrite}, {Address: 0x8ff8, Size: 4, Type: AccessWrite},
			{Address: 0x8ffc, Size: 4, Type: AccessWrite}}},
	{name: "thumb pop", arch: minidump.ArchARM, thumb: true, code: []byte{0x80, 0xbd},
		regs: map[string]uint64{"sp": 0x9000}, text: "pop {r7, pc}",
		want: []Access{{Address: 0x9000, Size: 4, Type: AccessRead}, {Address: 0x9004, Size: 4, Type: AccessRead}}},
	{name: "thumb ldrb register", arch: minidump.ArchARM, thumb: true, code: []byte{0x8b, 0x5c},
		regs: map[string]uint64{"r1": 0x100, "r2": 3}, text: "ldrb r3, [r1, r2]",
		want: []Access{{Address: 0x103, Size: 1, Type: AccessRead}}},
	{name: "thumb ldr.w imm12", arch: minidump.ArchARM, thumb: true, code: []byte{0xd2, 0xf8, 0x08, 0x38},
		regs: map[string]uint64{"r2": 0x2000}, text: "ldr.w r3, [r2, #2056]",
		want: []Access{{Address: 0x2808, Size: 4, Type: AccessRead}}},
	{name: "thumb ldr.w negative", arch: minidump.ArchARM, thumb: true, code: []byte{0x52, 0xf8, 0x04, 0x3c},
		regs: map[string]uint64{"r2": 0x2000}, text: "ldr.w r3, [r2, #-4]",
		want: []Access{{Address: 0x1ffc, Size: 4, Type: AccessRead}}},
	{name: "thumb ldr.w shifted register", arch: minidump.ArchARM, thumb: true, code: []byte{0x52, 0xf8, 0x21, 0x30},
		regs: map[string]uint64{"r2": 0x2000, "r1": 3}, text: "ldr.w r3, [r2, r1, lsl #2]",
		want: []Access{{Address: 0x200c, Size: 4, Type: AccessRead}}},
	{name: "thumb ldrd", arch: minidump.ArchARM, thumb: true, code: []byte{0xd2, 0xe9, 0x02, 0x34},
		regs: map[string]uint64{"r2": 0x2000}, text: "ldrd r3, r4, [r2, #8]",
		want: []Access{{Address: 0x2008, Size: 4, Type: AccessRead}, {Address: 0x200c, Size: 4, Type: AccessRead}}},
	{name: "thumb stmdb (push.w)", arch: minidump.ArchARM, thumb: true, code: []byte{0x2d, 0xe9, 0x10, 0x40},
		regs: map[string]uint64{"sp": 0x9000}, text: "stmdb sp!, {r4, lr}",
		want: []Access{{Address: 0x8ff8, Size: 4, Type: AccessWrite}, {Address: 0x8ffc, Size: 4, Type: AccessWrite}}},
	{name: "thumb ldrsb.w", arch: minidump.ArchARM, thumb: true, code: []byte{0x12, 0xf9, 0x01, 0x3c},
		regs: map[string]uint64{"r2": 0x2000}, text: "ldrsb.w r3, [r2, #-1]",
		want: []Access{{Address: 0x1fff, Size: 1, Type: AccessRead}}},
	// arm, ARM state
	{name: "arm str", arch: minidump.ArchARM, code: []byte{0x00, 0x20, 0x83, 0xe5},
		regs: map[string]uint64{"r3": 0}, text: "str r2, [r3]",
		want: []Access{{Address: 0, Size: 4, Type: AccessWrite, LikelyNull: true}}},
	{name: "arm ldrb offset", arch: minidump.ArchARM, code: []byte{0x04, 0x30, 0xd2, 0xe5},
		regs: map[string]uint64{"r2": 0x100}, text: "ldrb r3, [r2, #4]",
		want: []Access{{Address: 0x104, Size: 1, Type: AccessRead}}},
	{name: "arm push", arch: minidump.ArchARM, code: []byte{0x10, 0x40, 0x2d, 0xe9},
		regs: map[string]uint64{"sp": 0x9000}, text: "push {r4, lr}",
		want: []Access{{Address: 0x8ff8, Size: 4, Type: AccessWrite}, {Address: 0x8ffc, Size: 4, Type: AccessWrite}}},
}

func archName(a minidump.Arch) string { return a.String() }

func TestArchitectures(t *testing.T) {
	for _, c := range archCases {
		t.Run(c.name, func(t *testing.T) {
			ctx := minidump.NewContext(c.arch)
			for _, n := range minidump.RegisterNames(c.arch) {
				ctx.Set(n, 0x1234) // every register valid, none used by chance
			}
			for n, v := range c.regs {
				if !ctx.Set(n, v) {
					t.Fatalf("no register %s", n)
				}
			}
			ctx.SetIP(ip)
			res := Analyze(&Input{Arch: c.arch, Context: &ctx, Thumb: c.thumb, Memory: byteMemory{ip, c.code}})
			if res.Instruction != c.text {
				t.Errorf("instruction %q, want %q", res.Instruction, c.text)
			}
			if !res.AccessesKnown {
				t.Fatalf("accesses unknown")
			}
			if diff := cmp.Diff(c.want, res.Accesses); diff != "" {
				t.Errorf("accesses (-want +got):\n%s", diff)
			}
			theirs := objdump(t, archName(c.arch), c.thumb, c.code)
			want := normalize(theirs)
			if c.objdumpText != "" {
				if want != c.objdumpText {
					t.Errorf("objdump says %q, the test expects %q", theirs, c.objdumpText)
				}
				return
			}
			if got := normalize(c.text); got != want && !x86Equivalent(got, want) {
				t.Errorf("objdump says %q; ours %q", theirs, c.text)
			}
		})
	}
}

// x86Equivalent accepts yaxpeax's hex spelling of a displacement or
// immediate where objdump writes the same number ("0x5" for "0x5",
// "-0x800" for "-0x800" after normalize).
func x86Equivalent(ours, theirs string) bool {
	return strings.ReplaceAll(ours, "0x0", "0x") == strings.ReplaceAll(theirs, "0x0", "0x")
}
