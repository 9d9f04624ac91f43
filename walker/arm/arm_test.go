package arm_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// Module layout of Breakpad's stackwalker_arm_unittest.cc.
const (
	mod1  = 0x40000000
	mod2  = 0x50000000
	stack = 0x80000000
)

type fixture struct {
	os         string
	ctx        minidump.Context
	words      map[uint64]uint32
	stackSize  uint64
	syms       map[string]string
	maxScanned int
	code       *walkertest.Memory // the dump's code (walker.Env.Code), if any
	trace      bool               // walker.Env.Trace
	entry      uint64             // walker.Env.EntryPoint
	noInterp   bool               // walker.Env.NoInterpreter
	exec       func(uint64) bool  // walker.Env.Executable
}

// newFixture brands every register with junk that points nowhere, as
// Breakpad's unit tests do.
func newFixture() *fixture {
	f := &fixture{os: "linux", ctx: minidump.NewContext(minidump.ArchARM), words: map[uint64]uint32{}, stackSize: 0x100}
	for i := 0; i < f.ctx.NumRegs(); i++ {
		f.ctx.SetIndex(i, 0x0f0f0f00+uint64(i)*0x11)
	}
	return f
}

func (f *fixture) set(reg int, v uint64) *fixture { f.ctx.SetIndex(reg, v); return f }

func (f *fixture) walk(t *testing.T, breakpad bool) *walker.Stack {
	t.Helper()
	data := make([]byte, f.stackSize)
	for a, v := range f.words {
		binary.LittleEndian.PutUint32(data[a-stack:], v)
	}
	env := &walker.Env{
		OS:         f.os,
		Memory:     &walkertest.Memory{Base: stack, Data: data},
		Modules:    walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", mod1, 0x10000), walkertest.Module(1, "module2", mod2, 0x40000)}),
		MaxScanned: f.maxScanned,
		Trace:      f.trace,
	}
	if !breakpad { // as the processor: Linux only, not in Breakpad's mode
		env.EntryPoint, env.NoInterpreter = f.entry, f.noInterp
		env.Executable = f.exec
	}
	if f.syms != nil {
		env.Symbols = walkertest.NewSymbols(t, f.syms)
	}
	if f.code != nil && !breakpad {
		env.Code = f.code
	}
	env.Mode = walkertest.Mode(breakpad)
	return walker.Walk(env, arm.New(), f.ctx)
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
	walkertest.CheckFrames(t, mode, st, minidump.ARMPC, minidump.ARMSP, 2, ws...)
}

func both(t *testing.T, f *fixture, frames ...want) {
	t.Helper()
	check(t, "breakpad", f.walk(t, true), frames...)
	check(t, "extended", f.walk(t, false), frames...)
}

const sym1 = "MODULE Linux arm ID1 module1\n"
const sym2 = "MODULE Linux arm ID2 module2\nFUNC 2000 100 0 b_func\nFUNC 2100 100 0 d_func\nPUBLIC 3000 0 _fini\nPUBLIC 5001 0 thumb_pub\n"

func TestScan(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x200).set(minidump.ARMSP, stack)
	f.words[stack+4] = 0x1234
	f.words[stack+8] = mod2 + 0x105
	both(t, f, want{mod1 + 0x200, stack, walker.TrustContext}, want{mod2 + 0x105, stack + 12, walker.TrustScan})
	st := f.walk(t, true)
	if c := st.Frames[1].Context; func() bool { _, ok := c.Index(4); return ok }() {
		t.Error("scanned frame: r4 marked valid")
	}
}

func TestScanCap(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x200).set(minidump.ARMSP, stack)
	f.words[stack+8] = mod2 + 0x105
	f.words[stack+0x20] = mod2 + 0x109
	f.maxScanned = 1
	both(t, f, want{mod1 + 0x200, stack, walker.TrustContext}, want{mod2 + 0x105, stack + 12, walker.TrustScan})
}

// TestCFI: .ra gives pc, .cfa sp; r4 comes from its rule, r5 (callee-saved,
// no rule) is kept, r0 is unknown.
func TestCFI(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).set(4, 0x44).set(5, 0x55).set(0, 0xa0)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^\n", "module2": sym2}
	f.words[stack+8] = 0x4444
	f.words[stack+12] = mod2 + 0x2045
	for _, breakpad := range []bool{true, false} {
		st := f.walk(t, breakpad)
		check(t, "cfi", st, want{mod1 + 0x1010, stack, walker.TrustContext}, want{mod2 + 0x2045, stack + 16, walker.TrustCFI})
		c := st.Frames[1].Context
		for _, r := range []struct {
			reg   int
			v     uint64
			valid bool
		}{{4, 0x4444, true}, {5, 0x55, true}, {0, 0, false}, {minidump.ARMLR, 0, false}} {
			v, ok := c.Index(r.reg)
			if ok != r.valid || (ok && v != r.v) {
				t.Errorf("breakpad=%v: r%d = %#x valid %v, want %#x valid %v", breakpad, r.reg, v, ok, r.v, r.valid)
			}
		}
	}
}

// TestCFIReturnIntoData: a CFI step whose return address lies in no
// module is taken where the dump lists no memory map, or lists it in an
// executable mapping (JIT code); where the map lists it in none (data: an
// unwinder's rewritten save area read as a frame) it is no return address,
// and the other rules find the caller (here the scan). Breakpad's mode
// takes it.
func TestCFIReturnIntoData(t *testing.T) {
	const data = 0x60001000 // in no module
	newF := func(exec func(uint64) bool) *fixture {
		f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack)
		f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 + .ra: .cfa -4 + ^\n", "module2": sym2}
		f.words[stack+12] = data
		f.words[stack+20] = mod2 + 0x2045
		f.exec = exec
		return f
	}
	jit := func(a uint64) bool { return a >= 0x60000000 && a < 0x60010000 }
	none := func(uint64) bool { return false }
	ctx := want{mod1 + 0x1010, stack, walker.TrustContext}
	cfi := want{data, stack + 16, walker.TrustCFI}
	scan := want{mod2 + 0x2045, stack + 24, walker.TrustScan}
	check(t, "no memory map", newF(nil).walk(t, false), ctx, cfi, scan)
	check(t, "executable mapping", newF(jit).walk(t, false), ctx, cfi, scan)
	check(t, "breakpad", newF(none).walk(t, true), ctx, cfi, scan)
	check(t, "not executable", newF(none).walk(t, false), ctx, scan)
}

// TestStopRules: a caller PC below 4096, or an SP below the callee's, ends the walk.
func TestStopRules(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 + .ra: .cfa -4 + ^\n"}
	f.words[stack+12] = 0xff0
	both(t, f, want{mod1 + 0x1010, stack, walker.TrustContext})

	f = newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack+0x40)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 16 - .ra: .cfa 4 + ^\n"}
	f.words[stack+0x34] = mod2 + 0x2045
	both(t, f, want{mod1 + 0x1010, stack + 0x40, walker.TrustContext})

	// The leaf exception: a CFI entry row keeps SP for the context frame.
	f = newFixture().set(minidump.ARMPC, mod1+0x1000).set(minidump.ARMSP, stack).set(minidump.ARMLR, mod2+0x2045)
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 0 + .ra: lr\n"}
	both(t, f, want{mod1 + 0x1000, stack, walker.TrustContext}, want{mod2 + 0x2045, stack, walker.TrustCFI})
}

// TestIOSFramePointer: on iOS Breakpad follows r7 frame records (PC from the
// callee's LR, LR from the record) and ignores CFI.
func TestIOSFramePointer(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMR7, stack+8).set(minidump.ARMLR, mod2+0x2045)
	f.os = "ios"
	f.syms = map[string]string{"module1": sym1 + "STACK CFI INIT 1000 100 .cfa: sp 0 + .ra: .cfa\n", "module2": sym2}
	f.words[stack+8] = stack + 0x20
	f.words[stack+12] = mod2 + 0x2109
	f.words[stack+0x20] = 0
	f.words[stack+0x24] = 0
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 16, walker.TrustFramePointer},
		want{mod2 + 0x2109, stack + 0x28, walker.TrustFramePointer})
}

// TestLeafReturn: a context frame without CFI returns through LR. When LR's
// value is not on the stack the function has pushed nothing: SP and r4–r11
// stay. Breakpad scans instead, finds b_func's own return address and so
// skips b_func, the caller.
func TestLeafReturn(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMLR, mod2+0x2045).set(4, 0x44)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\nFUNC 3000 100 0 c_func\n", "module2": sym2}
	f.words[stack+0x10] = mod1 + 0x3005 // b_func's return address into c_func
	ext := f.walk(t, false)
	check(t, "extended", ext,
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack, walker.TrustLeaf},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})
	if v, ok := ext.Frames[1].Context.Index(4); !ok || v != 0x44 {
		t.Errorf("leaf return: r4 = %#x valid %v, want 0x44 kept", v, ok)
	}
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})

	// LR pushed (push {r4, lr}): the caller's SP is above its slot, and r4 is unknown.
	f.words[stack+8] = mod2 + 0x2045
	ext = f.walk(t, false)
	check(t, "extended, pushed", ext,
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 12, walker.TrustLeaf},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})
	if _, ok := ext.Frames[1].Context.Index(4); ok {
		t.Error("pushed: r4 still marked valid")
	}

	// LR inside the crashing function: it has made calls, LR is stale.
	f = newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).set(minidump.ARMLR, mod1+0x1009)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\nFUNC 3000 100 0 c_func\n", "module2": sym2}
	f.words[stack+0x10] = mod1 + 0x3005
	check(t, "extended, stale LR", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})

	// Without symbols, an LR into the crashing function's own module is
	// trusted only when found pushed.
	f.syms = nil
	check(t, "extended, no symbols", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})
	f.words[stack+4] = mod1 + 0x1009
	check(t, "extended, no symbols, pushed", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod1 + 0x1009, stack + 8, walker.TrustLeaf},
		want{mod1 + 0x3005, stack + 0x14, walker.TrustScan})
}

// TestFramePointerThumb: Thumb code (odd return addresses) keeps frame
// records at r7: [r7] = caller's r7, [r7+4] = return address. Breakpad uses
// them on iOS only; the extended walker everywhere, checking each record.
func TestFramePointerThumb(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1011).set(minidump.ARMSP, stack).
		set(minidump.ARMR7, stack+8).set(minidump.ARMLR, mod1+0x1009)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 a_func\nFUNC 3000 100 0 c_func\n", "module2": sym2}
	f.words[stack+8] = stack + 0x20
	f.words[stack+12] = mod2 + 0x2045
	f.words[stack+0x20] = 0
	f.words[stack+0x24] = mod1 + 0x3005
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1011, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 16, walker.TrustFramePointer},
		want{mod1 + 0x3005, stack + 0x28, walker.TrustFramePointer})
	// Breakpad on Linux scans: it finds the same return addresses.
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1011, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 16, walker.TrustScan},
		want{mod1 + 0x3005, stack + 0x28, walker.TrustScan})

	// A record whose saved r7 does not lie above it is refused.
	f.words[stack+8] = stack + 4
	st := f.walk(t, false)
	if st.Frames[1].Trust != walker.TrustScan {
		t.Errorf("bad record: frame 1 found by %v, want scanning", st.Frames[1].Trust)
	}
}

// TestFramePointerARMModeGCC: GCC's ARM-mode frames point r11 at the saved
// LR, with the caller's r11 just below it.
func TestFramePointerARMModeGCC(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+12).set(minidump.ARMLR, mod1+0x1008)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 a_func\n", "module2": sym2}
	f.words[stack+8] = stack + 0x30
	f.words[stack+12] = mod2 + 0x2044
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x10, walker.TrustFramePointer})
	check(t, "breakpad", f.walk(t, true),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 0x10, walker.TrustScan})
}

// TestValidatedScan: Breakpad's scan accepts a Thumb function pointer (the
// address before it, its start without the Thumb bit, is in a function: as
// qsort's comparator in arm-libc), data far past the last PUBLIC symbol
// (static binaries' "_fini + 0x1f87a") and an ARM-state (even) return
// address into a Thumb function (its PUBLIC address is odd); the extended
// scan skips all three. The return address after them is taken only
// when proven (retaddr.CheckProof): here by b_func's CFI, which unwinds
// it to the end of the stack; without that CFI (and without code) it is
// no better than the three refused words, and the walk stops.
func TestValidatedScan(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x200).set(minidump.ARMSP, stack)
	f.syms = map[string]string{"module2": sym2}
	f.words[stack+4] = mod2 + 0x2101  // d_func | Thumb bit
	f.words[stack+8] = mod2 + 0x23001 // 0x20000 past _fini
	f.words[stack+12] = mod2 + 0x5010 // even, inside Thumb thumb_pub
	f.words[stack+16] = mod2 + 0x2045
	check(t, "breakpad", f.walk(t, true), want{mod1 + 0x200, stack, walker.TrustContext},
		want{mod2 + 0x2101, stack + 8, walker.TrustScan}, want{mod2 + 0x23001, stack + 12, walker.TrustScan},
		want{mod2 + 0x5010, stack + 16, walker.TrustScan}, want{mod2 + 0x2045, stack + 20, walker.TrustScan})
	check(t, "extended, unproven", f.walk(t, false), want{mod1 + 0x200, stack, walker.TrustContext})
	f.syms = map[string]string{"module2": sym2 + "STACK CFI INIT 2000 100 .cfa: sp 8 + .ra: .cfa -4 + ^\n"}
	check(t, "extended, proven by CFI", f.walk(t, false), want{mod1 + 0x200, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 20, walker.TrustScan})
}

// TestFramelessCallee: leaf_func has no CFI and no frame pointer of its own
// (it has made calls: LR points into it), so r11 still holds b_func's frame
// record, whose return address is b_func's caller. b_func's return address,
// pushed by leaf_func, lies below the record, and b_func's CFI unwound from
// just above it lands exactly on the record (same CFA, same return address,
// r11 restored from it): the record is b_func's, and following it first
// would skip b_func. Breakpad scans and finds the same frames.
func TestFramelessCallee(t *testing.T) {
	const cfi = "STACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -4 + ^ r11: .cfa -8 + ^\n"
	build := func(cfa int) *fixture {
		f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).
			set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod1+0x1009)
		f.syms = map[string]string{
			"module1": sym1 + "FUNC 1000 100 0 leaf_func\n",
			"module2": sym2 + strings.Replace(cfi, "sp 16 +", fmt.Sprintf("sp %d +", cfa), 1),
		}
		f.words[stack+4] = mod2 + 0x2045    // pushed by leaf_func: return into b_func
		f.words[stack+0x10] = stack + 0x40  // b_func's record: caller's r11
		f.words[stack+0x14] = mod2 + 0x2109 // and return address into d_func
		return f
	}
	both(t, build(16),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 8, walker.TrustScan},
		want{mod2 + 0x2109, stack + 0x18, walker.TrustCFI})

	// When b_func's CFI does not end at the record, the word is a stale
	// return address in leaf_func's locals and the record is leaf_func's.
	check(t, "extended, CFI elsewhere", build(24).walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2109, stack + 0x18, walker.TrustFramePointer})

	// b_func's record ends the chain (b_func is the thread's first
	// function), so the frame-pointer step finds nothing, and a stale
	// return address into d_func (no CFI) lies below b_func's: the plain
	// scan would take it. The record still says where b_func's frame ends.
	f := build(16)
	f.words[stack+0x10], f.words[stack+0x14] = 0, 0
	f.words[stack] = mod2 + 0x2109
	check(t, "extended, record ends the chain", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 8, walker.TrustScan})
}

// TestReturnIntoSymbolGap: a return address read from LR or a frame record
// is the code's own, so it needs only lie in a module, not in a function
// of the symbol file: a function the symbol file leaves out (here
// module2+0x1000, below its first symbol) is returned to all the same.
// Breakpad does so on iOS (it takes the record's LR unchecked); the
// extended walk used to refuse and scan, finding nothing.
func TestReturnIntoSymbolGap(t *testing.T) {
	syms := map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\n", "module2": sym2}
	// Frame record (iOS, r7): leaf_func has made calls (LR points into it).
	f := newFixture().set(minidump.ARMPC, mod1+0x1011).set(minidump.ARMSP, stack).
		set(minidump.ARMR7, stack+8).set(minidump.ARMLR, mod1+0x1009)
	f.os, f.syms = "ios", syms
	f.words[stack+8] = stack + 0x20
	f.words[stack+12] = mod2 + 0x1045
	check(t, "extended, record", f.walk(t, false),
		want{mod1 + 0x1011, stack, walker.TrustContext},
		want{mod2 + 0x1045, stack + 16, walker.TrustFramePointer})

	// Leaf return: LR into the gap, nothing pushed.
	f = newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).set(minidump.ARMLR, mod2+0x1045)
	f.syms = syms
	check(t, "extended, leaf", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x1045, stack, walker.TrustLeaf})

	// The crashing function is in a gap of module1, LR in c_func of the
	// same module: a symbol names LR's function and none this one's, so LR
	// is no stale return into this function.
	f = newFixture().set(minidump.ARMPC, mod1+0x2010).set(minidump.ARMSP, stack).set(minidump.ARMLR, mod1+0x3005)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\nFUNC 3000 100 0 c_func\n"}
	check(t, "extended, leaf from a gap", f.walk(t, false),
		want{mod1 + 0x2010, stack, walker.TrustContext},
		want{mod1 + 0x3005, stack, walker.TrustLeaf})
}

// TestLeafReturnPushedBelowRecord: a function that pushed LR keeps it at the
// top of its frame, at the latest in its frame record. The leaf's LR (a
// return into b_func) is also found above b_func's record at r11, where a
// deeper call from the same site saved it (recursion): that slot is not the
// leaf's, which pushed nothing. Taking it would put b_func's frame at the
// wrong depth and lose d_func.
func TestLeafReturnPushedBelowRecord(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod2+0x2045)
	f.syms = map[string]string{"module1": sym1 + "FUNC 1000 100 0 leaf_func\n", "module2": sym2}
	f.words[stack+0x10] = stack + 0x30 // b_func's record
	f.words[stack+0x14] = mod2 + 0x2109
	f.words[stack+0x20] = mod2 + 0x2045 // an outer b_func frame's return address
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack, walker.TrustLeaf},
		want{mod2 + 0x2109, stack + 0x18, walker.TrustFramePointer},
		want{mod2 + 0x2045, stack + 0x24, walker.TrustScan}) // d_func's caller, the outer b_func
}

// armBL encodes an ARM-state BL at addr to target (ARM ARM A8.8.25).
func armBL(addr, target uint64) uint32 {
	return 0xeb000000 | uint32((target-(addr+8))>>2)&0xffffff
}

// TestFrameRecordCallSite: when the dump holds the code, a frame record
// whose return address follows a call to another function than the
// current one is not the current function's when a return address below
// the record follows a call to it: leaf_func (no CFI, no frame pointer of
// its own) was called from b_func+0x44 and pushed that return address, and
// the record at r11 is b_func's, its return address following d_func's
// call to b_func. Without the code the walk cannot tell and follows the
// record (b_func has no CFI to confirm the pushed return address below it).
// (BL reaches ±32 MB: leaf_func is in b_func's module.)
//
// A tail call leaves the same call site: d_func called b_func, which
// tail-called leaf_func, which made a frame record. With nothing below the
// record that follows a call to leaf_func, the record stands.
func TestFrameRecordCallSite(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod2+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod2+0x1008)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 leaf_func\n"}
	f.words[stack+4] = mod2 + 0x2048 // pushed by leaf_func: return into b_func
	f.words[stack+0x10] = stack + 0x40
	f.words[stack+0x14] = mod2 + 0x2108 // b_func's record: return into d_func
	check(t, "extended, no code", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustFramePointer})

	f.code = &walkertest.Memory{Base: mod2 + 0x2000, Data: make([]byte, 0x200)}
	f.putBL(mod2+0x2044, mod2+0x1000) // b_func calls leaf_func
	f.putBL(mod2+0x2104, mod2+0x2000) // d_func calls b_func
	check(t, "extended, code", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 8, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustScan})

	// Tail call: the word below the record is a stale return address
	// into d_func, and the record is leaf_func's own.
	f.words[stack+4] = mod2 + 0x2168
	f.putBL(mod2+0x2164, mod2+0x2000) // d_func calls b_func
	check(t, "extended, code, tail call", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustFramePointer})
}

// TestFramelessCalleeIOS: on iOS the walk does not unwind by CFI (as
// Breakpad, whose tools collected it wrongly there), but CFI that lands
// exactly on the record at r7 still shows whose record it is. Breakpad's
// iOS walk takes the callee's LR, which here points back into leaf_func.
func TestFramelessCalleeIOS(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1011).set(minidump.ARMSP, stack).
		set(minidump.ARMR7, stack+0x10).set(minidump.ARMLR, mod1+0x1009)
	f.os = "ios"
	f.syms = map[string]string{
		"module1": sym1 + "FUNC 1000 100 0 leaf_func\n",
		"module2": sym2 + "STACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -4 + ^ r7: .cfa -8 + ^\n",
	}
	f.words[stack+4] = mod2 + 0x2045 // pushed by leaf_func: return into b_func
	f.words[stack+0x10] = stack + 0x40
	f.words[stack+0x14] = mod2 + 0x2109 // b_func's record: return into d_func
	check(t, "extended", f.walk(t, false),
		want{mod1 + 0x1011, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 8, walker.TrustScan},
		want{mod2 + 0x2109, stack + 0x18, walker.TrustFramePointer})
}

// armBLXReg encodes an ARM-state BLX r3 (an indirect call).
const armBLXReg = 0xe12fff33

// TestLeafReturnTailCall: when the dump holds the code, LR that follows a
// direct call to another function than the crashing one may still be its
// return address: e_func called b_func, which called d_func, which
// tail-called leaf_func (no CFI, nothing pushed). LR is rejected only when
// a return address on the stack follows a call to leaf_func itself (a
// stale LR of a function that pushed its own) or returns into d_func.
func TestLeafReturnTailCall(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod2+0x1010).set(minidump.ARMSP, stack).set(minidump.ARMLR, mod2+0x2048)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 leaf_func\nFUNC 2200 100 0 e_func\n"}
	f.words[stack+4] = mod2 + 0x2208 // e_func's return from its call to b_func
	f.code = &walkertest.Memory{Base: mod2 + 0x2000, Data: make([]byte, 0x300)}
	f.putBL(mod2+0x2044, mod2+0x2100) // b_func calls d_func
	f.putBL(mod2+0x2064, mod2+0x1000) // b_func calls leaf_func
	f.putBL(mod2+0x2204, mod2+0x2000) // e_func calls b_func
	check(t, "extended, code, tail call", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack, walker.TrustLeaf},
		want{mod2 + 0x2208, stack + 8, walker.TrustScan})

	// leaf_func pushed its return address (b_func+0x68), and LR is a stale
	// one left by a callee of leaf_func's that returned by popping.
	f.words[stack] = mod2 + 0x2068
	check(t, "extended, code, LR stale", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2068, stack + 4, walker.TrustScan},
		want{mod2 + 0x2208, stack + 8, walker.TrustScan})
}

// TestFramelessCalleeTailCall: leaf_func (frameless, no CFI) was reached
// by a tail call: b_func called d_func at b_func+0x40, and d_func
// tail-called leaf_func, which pushed b_func+0x44. The record at r11 is
// b_func's, whose CFI lands exactly on it from just above that word: the
// word is b_func's return address although its call site calls d_func,
// since nothing below the record follows a call to leaf_func or returns
// into d_func. (Below it lies a stale return address after an indirect
// call, without CFI, which a plain scan would take first.)
func TestFramelessCalleeTailCall(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod2+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod2+0x1008)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 leaf_func\nFUNC 2200 100 0 e_func\n" +
		"STACK CFI INIT 2000 100 .cfa: sp 16 + .ra: .cfa -4 + ^ r11: .cfa -8 + ^\n"}
	f.words[stack] = mod2 + 0x2228      // stale: after e_func's blx r3
	f.words[stack+4] = mod2 + 0x2044    // pushed by leaf_func: return into b_func
	f.words[stack+0x10] = stack + 0x40  // b_func's record: caller's r11
	f.words[stack+0x14] = mod2 + 0x2108 // and return address into d_func
	f.code = &walkertest.Memory{Base: mod2 + 0x2000, Data: make([]byte, 0x300)}
	f.putBL(mod2+0x2040, mod2+0x2100)    // b_func calls d_func
	f.putBL(mod2+0x2104, mod2+0x2000)    // d_func calls b_func
	f.code.Put32(mod2+0x2224, armBLXReg) // e_func: blx r3
	check(t, "extended, code", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2044, stack + 8, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustCFI})
}

// TestFrameRecordOfFramelessFunction: when the dump holds a function's
// first instruction and it pushes no r7 or r11 (here `sub sp, sp, #16`),
// the function keeps no frame record, so the record at r11 is a caller's:
// its return address, after d_func's call to b_func, is rejected although
// nothing below it follows a call to leaf_func or returns into b_func
// (leaf_func's caller c_func, frameless too, called it indirectly). The
// scan then finds c_func.
func TestFrameRecordOfFramelessFunction(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod2+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod2+0x1008)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 leaf_func\nFUNC 2200 100 0 c_func\n"}
	f.words[stack+4] = mod2 + 0x2248 // pushed by leaf_func: return into c_func
	f.words[stack+0x10] = stack + 0x40
	f.words[stack+0x14] = mod2 + 0x2108 // b_func's record: return into d_func
	f.code = &walkertest.Memory{Base: mod2 + 0x1000, Data: make([]byte, 0x1300)}
	f.code.Put32(mod2+0x2044, armBLXReg) // b_func: blx r3
	f.putBL(mod2+0x2104, mod2+0x2000)    // d_func calls b_func
	f.code.Put32(mod2+0x2244, armBLXReg) // c_func: blx r3
	want3 := []want{
		{mod2 + 0x1010, stack, walker.TrustContext},
		{mod2 + 0x2248, stack + 8, walker.TrustScan},
		{mod2 + 0x2108, stack + 0x18, walker.TrustScan},
	}
	f.code.Put32(mod2+0x1000, 0xe24dd010) // leaf_func: sub sp, sp, #16
	check(t, "extended, code, frameless", f.walk(t, false), want3...)
	f.code.Put16(mod2+0x1000, 0xb084) // Thumb: sub sp, #16
	check(t, "extended, code, frameless (Thumb)", f.walk(t, false), want3...)

	// A function that pushes r7 and LR may keep its record at r7: the
	// record stands (a tail call into it leaves the same call site).
	f.code.Put32(mod2+0x1000, 0xe92d4080) // push {r7, lr}
	check(t, "extended, code, push {r7, lr}", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustFramePointer})

	// Unless a word below the record returns into b_func, whose call the
	// record's return address follows: b_func called leaf_func, and the
	// record is b_func's.
	f.words[stack+4] = mod2 + 0x2048 // after b_func's blx r3
	check(t, "extended, code, push {r7, lr}, return into b_func below", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2048, stack + 8, walker.TrustScan},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustScan})
}

// TestScanTakesRecordSlot: when the record at r11 is rejected (here:
// leaf_func keeps no record and the record's return address follows a call
// to b_func) and the scan then takes the record's own return-address slot,
// the caller's r11 is the one the record saved, which the caller's CFI
// (.cfa: r11 8 +) needs. Without it the CFI step fails and the scan from
// d_func takes a stale word (after a call to d_func) above the record.
func TestScanTakesRecordSlot(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod2+0x1010).set(minidump.ARMSP, stack).
		set(minidump.ARMFP, stack+0x10).set(minidump.ARMLR, mod2+0x1008)
	f.syms = map[string]string{"module2": sym2 + "FUNC 1000 100 0 leaf_func\nFUNC 2200 100 0 e_func\n" +
		"STACK CFI INIT 2100 100 .cfa: r11 8 + .ra: .cfa -4 + ^ r11: .cfa -8 + ^\n"}
	f.words[stack+0x10] = stack + 0x40  // the record at r11: saved r11
	f.words[stack+0x14] = mod2 + 0x2108 // and return into d_func
	f.words[stack+0x18] = mod2 + 0x2068 // stale: return into b_func after a call to d_func
	f.words[stack+0x40] = 0             // d_func's record
	f.words[stack+0x44] = mod2 + 0x2208 // return into e_func
	f.code = &walkertest.Memory{Base: mod2 + 0x1000, Data: make([]byte, 0x1300)}
	f.code.Put32(mod2+0x1000, 0xe24dd010) // leaf_func: sub sp, sp, #16
	f.putBL(mod2+0x2064, mod2+0x2100)     // b_func calls d_func
	f.putBL(mod2+0x2104, mod2+0x2000)     // d_func calls b_func
	f.putBL(mod2+0x2204, mod2+0x2100)     // e_func calls d_func
	check(t, "extended, code", f.walk(t, false),
		want{mod2 + 0x1010, stack, walker.TrustContext},
		want{mod2 + 0x2108, stack + 0x18, walker.TrustScan},
		want{mod2 + 0x2208, stack + 0x48, walker.TrustCFI})
}

// putBL writes at addr in the dump's code a BL to target.
func (f *fixture) putBL(addr, target uint64) { f.code.Put32(addr, armBL(addr, target)) }

// TestLeafReturnPrologue: a leaf that stored registers below its caller's
// sp without saving LR (glibc's Thumb strlen: `strd r4, r5, [sp, #-8]!`,
// testdata's arm-strfn): its prologue, in the dump's code from the start
// its symbol gives, puts the caller's sp 8 bytes up and restores r4 and r5
// from their slots. Without the code the caller keeps the leaf's sp.
func TestLeafReturnPrologue(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1004).set(minidump.ARMSP, stack).
		set(minidump.ARMLR, mod2+0x2045).set(4, 0x1111).set(5, 0x2222)
	f.syms = map[string]string{"module1": sym1 + "PUBLIC 1001 0 leaf_func\n", "module2": sym2}
	f.words[stack] = 0x44
	f.words[stack+4] = 0x55
	f.code = &walkertest.Memory{Base: mod1 + 0x1000, Data: []byte{0x6d, 0xe9, 0x02, 0x45, 0, 0, 0, 0}}
	ext := f.walk(t, false)
	if len(ext.Frames) < 2 {
		t.Fatalf("%d frames", len(ext.Frames))
	}
	check(t, "extended", &walker.Stack{Frames: ext.Frames[:2]},
		want{mod1 + 0x1004, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 8, walker.TrustLeaf})
	for reg, v := range map[int]uint64{4: 0x44, 5: 0x55} {
		if got, ok := ext.Frames[1].Context.Index(reg); !ok || got != v {
			t.Errorf("r%d = %#x valid %v, want %#x from the leaf's slot", reg, got, ok, v)
		}
	}
	f.code = nil
	ext = f.walk(t, false)
	if len(ext.Frames) < 2 {
		t.Fatalf("without code: %d frames", len(ext.Frames))
	}
	if sp, _ := ext.Frames[1].Context.SP(); sp != stack {
		t.Errorf("without code: frame 1 sp %#x, want the leaf's %#x kept", sp, uint64(stack))
	}
}

// TestLeafPushesWithoutCode: leaf_func (a PUBLIC, no CFI, no code in the
// dump) pushed two registers and not LR. At its sp, b_func's CFI at LR
// reads a saved register (0x55) as the return address: refuted; 4 bytes
// higher it reads another (0x88); 8 bytes higher it reads d_func's return
// address, which d_func's own CFI unwinds to the end of the stack: the
// caller's sp is 8 bytes above the leaf's, and the walk goes on by CFI.
// With the word at the leaf's sp no refutation (0: the end of the stack)
// the leaf's sp is kept; Breakpad's mode has no leaf return.
func TestLeafPushesWithoutCode(t *testing.T) {
	f := newFixture().set(minidump.ARMPC, mod1+0x1004).set(minidump.ARMSP, stack).
		set(minidump.ARMLR, mod2+0x2045)
	f.syms = map[string]string{"module1": sym1 + "PUBLIC 1001 0 leaf_func\n",
		"module2": sym2 + "STACK CFI INIT 2000 200 .cfa: sp 8 + .ra: .cfa -4 + ^\n"}
	f.words[stack] = 0x44
	f.words[stack+4] = 0x55
	f.words[stack+8] = 0x88
	f.words[stack+12] = mod2 + 0x2105
	f.trace = true
	ext := f.walk(t, false)
	check(t, "extended", ext,
		want{mod1 + 0x1004, stack, walker.TrustContext},
		want{mod2 + 0x2045, stack + 8, walker.TrustLeaf},
		want{mod2 + 0x2105, stack + 16, walker.TrustCFI})
	if steps := ext.Frames[1].Steps; len(steps) == 0 || !strings.Contains(steps[len(steps)-1].Note, "no code of the leaf") {
		t.Errorf("trace of frame 1: %+v", steps)
	}
	if bp := f.walk(t, true); len(bp.Frames) > 1 && bp.Frames[1].Trust == walker.TrustLeaf {
		t.Error("breakpad: a leaf return")
	}
	f.words[stack+4] = 0
	ext = f.walk(t, false)
	if len(ext.Frames) < 2 {
		t.Fatalf("not refuted: %d frames", len(ext.Frames))
	}
	if sp, _ := ext.Frames[1].Context.SP(); sp != stack {
		t.Errorf("not refuted: frame 1 sp %#x, want the leaf's %#x kept", sp, uint64(stack))
	}
}
