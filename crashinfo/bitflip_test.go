package crashinfo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// The expected confidences follow rust-minidump's formula
// (process_state.rs, BitFlipDetails::confidence), worked by hand:
// 1 - Π(1 - p) over the evidence, halved for poison.
func TestBitFlips(t *testing.T) {
	mapped := []Region{{Base: 0x7f0000000000, Size: 0x10000, Read: true, Write: true}}
	cases := []struct {
		name  string
		addr  uint64
		regs  map[string]uint64
		ex    *minidump.Exception
		plat  minidump.Platform
		want  []BitFlip
		noCtx bool
	}{
		{name: "one flip, one register nearby: 1-(0.75*0.5)", addr: 0x7f0200001000,
			regs: map[string]uint64{"rbx": 0x7f0000001100},
			want: []BitFlip{{Address: 0x7f0000001000, NearbyRegisters: 1, Confidence: 0.625}}},
		{name: "poison register halves it", addr: 0x7f0200001000,
			regs: map[string]uint64{"rbx": 0x7f0000001100, "rcx": 0xe5e5e5e5e5e5e5e5},
			want: []BitFlip{{Address: 0x7f0000001000, NearbyRegisters: 1, PoisonRegisters: true, Confidence: 0.3125}}},
		{name: "null from a low address: 1-(0.75*0.75)", addr: 0x1000,
			want: []BitFlip{{Address: 0, IsNull: true, WasLow: true, Confidence: 0.4375}}},
		{name: "mapped address: no flip", addr: 0x7f0000001000},
		{name: "write to read-only memory (Windows): no candidate allowed", addr: 0x7f0200001000,
			plat: minidump.PlatformWin32NT, ex: &minidump.Exception{Code: winAccessViolation, Parameters: []uint64{1, 0x7f0200001000}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := minidump.NewContext(minidump.ArchAMD64)
			for _, n := range minidump.RegisterNames(minidump.ArchAMD64) {
				ctx.Set(n, 0)
			}
			for n, v := range c.regs {
				ctx.Set(n, v)
			}
			regions := mapped
			if c.plat == minidump.PlatformWin32NT {
				regions = []Region{{Base: 0x7f0000000000, Size: 0x10000, Read: true}}
			}
			res := Analyze(&Input{Arch: minidump.ArchAMD64, Platform: c.plat, Context: &ctx, Exception: c.ex,
				CrashAddress: c.addr, Regions: regions})
			if d := cmp.Diff(c.want, res.BitFlips); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

// TestAdjustedAddress: a null base register gives a null pointer with the
// access's offset; an amd64 #GP through a non-canonical pointer gives that
// pointer (Linux reports SIGSEGV/SI_KERNEL at address 0).
func TestAdjustedAddress(t *testing.T) {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	for _, n := range minidump.RegisterNames(minidump.ArchAMD64) {
		ctx.Set(n, 0)
	}
	ctx.SetIP(ip)
	code := byteMemory{ip, []byte{0x48, 0x8b, 0x43, 0x10}} // mov rax, qword [rbx + 0x10]
	in := &Input{Arch: minidump.ArchAMD64, Platform: minidump.PlatformLinux, Context: &ctx, Memory: code}
	if got := Analyze(in).Adjusted; got == nil || *got != (Adjusted{NullPointer, 0x10}) {
		t.Errorf("null base: %+v", got)
	}
	ctx.Set("rbx", 0x4141414141414141)
	in.Exception = &minidump.Exception{Code: linuxSIGSEGV, Flags: linuxSIKernel}
	res := Analyze(in)
	if got := res.Adjusted; got == nil || *got != (Adjusted{NonCanonical, 0x4141414141414151}) {
		t.Errorf("non-canonical: %+v", got)
	}
	// Bit flips then run over the top 16 bits of the non-canonical address.
	for _, f := range res.BitFlips {
		if !f.WasNonCanonical {
			t.Errorf("flip %+v not marked non-canonical", f)
		}
	}
}
