package retaddr

import (
	"encoding/hex"
	"testing"
)

// callSites are real assemblers' encodings. The programs in
// testdata/callsites were built and the table printed with:
//
//	arm-linux-gnueabihf-as thumb.s -o thumb.o && arm-linux-gnueabihf-ld -Ttext=0x10000 thumb.o -o thumb.elf
//	aarch64-linux-gnu-as -march=armv8.3-a a64.s -o a64.o && aarch64-linux-gnu-ld -Ttext=0x400000 a64.o -o a64.elf
//	as --32 x86.s -o x86.o && ld -m elf_i386 -Ttext=0x8048000 x86.o -o x86.elf
//	as --64 x64.s -o x64.o && ld -Ttext=0x401000 x64.o -o x64.elf
//	python3 gen.py thumb a64 x86 x64
//
// (GNU binutils 2.42): one row per instruction, the return address just
// after it (Thumb bit set in Thumb code), the bytes before that address,
// and what objdump's disassembly says the instruction is. The targets are
// objdump's; the programs put them megabytes away in both directions so
// that every offset bit (Thumb's J1/J2, ARM's H) is exercised. `mov lr, pc`
// followed by bx/mov pc/ldr pc is the pre-ARMv5 indirect call.
var callSites = []struct {
	name   string
	isa    isa
	ra     uint64
	before string // hex
	want   CallSite
}{
	{"thumb: bl 10000 <_start>", isaARM, 0x310007, "00000000fff4fdff", CallSite{CallDirect, 0x10000}},
	{"thumb: bl 81007a <fwd>", isaARM, 0x31000b, "fff4fdff00f138f0", CallSite{CallDirect, 0x81007a}},
	{"thumb: blx 310028 <armfn>", isaARM, 0x31000f, "00f138f000f00ee8", CallSite{CallDirect, 0x310028}},
	{"thumb: nop ", isaARM, 0x310011, "38f000f00ee8c046", CallSite{NotCall, 0}},
	{"thumb: blx 310028 <armfn>", isaARM, 0x310015, "0ee8c04600f00ae8", CallSite{CallDirect, 0x310028}},
	{"thumb: blx r3", isaARM, 0x310017, "c04600f00ae89847", CallSite{CallIndirect, 0}},
	{"thumb: blx lr", isaARM, 0x310019, "00f00ae89847f047", CallSite{CallIndirect, 0}},
	{"thumb: nop ", isaARM, 0x31001b, "0ae89847f047c046", CallSite{NotCall, 0}},
	{"thumb: bx lr", isaARM, 0x31001d, "9847f047c0467047", CallSite{NotCall, 0}},
	{"thumb: pop {r4, pc}", isaARM, 0x31001f, "f047c046704710bd", CallSite{NotCall, 0}},
	{"thumb: b.w 10000 <_start>", isaARM, 0x310023, "704710bdfff4efbf", CallSite{NotCall, 0}},
	{"thumb: ldr.w r0, [r1,", isaARM, 0x310027, "fff4efbfd1f80400", CallSite{NotCall, 0}},
	{"thumb: mov r0, r1", isaARM, 0x310029, "efbfd1f804000846", CallSite{NotCall, 0}},
	{"arm: bl 10000 <_start>", isaARM, 0x31002c, "04000846f4fff3eb", CallSite{CallDirect, 0x10000}},
	{"arm: blx 81007a <fwd>", isaARM, 0x310030, "f4fff3eb110014fb", CallSite{CallDirect, 0x81007a}},
	{"arm: blne 310028 <armfn>", isaARM, 0x310034, "110014fbfcffff1b", CallSite{CallDirect, 0x310028}},
	{"arm: blx 310074 <thumbfn>", isaARM, 0x310038, "fcffff1b0e0000fa", CallSite{CallDirect, 0x310074}},
	{"arm: blx 310076 <thumbfn2>", isaARM, 0x31003c, "0e0000fa0d0000fb", CallSite{CallDirect, 0x310076}},
	{"arm: blx r3", isaARM, 0x310040, "0d0000fb33ff2fe1", CallSite{CallIndirect, 0}},
	{"arm: mov lr, pc", isaARM, 0x310044, "33ff2fe10fe0a0e1", CallSite{NotCall, 0}},
	{"arm: bx r3", isaARM, 0x310048, "0fe0a0e113ff2fe1", CallSite{CallIndirect, 0}},
	{"arm: mov lr, pc", isaARM, 0x31004c, "13ff2fe10fe0a0e1", CallSite{NotCall, 0}},
	{"arm: mov pc, r2", isaARM, 0x310050, "0fe0a0e102f0a0e1", CallSite{CallIndirect, 0}},
	{"arm: mov lr, pc", isaARM, 0x310054, "02f0a0e10fe0a0e1", CallSite{NotCall, 0}},
	{"arm: ldr pc, [r3,", isaARM, 0x310058, "0fe0a0e104f093e5", CallSite{CallIndirect, 0}},
	{"arm: mov lr, pc", isaARM, 0x31005c, "04f093e50fe0a0e1", CallSite{NotCall, 0}},
	{"arm: ldr pc, [r3, r2, lsl", isaARM, 0x310060, "0fe0a0e102f193e7", CallSite{CallIndirect, 0}},
	{"arm: bx lr", isaARM, 0x310064, "02f193e71eff2fe1", CallSite{NotCall, 0}},
	{"arm: nop ", isaARM, 0x310068, "1eff2fe10000a0e1", CallSite{NotCall, 0}},
	{"arm: pop {pc}", isaARM, 0x31006c, "0000a0e104f09de4", CallSite{NotCall, 0}},
	{"arm: pop {r4, pc}", isaARM, 0x310070, "04f09de41080bde8", CallSite{NotCall, 0}},
	{"arm: b 10000 <_start>", isaARM, 0x310074, "1080bde8e2fff3ea", CallSite{NotCall, 0}},
	{"thumb: nop ", isaARM, 0x310077, "bde8e2fff3eac046", CallSite{NotCall, 0}},
	{"thumb: nop ", isaARM, 0x310079, "e2fff3eac046c046", CallSite{NotCall, 0}},
	{"thumb: nop ", isaARM, 0x31007b, "f3eac046c046c046", CallSite{NotCall, 0}},
	{"thumb: bx lr", isaARM, 0x81007d, "0000000000007047", CallSite{NotCall, 0}},
	{"a64: ret ", isaARM64, 0x400004, "c0035fd6", CallSite{NotCall, 0}},
	{"a64: bl 400000 <_start>", isaARM64, 0x3400008, "ffff3f97", CallSite{CallDirect, 0x400000}},
	{"a64: bl 7400038 <fwd>", isaARM64, 0x340000c, "0c000095", CallSite{CallDirect, 0x7400038}},
	{"a64: blr x3", isaARM64, 0x3400010, "60003fd6", CallSite{CallIndirect, 0}},
	{"a64: blraa x3, x4", isaARM64, 0x3400014, "64083fd7", CallSite{CallIndirect, 0}},
	{"a64: blrab x3, sp", isaARM64, 0x3400018, "7f0c3fd7", CallSite{CallIndirect, 0}},
	{"a64: blraaz x5", isaARM64, 0x340001c, "bf083fd6", CallSite{CallIndirect, 0}},
	{"a64: blrabz x30", isaARM64, 0x3400020, "df0f3fd6", CallSite{CallIndirect, 0}},
	{"a64: ret ", isaARM64, 0x3400024, "c0035fd6", CallSite{NotCall, 0}},
	{"a64: br x3", isaARM64, 0x3400028, "60001fd6", CallSite{NotCall, 0}},
	{"a64: braa x3, x4", isaARM64, 0x340002c, "64081fd7", CallSite{NotCall, 0}},
	{"a64: nop ", isaARM64, 0x3400030, "1f2003d5", CallSite{NotCall, 0}},
	{"a64: b 400000 <_start>", isaARM64, 0x3400034, "f4ff3f17", CallSite{NotCall, 0}},
	{"a64: ldr x0, [x1,", isaARM64, 0x3400038, "200440f9", CallSite{NotCall, 0}},
	{"a64: ret ", isaARM64, 0x740003c, "c0035fd6", CallSite{NotCall, 0}},
	{"x86: call 8048000 <_start>", isaX86, 0x8048106, "000000000000e8fafeffff", CallSite{CallDirect, 0x8048000}},
	{"x86: call 8048257 <fwd>", isaX86, 0x804810b, "00e8fafeffffe84c010000", CallSite{CallDirect, 0x8048257}},
	{"x86: call *%eax", isaX86, 0x804810d, "fafeffffe84c010000ffd0", CallSite{CallIndirect, 0}},
	{"x86: call *(%eax)", isaX86, 0x804810f, "ffffe84c010000ffd0ff10", CallSite{CallIndirect, 0}},
	{"x86: call *0x10(%ebx)", isaX86, 0x8048112, "4c010000ffd0ff10ff5310", CallSite{CallIndirect, 0}},
	{"x86: call *0x12345678(,%eax,4)", isaX86, 0x8048119, "10ff5310ff148578563412", CallSite{CallIndirect, 0}},
	{"x86: call *0x1000(%esp)", isaX86, 0x8048120, "78563412ff942400100000", CallSite{CallIndirect, 0}},
	{"x86: call *(%esp)", isaX86, 0x8048123, "12ff942400100000ff1424", CallSite{CallIndirect, 0}},
	{"x86: call *0x10(%esp)", isaX86, 0x8048127, "00100000ff1424ff542410", CallSite{CallIndirect, 0}},
	{"x86: call *0x12345678", isaX86, 0x804812d, "24ff542410ff1578563412", CallSite{CallIndirect, 0}},
	{"x86: call *%gs:0x10", isaX86, 0x8048134, "7856341265ff1510000000", CallSite{CallIndirect, 0}},
	{"x86: lcall *(%eax)", isaX86, 0x8048136, "341265ff1510000000ff18", CallSite{CallIndirect, 0}},
	{"x86: lcall $0x10,$0x1000", isaX86, 0x804813d, "0000ff189a001000001000", CallSite{CallIndirect, 0}},
	{"x86: call *(%si)", isaX86, 0x8048140, "189a00100000100067ff14", CallSite{CallIndirect, 0}},
	{"x86: call *0x1234(%bx)", isaX86, 0x8048145, "00100067ff1467ff973412", CallSite{CallIndirect, 0}},
	{"x86: callw 8149 <_start-0x803feb7>", isaX86, 0x8048149, "ff1467ff97341266e80000", CallSite{CallIndirect, 0}},
	{"x86: ret ", isaX86, 0x804814a, "1467ff97341266e80000c3", CallSite{NotCall, 0}},
	// Not a call, but the bytes e8 00 00 c3 90 (the tail of callw, ret,
	// nop) are one: read backwards, instruction boundaries are unknown, so
	// a call encoding ending at ra counts (gen.py prints NotCall here).
	{"x86: nop ", isaX86, 0x804814b, "67ff97341266e80000c390", CallSite{CallDirect, 0x98c7814b}},
	{"x86: jmp *%eax", isaX86, 0x804814d, "97341266e80000c390ffe0", CallSite{NotCall, 0}},
	{"x86: jmp 8048000 <_start>", isaX86, 0x8048152, "0000c390ffe0e9aefeffff", CallSite{NotCall, 0}},
	{"x86: mov 0x10(%ebx),%eax", isaX86, 0x8048155, "90ffe0e9aefeffff8b4310", CallSite{NotCall, 0}},
	{"x86: push %ebp", isaX86, 0x8048156, "ffe0e9aefeffff8b431055", CallSite{NotCall, 0}},
	{"x86: leave ", isaX86, 0x8048157, "e0e9aefeffff8b431055c9", CallSite{NotCall, 0}},
	{"x86: ret ", isaX86, 0x8048258, "00000000000000000000c3", CallSite{NotCall, 0}},
	{"x64: call 401000 <_start>", isaAMD64, 0x401106, "000000000000e8fafeffff", CallSite{CallDirect, 0x401000}},
	{"x64: call 401252 <fwd>", isaAMD64, 0x40110b, "00e8fafeffffe847010000", CallSite{CallDirect, 0x401252}},
	{"x64: call *%rax", isaAMD64, 0x40110d, "fafeffffe847010000ffd0", CallSite{CallIndirect, 0}},
	{"x64: call *%r8", isaAMD64, 0x401110, "ffe847010000ffd041ffd0", CallSite{CallIndirect, 0}},
	{"x64: call *(%rax)", isaAMD64, 0x401112, "47010000ffd041ffd0ff10", CallSite{CallIndirect, 0}},
	{"x64: call *0x0(%r13)", isaAMD64, 0x401116, "ffd041ffd0ff1041ff5500", CallSite{CallIndirect, 0}},
	{"x64: call *(%r12)", isaAMD64, 0x40111a, "d0ff1041ff550041ff1424", CallSite{CallIndirect, 0}},
	{"x64: call *0x10(%rip)", isaAMD64, 0x401120, "0041ff1424ff1510000000", CallSite{CallIndirect, 0}},
	{"x64: call *0x10(%rsp)", isaAMD64, 0x401124, "24ff1510000000ff542410", CallSite{CallIndirect, 0}},
	{"x64: call *0x12345678(,%rax,8)", isaAMD64, 0x40112b, "ff542410ff14c578563412", CallSite{CallIndirect, 0}},
	{"x64: call *0x12345678(%r12,%r9,8)", isaAMD64, 0x401133, "56341243ff94cc78563412", CallSite{CallIndirect, 0}},
	{"x64: call *%fs:0x10", isaAMD64, 0x40113b, "56341264ff142510000000", CallSite{CallIndirect, 0}},
	{"x64: lcall *(%rax)", isaAMD64, 0x40113d, "1264ff142510000000ff18", CallSite{CallIndirect, 0}},
	{"x64: rex.W call *(%rax)", isaAMD64, 0x401140, "142510000000ff1848ff10", CallSite{CallIndirect, 0}},
	{"x64: call *(%eax)", isaAMD64, 0x401143, "000000ff1848ff1067ff10", CallSite{CallIndirect, 0}},
	{"x64: ret ", isaAMD64, 0x401144, "0000ff1848ff1067ff10c3", CallSite{NotCall, 0}},
	{"x64: nop ", isaAMD64, 0x401145, "00ff1848ff1067ff10c390", CallSite{NotCall, 0}},
	{"x64: jmp *%rax", isaAMD64, 0x401147, "1848ff1067ff10c390ffe0", CallSite{NotCall, 0}},
	{"x64: jmp 401000 <_start>", isaAMD64, 0x40114c, "ff10c390ffe0e9b4feffff", CallSite{NotCall, 0}},
	{"x64: mov 0x10(%rbx),%rax", isaAMD64, 0x401150, "ffe0e9b4feffff488b4310", CallSite{NotCall, 0}},
	{"x64: push %rbp", isaAMD64, 0x401151, "e0e9b4feffff488b431055", CallSite{NotCall, 0}},
	{"x64: leave ", isaAMD64, 0x401152, "e9b4feffff488b431055c9", CallSite{NotCall, 0}},
	{"x64: ret ", isaAMD64, 0x401253, "00000000000000000000c3", CallSite{NotCall, 0}},
}

func TestDecodeCallSite(t *testing.T) {
	for _, c := range callSites {
		b, err := hex.DecodeString(c.before)
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeCallSite(c.isa, b, c.ra); got != c.want {
			t.Errorf("%s (ra %#x, %s): %v %#x, want %v %#x", c.name, c.ra, c.before, got.Kind, got.Target, c.want.Kind, c.want.Target)
		}
	}
}

// minBytes is how many bytes before ra a NotCall answer needs: every call
// encoding that could end at ra must be visible.
func minBytes(i isa, ra uint64) int {
	switch i {
	case isaARM:
		return 4
	case isaARM64:
		return 4
	case isaX86, isaAMD64:
		return 7
	}
	return 0
}

// TestDecodeCallSiteMissingBytes cuts each row's bytes short: the answer is
// then unknown or the full answer, never a NotCall a longer call could
// refute.
func TestDecodeCallSiteMissingBytes(t *testing.T) {
	for _, c := range callSites {
		b, _ := hex.DecodeString(c.before)
		full := decodeCallSite(c.isa, b, c.ra)
		for k := range len(b) {
			got := decodeCallSite(c.isa, b[len(b)-k:], c.ra)
			if got.Kind == CallUnknown || got == full {
				continue
			}
			if got.Kind == NotCall && k < minBytes(c.isa, c.ra) {
				t.Errorf("%s: %d bytes: NotCall with too few bytes", c.name, k)
			}
			if got.Kind != NotCall || full.Kind != NotCall {
				t.Errorf("%s: %d bytes: %v %#x, all %d bytes: %v %#x", c.name, k, got.Kind, got.Target, len(b), full.Kind, full.Target)
			}
		}
	}
}

func TestDecodeCallSiteAlignment(t *testing.T) {
	bl := []byte{0x00, 0x00, 0x00, 0x94} // arm64 bl .
	if got := decodeCallSite(isaARM64, bl, 0x1002); got.Kind != NotCall {
		t.Errorf("arm64 unaligned return address: %v, want NotCall", got.Kind)
	}
	armBL := []byte{0xfe, 0xff, 0xff, 0xeb} // ARM bl .
	if got := decodeCallSite(isaARM, armBL, 0x1002); got.Kind != NotCall {
		t.Errorf("ARM return address at 2 mod 4: %v, want NotCall", got.Kind)
	}
	if got := decodeCallSite(isaARM, armBL, 0x1000); got != (CallSite{CallDirect, 0x1000 - 4}) {
		t.Errorf("ARM bl .: %v %#x, want direct %#x", got.Kind, got.Target, 0x1000-4)
	}
}

// FuzzDecodeCallSite: no panic on any bytes, and the answers keep their
// contract.
func FuzzDecodeCallSite(f *testing.F) {
	for _, c := range callSites {
		b, _ := hex.DecodeString(c.before)
		f.Add(uint8(c.isa), b, c.ra)
	}
	f.Add(uint8(isaX86), []byte{}, uint64(0))
	f.Add(uint8(isaAMD64), []byte{0xff}, ^uint64(0))
	f.Fuzz(func(t *testing.T, i uint8, b []byte, ra uint64) {
		arch := isa(i % 5)
		got := decodeCallSite(arch, b, ra)
		if got.Kind == NotCall && len(b) < minBytes(arch, ra) {
			t.Fatalf("NotCall from %d bytes", len(b))
		}
		if got.Kind != CallDirect && got.Target != 0 {
			t.Fatalf("%v with target %#x", got.Kind, got.Target)
		}
		if (arch == isaARM || arch == isaX86) && got.Target > 0xffffffff {
			t.Fatalf("32-bit target %#x", got.Target)
		}
		if arch == isaARM && got.Target&1 != 0 {
			t.Fatalf("ARM target %#x with the Thumb bit", got.Target)
		}
	})
}
