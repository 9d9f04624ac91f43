package prologue

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// TestRules checks the STACK CFI rules of golden functions against the
// rules written out by hand from objdump's listing (testdata/objdump.txt)
// and the calling conventions: the CFA is the stack pointer at the call
// (on x86 and amd64 above the pushed return address), saved registers
// lie at negative offsets from it.
func TestRules(t *testing.T) {
	tests := []struct {
		title string
		pc    uint64 // analyze up to here
		want  string
	}{
		// push {r7, lr}; sub sp, #144 (before the push: nothing saved, lr holds the return address)
		{"arm-crashdemo abort", 0x101dc, ".cfa: sp 0 + .ra: lr"},
		{"arm-crashdemo abort", 0x101e4, ".cfa: sp 152 + .ra: .cfa -4 + ^ lr: .cfa -4 + ^ r7: .cfa -8 + ^"},
		// mov ip, sp (ip = CFA); push {r0-r3}; push {r4, fp, ip, lr, pc} (r4 at CFA-36 ... pc at
		// CFA-20); sub fp, ip, #20 (fp = CFA-20)
		{"arm-apcsdemo apcs_va", 0x104d0, ".cfa: r11 20 + .ra: .cfa -24 + ^ lr: .cfa -24 + ^ r11: .cfa -32 + ^ r4: .cfa -36 + ^"},
		// stp x29, x30, [sp, #-48]!; mov x29, sp
		{"arm64-crashdemo o0_mid", 0x4008b0, ".cfa: x29 48 + .ra: .cfa -40 + ^ x29: .cfa -48 + ^ x30: .cfa -40 + ^"},
		// push r15, r14, r13, r12, rbp, rbx (moves and shifts between)
		{"amd64-crashdemo msort_with_tmp.part.0", 0x409873, ".cfa: $rsp 56 + .ra: .cfa -8 + ^ $r12: .cfa -40 + ^ $r13: .cfa -32 + ^ " +
			"$r14: .cfa -24 + ^ $r15: .cfa -16 + ^ $rbp: .cfa -48 + ^ $rbx: .cfa -56 + ^"},
		// push %ebp; mov %esp,%ebp; sub $0x10,%esp
		{"x86-crashdemo o0_mid", 0x8049905, ".cfa: $ebp 8 + .ra: .cfa -4 + ^ $ebp: .cfa -8 + ^"},
	}
	cases := map[string]goldenCase{}
	for _, c := range readGolden(t) {
		cases[c.title] = c
	}
	for _, tt := range tests {
		c, ok := cases[tt.title]
		if !ok {
			t.Fatalf("%s: not in %s", tt.title, goldenPath)
		}
		if got := rulesString(Analyze(c.arch, c.code, c.start, tt.pc).Rules()); got != tt.want {
			t.Errorf("%s at %#x:\n got %s\nwant %s", tt.title, tt.pc, got, tt.want)
		}
	}
}

func rulesString(r map[string]string) string {
	keys := make([]string, 0, len(r))
	for k := range r {
		if k != ".cfa" && k != ".ra" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := []string{".cfa: " + r[".cfa"], ".ra: " + r[".ra"]}
	for _, k := range keys {
		out = append(out, fmt.Sprintf("%s: %s", k, r[k]))
	}
	return strings.Join(out, " ")
}

// TestAnalyzeBounds checks the edges: a pc before the start, code that
// ends inside an instruction, an unknown architecture.
func TestAnalyzeBounds(t *testing.T) {
	if f := Analyze(Thumb, []byte{0x80, 0xb5}, 0x100, 0xfe); f.Stop == "" || f.SPBelow != 0 {
		t.Errorf("pc before start: %+v", f)
	}
	if f := Analyze(Thumb, []byte{0x2d, 0xe9}, 0x100, 0x104); f.Stop == "" {
		t.Errorf("truncated 32-bit Thumb instruction: %+v", f)
	}
	if f := Analyze(AMD64, []byte{0x48, 0x81}, 0x100, 0x110); f.Stop == "" {
		t.Errorf("truncated x86 instruction: %+v", f)
	}
	if f := Analyze(Arch(99), []byte{0}, 0, 1); f.Stop == "" {
		t.Errorf("unknown architecture: %+v", f)
	}
	// push {r4, lr} twice: a register keeps its first slot.
	f := Analyze(Thumb, []byte{0x10, 0xb5, 0x10, 0xb5}, 0, 4)
	if f.SPBelow != 16 || f.Saved[14] != 4 || f.Saved[4] != 8 {
		t.Errorf("two pushes: %+v", f)
	}
}

// FuzzAnalyze runs every architecture over arbitrary bytes: no panic,
// no more than MaxBytes read, the rules well formed.
func FuzzAnalyze(f *testing.F) {
	f.Add(uint8(Thumb), []byte{0x80, 0xb5, 0xa4, 0xb0}, uint16(4))
	f.Add(uint8(ARM), []byte{0x0d, 0xc0, 0xa0, 0xe1, 0x0f, 0x00, 0x2d, 0xe9}, uint16(8))
	f.Add(uint8(ARM64), []byte{0xfd, 0x7b, 0xbd, 0xa9, 0xfd, 0x03, 0x00, 0x91}, uint16(8))
	f.Add(uint8(AMD64), []byte{0x41, 0x57, 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x20}, uint16(10))
	f.Add(uint8(X86), []byte{0x55, 0x89, 0xe5, 0x83, 0xec, 0x10}, uint16(6))
	f.Fuzz(func(t *testing.T, arch uint8, code []byte, pc uint16) {
		fr := Analyze(Arch(arch%6), code, 0x1000, 0x1000+uint64(pc))
		if fr.Instructions > MaxBytes {
			t.Fatalf("%d instructions from at most %d bytes", fr.Instructions, MaxBytes)
		}
		rules := fr.Rules()
		if rules[".cfa"] == "" || rules[".ra"] == "" {
			t.Fatalf("rules without .cfa or .ra: %v", rules)
		}
	})
}
