package pesupplier

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestARM64Rules: the rules of unwind-fp.dll's function at 0x1180 (built
// here, scripts/gen-testdata/windows/gen-arm64.sh), checked against its
// instructions as llvm-objdump -d shows them:
//
//	1180 stp x19, x20, [sp, #-96]!    123c ldp x29, x30, [sp, #72]
//	1184 stp x21, x22, [sp, #16]      1240 ldr x27, [sp, #64]
//	1188 stp x23, x24, [sp, #32]      1244 ldp x25, x26, [sp, #48]
//	118c stp x25, x26, [sp, #48]      1248 ldp x23, x24, [sp, #32]
//	1190 str x27, [sp, #64]           124c ldp x21, x22, [sp, #16]
//	1194 stp x29, x30, [sp, #72]      1250 ldp x19, x20, [sp], #96
//	1198 add x29, sp, #72             1254 ret
//
// Its .xdata has one epilog at the end (E), whose codes start at index
// 2, and save_next codes for x21-x26.
func TestARM64Rules(t *testing.T) {
	m := loadModule(t, "../testdata/windows/arm64/unwind-fp.dll")
	saved := func(cfa string, regs map[string]string) map[string]string {
		out := map[string]string{".cfa": cfa}
		for k, v := range regs {
			out[k] = v
		}
		return out
	}
	body := saved("x29 24 +", map[string]string{".ra": ".cfa 16 - ^", "x30": ".cfa 16 - ^", "x29": ".cfa 24 - ^",
		"x27": ".cfa 32 - ^", "x25": ".cfa 48 - ^", "x26": ".cfa 40 - ^", "x23": ".cfa 64 - ^", "x24": ".cfa 56 - ^",
		"x21": ".cfa 80 - ^", "x22": ".cfa 72 - ^", "x19": ".cfa 96 - ^", "x20": ".cfa 88 - ^"})
	for _, c := range []struct {
		name    string
		rel     uint64
		context bool
		want    map[string]string
	}{
		{"caller in the body", 0x1234, false, body},
		{"frame 0 in the body", 0x1238, true, body},
		{"frame 0 at entry", 0x1180, true, saved("sp", map[string]string{".ra": "x30"})},
		{"frame 0 after the first store", 0x1184, true, saved("sp 96 +", map[string]string{".ra": "x30", "x19": ".cfa 96 - ^", "x20": ".cfa 88 - ^"})},
		{"frame 0 before add x29", 0x1198, true, saved("sp 96 +", map[string]string{".ra": ".cfa 16 - ^", "x30": ".cfa 16 - ^", "x29": ".cfa 24 - ^",
			"x27": ".cfa 32 - ^", "x25": ".cfa 48 - ^", "x26": ".cfa 40 - ^", "x23": ".cfa 64 - ^", "x24": ".cfa 56 - ^",
			"x21": ".cfa 80 - ^", "x22": ".cfa 72 - ^", "x19": ".cfa 96 - ^", "x20": ".cfa 88 - ^"})},
		{"frame 0 in the epilog after ldp x29, x30", 0x1240, true, saved("sp 96 +", map[string]string{".ra": "x30",
			"x27": ".cfa 32 - ^", "x25": ".cfa 48 - ^", "x26": ".cfa 40 - ^", "x23": ".cfa 64 - ^", "x24": ".cfa 56 - ^",
			"x21": ".cfa 80 - ^", "x22": ".cfa 72 - ^", "x19": ".cfa 96 - ^", "x20": ".cfa 88 - ^"})},
		{"frame 0 at ret", 0x1254, true, saved("sp", map[string]string{".ra": "x30"})},
	} {
		rules, src, ok := m.CFIRules(walker.NativeQuery{Rel: c.rel, Context: c.context})
		if !ok || src != walker.CFIUnwindTables {
			t.Errorf("%s: no rules", c.name)
			continue
		}
		if diff := cmp.Diff(c.want, ruleMap(rules)); diff != "" {
			t.Errorf("%s (%#x) (-want +got):\n%s", c.name, c.rel, diff)
		}
	}
}

// TestARM64PackedRules: unwind-O2.dll's function at 0x1084 has packed
// unwind data (RegI 6, CR 1, FrameSize 64); llvm-objdump -d shows its
// prolog and its canonical epilog ending the function:
//
//	1084 stp x19, x20, [sp, #-64]!    10e8 ldr x30, [sp, #48]
//	1088 stp x21, x22, [sp, #16]      10ec ldp x23, x24, [sp, #32]
//	108c stp x23, x24, [sp, #32]      10f0 ldp x21, x22, [sp, #16]
//	1090 str x30, [sp, #48]           10f4 ldp x19, x20, [sp], #64
//	                                  10f8 ret
func TestARM64PackedRules(t *testing.T) {
	m := loadModule(t, "../testdata/windows/arm64/unwind-O2.dll")
	regs := map[string]string{".cfa": "sp 64 +", "x23": ".cfa 32 - ^", "x24": ".cfa 24 - ^",
		"x21": ".cfa 48 - ^", "x22": ".cfa 40 - ^", "x19": ".cfa 64 - ^", "x20": ".cfa 56 - ^"}
	body := map[string]string{".ra": ".cfa 16 - ^", "x30": ".cfa 16 - ^"}
	epilog := map[string]string{".ra": "x30"}
	for k, v := range regs {
		body[k], epilog[k] = v, v
	}
	for _, c := range []struct {
		rel  uint64
		want map[string]string
	}{
		{0x10e4, body},
		{0x10ec, epilog},
		{0x10f8, map[string]string{".cfa": "sp", ".ra": "x30"}},
		{0x1088, map[string]string{".cfa": "sp 64 +", ".ra": "x30", "x19": ".cfa 64 - ^", "x20": ".cfa 56 - ^"}},
	} {
		rules, _, ok := m.CFIRules(walker.NativeQuery{Rel: c.rel, Context: true})
		if !ok {
			t.Errorf("%#x: no rules", c.rel)
			continue
		}
		if diff := cmp.Diff(c.want, ruleMap(rules)); diff != "" {
			t.Errorf("%#x (-want +got):\n%s", c.rel, diff)
		}
	}
}
