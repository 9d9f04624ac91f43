package arm64_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// Module layout of Breakpad's stackwalker_arm64_unittest.cc.
const (
	mod1  = 0x40000000
	mod2  = 0x50000000
	stack = 0x80000000
)

// fixture is a context, stack words from stackBase and symbol texts.
type fixture struct {
	ctx        minidump.Context
	stackBase  uint64
	words      map[uint64]uint64 // address -> value
	stackSize  uint64
	syms       map[string]string
	maxScanned int
	code       *walkertest.Memory // the dump's code (walker.Env.Code), if any
}

// newFixture brands every register with junk that points nowhere, as
// Breakpad's unit tests do: Breakpad's frame-pointer step reads x29 and LR
// whatever their validity, and with x29 = 0 it would end the walk.
func newFixture() *fixture {
	f := &fixture{ctx: minidump.NewContext(minidump.ArchARM64), stackBase: stack, words: map[uint64]uint64{}, stackSize: 0x100}
	for i := 0; i < f.ctx.NumRegs(); i++ {
		f.ctx.SetIndex(i, 0x0f0f0f0f0f0f0f00+uint64(i)*0x11)
	}
	return f
}

func (f *fixture) set(reg int, v uint64) *fixture { f.ctx.SetIndex(reg, v); return f }

func (f *fixture) walk(t *testing.T, breakpad bool) *walker.Stack {
	t.Helper()
	data := make([]byte, f.stackSize)
	for a, v := range f.words {
		binary.LittleEndian.PutUint64(data[a-f.stackBase:], v)
	}
	env := &walker.Env{
		OS:         "linux",
		Memory:     &walkertest.Memory{Base: f.stackBase, Data: data},
		Modules:    walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000), walkertest.Module(1, "module2", mod2, 0x10000)}),
		MaxScanned: f.maxScanned,
	}
	if f.syms != nil {
		env.Symbols = walkertest.NewSymbols(t, f.syms)
	}
	if f.code != nil && !breakpad {
		env.Code = f.code
	}
	env.Mode = walkertest.Mode(breakpad)
	return walker.Walk(env, arm64.New(), f.ctx)
}

type want struct {
	pc, sp uint64
	trust  walker.Trust
}

func check(t *testing.T, mode string, st *walker.Stack, frames ...want) {
	t.Helper()
	ws := make([]walkertest.Want, len(frames))
	for i, f := range frames {
		ws[i] = walkertest.Want{PC: f.pc, SP: f.sp, Trust: f.trust}
	}
	walkertest.CheckFrames(t, mode, st, minidump.ARM64PC, minidump.ARM64SP, 4, ws...)
}

func both(t *testing.T, f *fixture, frames ...want) {
	t.Helper()
	check(t, "breakpad", f.walk(t, true), frames...)
	check(t, "extended", f.walk(t, false), frames...)
}

const sym1 = "MODULE Linux arm64 ID1 module1\n"
const sym2 = "MODULE Linux arm64 ID2 module2\nFUNC 2000 100 0 b_func\nFUNC 2100 100 0 d_func\n"

func TestContextOnlyWithoutMemory(t *testing.T) {
	ctx := minidump.NewContext(minidump.ArchARM64)
	ctx.SetIndex(minidump.ARM64PC, mod1+0x200)
	st := walker.Walk(&walker.Env{}, arm64.New(), ctx)
	if len(st.Frames) != 1 || st.Frames[0].Trust != walker.TrustContext {
		t.Fatalf("got %d frames", len(st.Frames))
	}
}

// TestScan: no symbols, no frame pointer: the caller is the first word that
// points into a module (Breakpad's ScanWithoutSymbols).
func TestScan(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x200).set(minidump.ARM64SP, stack)
	f.words[stack+8] = 0x1234 // not in a module
	f.words[stack+16] = mod2 + 0x104
	both(t, f, want{mod1 + 0x200, stack, walker.TrustContext}, want{mod2 + 0x104, stack + 24, walker.TrustScan})
}

// TestScanCap: with the scan cap reached, scanning is refused.
func TestScanCap(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x200).set(minidump.ARM64SP, stack)
	f.words[stack+16] = mod2 + 0x104
	f.maxScanned = 1 // the context frame does not count; one scanned frame would
	both(t, f, want{mod1 + 0x200, stack, walker.TrustContext}, want{mod2 + 0x104, stack + 24, walker.TrustScan})
	f.words[stack+32] = mod2 + 0x108
	check(t, "breakpad", f.walk(t, true), want{mod1 + 0x200, stack, walker.TrustContext}, want{mod2 + 0x104, stack + 24, walker.TrustScan})
}

// TestCFI: STACK CFI recovers pc, sp and the saved registers; callee-saved
// registers without a rule (x20) keep their value, others are unknown.
func TestCFI(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack).
		set(minidump.ARM64X19, 0x1919).set(20, 0x2020).set(0, 0xa0).set(minidump.ARM64FP, stack+0x10)
	// Frame 1's saved x29 points outside the stack, so the walk ends there.
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 32 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^ x19: .cfa -24 + ^\n", "module2": sym2}
	f.words[stack+8] = 0xa19
	f.words[stack+16] = stack + 0xf000
	f.words[stack+24] = mod2 + 0x2044
	for _, breakpad := range []bool{true, false} {
		st := f.walk(t, breakpad)
		check(t, "cfi", st, want{mod1 + 0x1010, stack, walker.TrustContext}, want{mod2 + 0x2044, stack + 32, walker.TrustCFI})
		c := st.Frames[1].Context
		for _, r := range []struct {
			reg   int
			v     uint64
			valid bool
		}{{minidump.ARM64X19, 0xa19, true}, {20, 0x2020, true}, {minidump.ARM64FP, stack + 0xf000, true}, {0, 0, false}, {minidump.ARM64LR, 0, false}} {
			v, ok := c.Index(r.reg)
			if ok != r.valid || (ok && v != r.v) {
				t.Errorf("breakpad=%v: reg %d = %#x valid %v, want %#x valid %v", breakpad, r.reg, v, ok, r.v, r.valid)
			}
		}
	}
}

// TestCFIEntryStopRules: a CFI row at a function entry (.ra in x30, SP
// unchanged) is accepted for the context frame only; a second unwind that
// does not move SP ends the walk.
func TestCFIEntryStopRules(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1000).set(minidump.ARM64SP, stack).set(minidump.ARM64LR, mod1+0x2010)
	f.syms = map[string]string{"module1": sym1 +
		"STACK CFI INIT 1000 10 .cfa: sp 0 + .ra: x30\n" +
		"STACK CFI INIT 2000 100 .cfa: sp 0 + .ra: x30\n"}
	// Frame 1 (0x2010) has the same entry rule, but x30 is unknown there:
	// CFI fails, and nothing else finds a caller.
	both(t, f, want{mod1 + 0x1000, stack, walker.TrustContext}, want{mod1 + 0x2010, stack, walker.TrustCFI})

	// With x30 recovered for frame 1, its entry rule gives SP unchanged on
	// the second unwind: Breakpad's rule ends the walk there; rust-minidump's,
	// which the extended walker follows, accepts a CFI entry row whose PC differs.
	f.syms["module1"] = sym1 +
		"STACK CFI INIT 1000 10 .cfa: sp 16 + .ra: .cfa -8 + ^ x30: .cfa -16 + ^\n" +
		"STACK CFI INIT 2000 100 .cfa: sp 0 + .ra: x30\n"
	f.words[stack+8] = mod1 + 0x2010
	f.words[stack] = mod2 + 0x2044
	check(t, "breakpad", f.walk(t, true), want{mod1 + 0x1000, stack, walker.TrustContext}, want{mod1 + 0x2010, stack + 16, walker.TrustCFI})
	check(t, "extended", f.walk(t, false), want{mod1 + 0x1000, stack, walker.TrustContext}, want{mod1 + 0x2010, stack + 16, walker.TrustCFI},
		want{mod2 + 0x2044, stack + 16, walker.TrustCFI})

	// A frame-pointer or scanned step that does not move SP ends the walk in both modes.
	f.syms["module1"] = sym1 + "STACK CFI INIT 1000 10 .cfa: sp 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n"
	// Frame 1's saved x29 lies below its SP: Breakpad's frame-pointer step gives
	// an SP that did not move and stops; the extended walker refuses the record.
	f.words[stack] = stack
	f.words[stack+8] = mod1 + 0x2010
	both(t, f, want{mod1 + 0x1000, stack, walker.TrustContext}, want{mod1 + 0x2010, stack + 16, walker.TrustCFI})
}

// TestStopRules: a caller PC below 4096 or an SP below the callee's ends the walk.
func TestStopRules(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n"}
	f.words[stack+8] = 0xff0
	both(t, f, want{mod1 + 0x1010, stack, walker.TrustContext})

	f = newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack)
	f.stackBase = stack - 0x100
	f.stackSize = 0x200
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 - .ra: .cfa 8 + ^\n"}
	f.words[stack-8] = mod2 + 0x2044
	both(t, f, want{mod1 + 0x1010, stack, walker.TrustContext})
}

// TestFramePointer: a function without CFI that has pushed its frame record
// and made calls (LR points back into it). Breakpad takes the caller's PC
// from LR and so lists the function twice; the extended walker reads the
// return address from the record.
func TestFramePointer(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod1+0x1040).set(minidump.ARM64FP, stack+0x10)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 a_func\n", "module2": sym2}
	f.words[stack+0x10] = stack + 0x30
	f.words[stack+0x18] = mod2 + 0x2044
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod1 + 0x1040, stack + 0x20, walker.TrustFramePointer},
		want{mod2 + 0x2044, stack + 0x40, walker.TrustFramePointer})
	ext := f.walk(t, false)
	check(t, "extended", ext,
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustFramePointer})
	// The caller's LR comes from its own record (here the end of the chain: 0).
	if lr, ok := ext.Frames[1].Context.Index(minidump.ARM64LR); !ok || lr != 0 {
		t.Errorf("frame 1 LR %#x valid %v, want 0 from the caller's record", lr, ok)
	}

	// A return address outside every module (JIT code) is followed only
	// when the next record leads back into a module.
	f.words[stack+0x18] = 0x70000044
	f.words[stack+0x38] = 0
	check(t, "extended, record into nowhere at the end", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext})
	f.words[stack+0x30] = stack + 0x50
	f.words[stack+0x38] = mod2 + 0x2048
	check(t, "extended, JIT frame", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{0x70000044, stack + 0x20, walker.TrustFramePointer},
		want{mod2 + 0x2048, stack + 0x40, walker.TrustFramePointer})
	f.words[stack+0x18] = mod2 + 0x2044
	f.words[stack+0x30], f.words[stack+0x38] = 0, 0

	// A record whose saved frame pointer does not lie above it is refused;
	// scanning finds the return address instead.
	f.words[stack+0x10] = stack + 0x8
	st := f.walk(t, false)
	check(t, "extended, bad record", st,
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustScan})
}

// TestLeafWithoutFrameRecord: the crash is in a leaf without CFI that has
// not pushed a frame record, so x29 is still its caller's. The extended
// walker returns through LR keeping SP, x29 and x19–x28, then follows the
// caller's record. Breakpad sets SP to x29+16 and loses the third frame.
func TestLeafWithoutFrameRecord(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x2044).set(minidump.ARM64FP, stack+0x10).set(minidump.ARM64X19, 0x19)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\nFUNC 3000 100 0 c_func\n", "module2": sym2}
	f.stackSize = 0x20
	f.words[stack+0x10] = 0
	f.words[stack+0x18] = 0x0012000000000000 | (mod1 + 0x3004) // pointer-authentication bits
	ext := f.walk(t, false)
	check(t, "extended", ext,
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack, walker.TrustLeaf},
		want{mod1 + 0x3004, stack + 0x20, walker.TrustFramePointer})
	if v, ok := ext.Frames[1].Context.Index(minidump.ARM64X19); !ok || v != 0x19 {
		t.Errorf("leaf return: x19 = %#x valid %v, want 0x19", v, ok)
	}
	if v, ok := ext.Frames[1].Context.Index(minidump.ARM64FP); !ok || v != stack+0x10 {
		t.Errorf("leaf return: fp = %#x valid %v, want unchanged", v, ok)
	}
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustFramePointer})

	// When the record at x29 holds LR itself, the function has pushed it:
	// no leaf return.
	f.words[stack+0x18] = mod2 + 0x2044
	f.words[stack+0x10] = 0
	check(t, "extended, pushed", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustFramePointer})
}

// TestPointerAuthentication: LR with authentication bits is stripped in the
// context frame (both modes; Breakpad keeps a value that lands in no module).
func TestPointerAuthentication(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, 0x0040000000000000|(mod2+0x2044)).set(minidump.ARM64FP, 0)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 0 + .ra: x30\n", "module2": sym2}
	for _, breakpad := range []bool{true, false} {
		st := f.walk(t, breakpad)
		if lr, _ := st.Frames[0].Context.Index(minidump.ARM64LR); lr != mod2+0x2044 {
			t.Errorf("breakpad=%v: context LR %#x, want stripped %#x", breakpad, lr, mod2+0x2044)
		}
		check(t, "pac", st, want{mod1 + 0x1010, stack, walker.TrustContext}, want{mod2 + 0x2044, stack, walker.TrustCFI})
	}
	// Breakpad does not strip a value whose stripped form is in no module.
	f.set(minidump.ARM64LR, 0x0040000000000000|0x60000000)
	st := f.walk(t, true)
	if lr, _ := st.Frames[0].Context.Index(minidump.ARM64LR); lr != 0x0040000060000000 {
		t.Errorf("breakpad: LR %#x stripped though outside every module", lr)
	}
}

// TestValidatedScan: a function pointer (the start of d_func) passes
// Breakpad's test, since the address before it lies in b_func; the extended
// scan skips it and finds the return address when its CFI proves it
// (retaddr.CheckProof); unproven, after a refused word, it is not taken.
func TestValidatedScan(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x200).set(minidump.ARM64SP, stack)
	f.syms = map[string]string{"module2": sym2}
	f.words[stack+8] = mod2 + 0x2100
	f.words[stack+16] = mod2 + 0x2044
	check(t, "breakpad", f.walk(t, true), want{mod1 + 0x200, stack, walker.TrustContext},
		want{mod2 + 0x2100, stack + 16, walker.TrustScan}, want{mod2 + 0x2044, stack + 24, walker.TrustScan})
	check(t, "extended, unproven", f.walk(t, false), want{mod1 + 0x200, stack, walker.TrustContext})
	f.syms = map[string]string{"module2": sym2 + "STACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n"}
	// (A caller with CFI gets the 16-byte aligned sp above the word.)
	check(t, "extended, proven by CFI", f.walk(t, false), want{mod1 + 0x200, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 32, walker.TrustScan})
}

// bl encodes an A64 BL at addr to target (ARM ARM C6.2.34).
func bl(addr, target uint64) uint32 {
	return 0x94000000 | uint32((target-addr)>>2)&0x3ffffff
}

// TestFrameRecordCallSite: a_func (no CFI) has made calls (LR points into
// it) and saved x29 without setting it up, so x29 is still b_func's record,
// whose return address is b_func's caller's. When the dump holds the code,
// that return address follows d_func's call to b_func, not a call to
// a_func, and the return address a_func pushed below the record follows
// b_func's call to a_func: the record is not a_func's, and the scan,
// choosing by call site, finds b_func's return address where a_func pushed
// it. Without the code the walk follows the record and skips b_func. (BL
// reaches ±128 MB: a_func is in b_func's module.)
//
// A tail call leaves the same call site: d_func called b_func, which
// tail-called a_func, whose record is at x29. With nothing below the
// record that follows a call to a_func, the record stands.
func TestFrameRecordCallSite(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod2+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x1040).set(minidump.ARM64FP, stack+0x20)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 a_func\n"}
	f.words[stack] = stack + 0x20       // a_func's saved x29
	f.words[stack+8] = mod2 + 0x2048    // and LR: return into b_func
	f.words[stack+0x20] = 0             // b_func's record
	f.words[stack+0x28] = mod2 + 0x2108 // return into d_func
	check(t, "extended, no code", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustFramePointer})

	f.code = &walkertest.Memory{Base: mod2 + 0x2000, Data: make([]byte, 0x200)}
	f.putBL(mod2+0x2044, mod2+0x1000) // b_func calls a_func
	f.putBL(mod2+0x2104, mod2+0x2000) // d_func calls b_func
	check(t, "extended, code", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 0x10, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustScan})

	// Tail call: the word below the record is a stale return address
	// into d_func, and the record is a_func's own.
	f.words[stack+8] = mod2 + 0x2168
	f.putBL(mod2+0x2164, mod2+0x2000) // d_func calls b_func
	check(t, "extended, code, tail call", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustFramePointer})
}

// TestLeafReturnIntoSymbolGap: LR is the code's own return address, so it
// needs only lie in a module, not in a function of the symbol file. Here
// the leaf returns into module2+0x1000, which the symbol file leaves out,
// and the record at x29 (b_func's caller's) is followed from there.
// Breakpad also takes LR (its frame-pointer step always does). Then: the
// crash is in module1+0x2010, a gap, and LR in c_func of the same module: a
// symbol names LR's function and none the crashing one's, so LR is no
// stale return into the crashing function.
func TestLeafReturnIntoSymbolGap(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1010).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x1044).set(minidump.ARM64FP, stack+0x10)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\nFUNC 3000 100 0 c_func\n", "module2": sym2}
	f.words[stack+0x10] = 0
	f.words[stack+0x18] = mod1 + 0x3004
	check(t, "extended, LR into a gap", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x1044, stack, walker.TrustLeaf},
		want{mod1 + 0x3004, stack + 0x20, walker.TrustFramePointer})

	f.set(minidump.ARM64PC, mod1+0x2010).set(minidump.ARM64LR, mod1+0x3044)
	f.words[stack+0x18] = mod2 + 0x2044
	check(t, "extended, crash in a gap", f.walk(t, false),
		want{mod1 + 0x2010, stack, walker.TrustContext},
		want{mod1 + 0x3044, stack, walker.TrustLeaf},
		want{mod2 + 0x2044, stack + 0x20, walker.TrustFramePointer})
}

// TestFramelessCalleeEndOfChain: a_func (no CFI) has made calls and left
// x29 alone, so x29 points at b_func's record, which ends the chain: the
// frame-pointer step finds nothing. The plain scan would take the stale
// return address into d_func below; b_func's return address, which a_func
// saved, is the one whose CFI lands exactly on the record.
func TestFramelessCalleeEndOfChain(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod1+0x1040).set(minidump.ARM64FP, stack+0x20)
	f.syms = map[string]string{
		"module1": sym1 + "FUNC 1000 100 0 a_func\n",
		"module2": sym2 + "STACK CFI INIT 2000 100 .cfa: sp 32 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n",
	}
	f.words[stack] = mod2 + 0x2108   // stale: return into d_func
	f.words[stack+8] = mod2 + 0x2048 // saved by a_func: return into b_func
	f.words[stack+0x20] = 0          // b_func's record ends the chain
	f.words[stack+0x28] = 0
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 0x10, walker.TrustScan})

	// b_func's frame one word larger: its CFI reads the record's words as
	// other slots, the record is not its own, and the scan decides.
	f.syms["module2"] = strings.Replace(f.syms["module2"], "sp 32 +", "sp 40 +", 1)
	check(t, "extended, CFI elsewhere", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 8, walker.TrustScan},
		want{mod2 + 0x2048, stack + 0x10, walker.TrustScan})
}

// TestFramelessCalleeUnderFrameOfItsOwn: the word below the record that
// framelessCaller meets first has a frame of its own, so framelessCaller
// must leave the caller to the scan rather than go on to the word whose CFI
// lands exactly on the record (which would drop a frame).
//
// b_func, the outermost function (its record holds x29 = 0 and LR = 0, as
// _start leaves them), calls c_func, which has CFI and keeps no frame
// record (-fomit-frame-pointer: it saves x30 only), which calls a_func,
// which has no CFI, keeps no frame record either, has made calls (LR points
// back into it) and crashes. Neither callee touched x29, so it still points
// at b_func's record. By AAPCS64 a frame record is [x29] = caller's x29,
// [x29+8] = LR; clang keeps it at the top of the frame (CFA−16). The stack,
// lowest address first (SP = stack):
//
//	stack+0x00  0x19          a_func: a spilled register
//	stack+0x08  c_func+0x48   a_func: saved x30 (return into c_func)   ← a_func's CFA is stack+0x10
//	stack+0x10  0x19          c_func: a spilled register
//	stack+0x18  b_func+0x48   c_func: saved x30 (return into b_func)   ← c_func's CFA is stack+0x20
//	stack+0x20  0x20          b_func: a local
//	stack+0x28  0x28          b_func: a local
//	stack+0x30  0             b_func's record: saved x29 (end of chain) ← x29
//	stack+0x38  0             b_func's record: saved LR                ← b_func's CFA is stack+0x40
//
// The frame-pointer step finds nothing (the record's return address is 0).
// framelessCaller meets c_func+0x48 at stack+0x08 first: c_func's CFI
// unwound from stack+0x10 gives b_func+0x48 at SP stack+0x20, a plausible
// caller, but not the record (its CFA stack+0x40, return address 0). That
// is a frame of its own below the record's owner, so framelessCaller
// returns nothing and the scan takes c_func+0x48; c_func's CFI then gives
// b_func, whose CFI reads the record and ends the walk. Those are the real
// frames: a_func, c_func, b_func. Had framelessCaller gone on to
// b_func+0x48 at stack+0x18, whose CFI does land exactly on the record, the
// walk would have skipped c_func.
func TestFramelessCalleeUnderFrameOfItsOwn(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod1+0x1040).set(minidump.ARM64FP, stack+0x30)
	f.syms = map[string]string{
		"module1": sym1 + "FUNC 1000 100 0 a_func\n",
		"module2": "MODULE Linux arm64 ID2 module2\n" +
			"FUNC 2000 100 0 b_func\nFUNC 2200 100 0 c_func\n" +
			"STACK CFI INIT 2000 100 .cfa: sp 32 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n" +
			"STACK CFI INIT 2200 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n",
	}
	f.words[stack] = 0x19
	f.words[stack+0x08] = mod2 + 0x2248
	f.words[stack+0x10] = 0x19
	f.words[stack+0x18] = mod2 + 0x2048
	f.words[stack+0x20] = 0x20
	f.words[stack+0x28] = 0x28
	f.words[stack+0x30] = 0
	f.words[stack+0x38] = 0
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2248, stack + 0x10, walker.TrustScan},
		want{mod2 + 0x2048, stack + 0x20, walker.TrustCFI})

	// The positive case in the same layout: b_func called a_func directly,
	// and a_func's frame (no CFI) is 32 bytes, its saved x30 at its CFA−8,
	// stack+0x18. Below it lie stale words a_func has not overwritten:
	//
	//	stack+0x00  c_func+0x48   stale; c_func's CFI, unwound from stack+0x08,
	//	                          reads the junk at stack+0x10 as its return address
	//	stack+0x08  d_func+0x108  stale; d_func has no CFI
	//	stack+0x10  0x12345678    a spilled value (no code there)
	//	stack+0x18  b_func+0x48   a_func: saved x30 (return into b_func)
	//
	// framelessCaller passes over c_func+0x48 (its caller is implausible:
	// not a frame of its own) and d_func+0x108 (no CFI to check), and takes
	// b_func+0x48, whose CFI, unwound from stack+0x20, lands exactly on the
	// record: CFA stack+0x40 = x29+16, x29 and LR as the record saved. The
	// scan would have taken d_func+0x108.
	f.syms["module2"] = strings.Replace(f.syms["module2"], "FUNC 2200", "FUNC 2100 100 0 d_func\nFUNC 2200", 1)
	f.words[stack] = mod2 + 0x2248
	f.words[stack+0x08] = mod2 + 0x2108
	f.words[stack+0x10] = 0x12345678
	check(t, "extended, called by b_func", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 0x20, walker.TrustScan})
}

// TestLeafReturnTailCall: when the dump holds the code, LR that follows a
// direct call to another function than the crashing one may still be its
// return address: e_func called b_func, which called d_func, which
// tail-called a_func (no CFI, no frame record of its own). LR is rejected
// only when a return address on the stack below x29's record follows a
// call to a_func itself (a stale LR of a function that saved its own) or
// returns into d_func.
func TestLeafReturnTailCall(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod2+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x2048).set(minidump.ARM64FP, 0)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 a_func\nFUNC 2200 100 0 e_func\n"}
	f.words[stack+8] = mod2 + 0x2208 // e_func's return from its call to b_func
	f.code = &walkertest.Memory{Base: mod2 + 0x2000, Data: make([]byte, 0x300)}
	f.putBL(mod2+0x2044, mod2+0x2100) // b_func calls d_func
	f.putBL(mod2+0x2064, mod2+0x1000) // b_func calls a_func
	f.putBL(mod2+0x2204, mod2+0x2000) // e_func calls b_func
	check(t, "extended, code, tail call", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack, walker.TrustLeaf},
		want{mod2 + 0x2208, stack + 0x10, walker.TrustScan})

	// a_func saved its return address (b_func+0x68), and LR is a stale
	// one left by a callee of a_func's.
	f.words[stack] = mod2 + 0x2068
	check(t, "extended, code, LR stale", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2068, stack + 8, walker.TrustScan},
		want{mod2 + 0x2208, stack + 0x10, walker.TrustScan})
}

// blrX8 encodes BLR x8 (an indirect call).
const blrX8 = 0xd63f0100

// TestFrameRecordOfFramelessFunction: when the dump holds a function's
// first instruction and it is nothing a function that saves x29 and x30
// begins with (here `mov x0, x1`), the function keeps no frame record, so
// the record at x29 is a caller's: its return address, after d_func's call
// to b_func, is rejected although nothing below it follows a call to
// a_func or returns into b_func (a_func's caller c_func, frameless too,
// called it indirectly). The scan then finds c_func.
func TestFrameRecordOfFramelessFunction(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod2+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x1040).set(minidump.ARM64FP, stack+0x20)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 a_func\nFUNC 2200 100 0 c_func\n"}
	f.words[stack+8] = mod2 + 0x2248    // saved by a_func: return into c_func
	f.words[stack+0x20] = 0             // b_func's record
	f.words[stack+0x28] = mod2 + 0x2108 // return into d_func
	f.code = &walkertest.Memory{Base: mod2 + 0x1000, Data: make([]byte, 0x1300)}
	f.code.Put32(mod2+0x2044, blrX8)      // b_func: blr x8
	f.putBL(mod2+0x2104, mod2+0x2000)     // d_func calls b_func
	f.code.Put32(mod2+0x2244, blrX8)      // c_func: blr x8
	f.code.Put32(mod2+0x1000, 0xaa0103e0) // a_func: mov x0, x1
	check(t, "extended, code, frameless", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2248, stack + 0x10, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustScan})

	// A function that begins with `stp x29, x30, [sp, #-16]!` may keep its
	// record at x29: the record stands (a tail call into it leaves the
	// same call site).
	f.code.Put32(mod2+0x1000, 0xa9bf7bfd)
	check(t, "extended, code, stp x29, x30", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustFramePointer})

	// Unless a word below the record returns into b_func, whose call the
	// record's return address follows: b_func called a_func, and the
	// record is b_func's.
	f.words[stack+8] = mod2 + 0x2048 // after b_func's blr x8
	check(t, "extended, code, stp x29, x30, return into b_func below", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 0x10, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustScan})
}

// TestScanTakesRecordSlot: when the record at x29 is rejected (here: a_func
// keeps no record and the record's return address follows a call to
// b_func) and the scan then takes the record's own return-address slot,
// the caller's x29 is the one the record saved, which the caller's CFI
// (.cfa: x29 16 +) needs. Without it the CFI step fails and the scan from
// d_func takes a stale word (after a call to d_func) above the record.
func TestScanTakesRecordSlot(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod2+0x1080).set(minidump.ARM64SP, stack).
		set(minidump.ARM64LR, mod2+0x1040).set(minidump.ARM64FP, stack+0x20)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 a_func\nFUNC 2200 100 0 e_func\n" +
		"STACK CFI INIT 2100 100 .cfa: x29 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n"}
	f.words[stack+0x20] = stack + 0x40  // the record at x29: saved x29
	f.words[stack+0x28] = mod2 + 0x2108 // and return into d_func
	f.words[stack+0x30] = mod2 + 0x2068 // stale: return into b_func after a call to d_func
	f.words[stack+0x40] = 0             // d_func's caller's record
	f.words[stack+0x48] = mod2 + 0x2208 // return into e_func
	f.code = &walkertest.Memory{Base: mod2 + 0x1000, Data: make([]byte, 0x1300)}
	f.code.Put32(mod2+0x1000, 0xaa0103e0) // a_func: mov x0, x1
	f.putBL(mod2+0x2064, mod2+0x2100)     // b_func calls d_func
	f.putBL(mod2+0x2104, mod2+0x2000)     // d_func calls b_func
	f.putBL(mod2+0x2204, mod2+0x2100)     // e_func calls d_func
	check(t, "extended, code", f.walk(t, false),
		want{mod2 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x30, walker.TrustScan},
		want{mod2 + 0x2208, stack + 0x50, walker.TrustCFI})
}

// putBL writes at addr in the dump's code a BL to target.
func (f *fixture) putBL(addr, target uint64) { f.code.Put32(addr, bl(addr, target)) }

// TestScanAlignedCallerSP: AAPCS64 keeps sp 16-byte aligned, so a return
// address a frameless function without CFI saved with `str x30, [sp,
// #-16]!` (a_func, frame 0; arm64-large's main and large_mid) has its
// caller's sp 16 bytes above it. The caller, b_func, has CFI (.cfa: sp 16
// +, x30 at .cfa - 8): from sp stack+0x10 it finds c_func's return
// address at stack+0x18; from Breakpad's stack+8 it would read the empty
// word at stack+0x10, and the scan's CFI check rejected b_func.
func TestScanAlignedCallerSP(t *testing.T) {
	f := newFixture().set(minidump.ARM64PC, mod1+0x1080).set(minidump.ARM64SP, stack)
	f.syms = map[string]string{
		"module1": sym1 + "FUNC 1000 100 0 a_func\n",
		"module2": sym2 + "FUNC 2200 100 0 c_func\nSTACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -8 + ^\n",
	}
	f.words[stack] = mod2 + 0x2048      // a_func's saved x30: return into b_func
	f.words[stack+0x18] = mod2 + 0x2208 // b_func's saved x30: return into c_func
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1080, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 0x10, walker.TrustScan},
		want{mod2 + 0x2208, stack + 0x20, walker.TrustCFI})
}
