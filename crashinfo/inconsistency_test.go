package crashinfo

import (
	"slices"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// The cases follow rust-minidump's check_for_crash_inconsistencies rules.
func TestInconsistencies(t *testing.T) {
	av := func(kind, addr uint64) *minidump.Exception {
		return &minidump.Exception{Code: winAccessViolation, Parameters: []uint64{kind, addr}}
	}
	rw := []Region{{Base: 0x5000, Size: 0x1000, Read: true, Write: true}}
	cases := []struct {
		name    string
		code    []byte
		regs    map[string]uint64
		ex      *minidump.Exception
		addr    uint64
		regions []Region
		want    []string
	}{
		{name: "write elsewhere than the store", code: []byte{0x89, 0x08}, // mov dword [rax], ecx
			regs: map[string]uint64{"rax": 0x1000}, ex: av(1, 0x2000), addr: 0x2000,
			want: []string{CrashingAccessNotFoundInMemoryAccesses}},
		{name: "write where the store goes", code: []byte{0x89, 0x08},
			regs: map[string]uint64{"rax": 0x2000}, ex: av(1, 0x2002), addr: 0x2002},
		{name: "write to writable memory", code: []byte{0x89, 0x08},
			regs: map[string]uint64{"rax": 0x5010}, ex: av(1, 0x5010), addr: 0x5010, regions: rw,
			want: []string{AccessViolationWhenAccessAllowed}},
		{name: "divide by zero without a division", code: []byte{0x89, 0x08},
			ex: &minidump.Exception{Code: winIntDivideByZero}, want: []string{IntDivByZeroNotPossible}},
		{name: "divide by zero at a div", code: []byte{0xf7, 0xf1}, // div ecx
			ex: &minidump.Exception{Code: winIntDivideByZero}},
		{name: "privileged instruction fault at a push", code: []byte{0x55},
			ex: &minidump.Exception{Code: winPrivInstruction}, want: []string{PrivInstructionCrashWithoutPrivInstruction}},
		{name: "#GP reported but every address canonical", code: []byte{0x48, 0x8b, 0x03}, // mov rax, qword [rbx]
			regs: map[string]uint64{"rbx": 0x7000}, ex: av(0, ^uint64(0)), addr: ^uint64(0),
			want: []string{NonCanonicalAddressFalselyReported}},
		{name: "#GP through a non-canonical pointer", code: []byte{0x48, 0x8b, 0x03},
			regs: map[string]uint64{"rbx": 0x4141414141414141}, ex: av(0, ^uint64(0)), addr: ^uint64(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := minidump.NewContext(minidump.ArchAMD64)
			for _, n := range minidump.RegisterNames(minidump.ArchAMD64) {
				ctx.Set(n, 0x100)
			}
			for n, v := range c.regs {
				ctx.Set(n, v)
			}
			ctx.SetIP(ip)
			res := Analyze(&Input{Arch: minidump.ArchAMD64, Platform: minidump.PlatformWin32NT, Context: &ctx,
				Memory: byteMemory{ip, c.code}, Exception: c.ex, CrashAddress: c.addr, Regions: c.regions})
			if !slices.Equal(res.Inconsistencies, c.want) {
				t.Errorf("%q: inconsistencies %q, want %q", res.Instruction, res.Inconsistencies, c.want)
			}
		})
	}
}

// TestGuardPage: a store into a 4 KiB mapping without rights right below
// a read-write one (a thread stack's guard page) is flagged; one into a
// large inaccessible mapping is not.
func TestGuardPage(t *testing.T) {
	regions := []Region{
		{Base: 0x10000, Size: 0x1000},                          // guard page
		{Base: 0x11000, Size: 0x8000, Read: true, Write: true}, // stack
		{Base: 0x40000, Size: 0x100000},                        // large reservation
	}
	for _, c := range []struct {
		addr uint64
		want bool
	}{{0x10ff8, true}, {0x40010, false}, {0x11010, false}} {
		ctx := minidump.NewContext(minidump.ArchAMD64)
		ctx.Set("rax", c.addr)
		ctx.SetIP(ip)
		res := Analyze(&Input{Arch: minidump.ArchAMD64, Context: &ctx, Memory: byteMemory{ip, []byte{0x89, 0x08}}, Regions: regions})
		if len(res.Accesses) != 1 || res.Accesses[0].LikelyGuardPage != c.want {
			t.Errorf("%#x: %+v, want guard page %v", c.addr, res.Accesses, c.want)
		}
	}
}
