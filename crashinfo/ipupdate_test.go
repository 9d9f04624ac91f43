package crashinfo

import (
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// twoRegions is code at ip and a stack at sp.
type twoRegions struct{ code, stack byteMemory }

func (m twoRegions) ReadMemory(addr uint64, p []byte) error {
	if m.code.ReadMemory(addr, p) == nil {
		return nil
	}
	return m.stack.ReadMemory(addr, p)
}

// TestIPUpdate: where calls, jumps, returns and loads into pc send the
// instruction pointer; known "no update" for other instructions; unknown
// for relative and conditional branches.
func TestIPUpdate(t *testing.T) {
	const sp = 0x8000
	stack := byteMemory{sp, []byte{0x10, 0x32, 0x54, 0x76, 0, 0, 0, 0, 0x21, 0x43, 0, 0, 0, 0, 0, 0}}
	cases := []struct {
		name  string
		arch  minidump.Arch
		thumb bool
		code  []byte
		regs  map[string]uint64
		want  uint64 // 0: no update
		known bool
	}{
		{"amd64 ret reads the stack", minidump.ArchAMD64, false, []byte{0xc3}, nil, 0x76543210, true},
		{"amd64 call rax", minidump.ArchAMD64, false, []byte{0xff, 0xd0}, map[string]uint64{"rax": 0x4000}, 0x4000, true},
		{"amd64 jmp [rsp + 8]", minidump.ArchAMD64, false, []byte{0xff, 0x64, 0x24, 0x08}, nil, 0x4321, true},
		{"amd64 call rel32 unknown", minidump.ArchAMD64, false, []byte{0xe8, 0, 0, 0, 0}, nil, 0, false},
		{"amd64 jz unknown", minidump.ArchAMD64, false, []byte{0x74, 0x02}, nil, 0, false},
		{"amd64 mov: no update", minidump.ArchAMD64, false, []byte{0x89, 0xc5}, nil, 0, true},
		{"x86 ret", minidump.ArchX86, false, []byte{0xc3}, nil, 0x76543210, true},
		{"arm64 ret", minidump.ArchARM64, false, []byte{0xc0, 0x03, 0x5f, 0xd6}, map[string]uint64{"x30": 0x5000}, 0x5000, true},
		{"arm64 blr x3", minidump.ArchARM64, false, []byte{0x60, 0x00, 0x3f, 0xd6}, map[string]uint64{"x3": 0x6000}, 0x6000, true},
		{"arm64 str: no update", minidump.ArchARM64, false, []byte{0x01, 0x00, 0x00, 0xb9}, nil, 0, true},
		{"thumb pop {r7, pc}", minidump.ArchARM, true, []byte{0x80, 0xbd}, nil, 0x4320, true}, // Thumb bit cleared
		{"thumb str: no update", minidump.ArchARM, true, []byte{0x1a, 0x60}, nil, 0, true},
		{"arm bx lr", minidump.ArchARM, false, []byte{0x1e, 0xff, 0x2f, 0xe1}, map[string]uint64{"lr": 0x7001}, 0x7000, true},
		{"arm pop {r4, pc}", minidump.ArchARM, false, []byte{0x10, 0x80, 0xbd, 0xe8}, nil, 0x76543210, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := minidump.NewContext(c.arch)
			for _, n := range minidump.RegisterNames(c.arch) {
				ctx.Set(n, 0)
			}
			for n, v := range c.regs {
				ctx.Set(n, v)
			}
			ctx.SetSP(sp)
			switch c.name {
			case "thumb pop {r7, pc}": // pc from sp+8: 0x4321
				ctx.SetSP(sp + 4)
			case "arm pop {r4, pc}": // pc from sp
				ctx.SetSP(sp - 4)
			}
			ctx.SetIP(ip)
			res := Analyze(&Input{Arch: c.arch, Thumb: c.thumb, Context: &ctx,
				Memory: twoRegions{byteMemory{ip, c.code}, stack}})
			var got uint64
			if res.IPUpdate != nil {
				got = res.IPUpdate.Address
			}
			if res.Instruction == "" || got != c.want || res.IPUpdateKnown != c.known {
				t.Errorf("%q: update %#x known %v, want %#x %v", res.Instruction, got, res.IPUpdateKnown, c.want, c.known)
			}
		})
	}
}
