package amd64_test

import (
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
)

// The layout of Breakpad's stackwalker_amd64_unittest.cc: two modules
// without symbols unless a test provides them.
const (
	mod1Base = 0x00007400c0000000
	mod2Base = 0x00007500b0000000
)

func modules() []*walker.Module {
	return []*walker.Module{
		walkertest.Module(0, "module1", mod1Base, 0x10000),
		walkertest.Module(1, "module2", mod2Base, 0x10000),
	}
}

type fixture struct {
	os    string
	mods  []*walker.Module
	syms  map[string]string
	ctx   minidump.Context
	stack *synthkit.Stack
	max   int
	maxSc int
	entry uint64
}

func newFixture(base uint64) *fixture {
	f := &fixture{os: "linux", mods: modules(), ctx: minidump.NewContext(minidump.ArchAMD64), stack: synthkit.NewStack(base, 8)}
	// Distinct values in every register, as Breakpad's BrandContext does.
	for i := 0; i < f.ctx.NumRegs(); i++ {
		f.ctx.SetIndex(i, 0x0101010101010101*uint64(i+1))
	}
	return f
}

func (f *fixture) walk(t *testing.T) *walker.Stack {
	t.Helper()
	data, err := f.stack.Finish()
	if err != nil {
		t.Fatal(err)
	}
	env := &walker.Env{OS: f.os, Memory: &walkertest.Memory{Base: f.stack.Base(), Data: data},
		Modules: walkertest.NewModuleMap(f.mods), MaxFrames: f.max, MaxScanned: f.maxSc, EntryPoint: f.entry}
	if f.syms != nil {
		env.Symbols = walkertest.NewSymbols(t, f.syms)
	}
	return walker.Walk(env, amd64.New(), f.ctx)
}

func (f *fixture) label(t *testing.T, name string) uint64 {
	t.Helper()
	v, ok := f.stack.Label(name)
	if !ok {
		t.Fatalf("no label %s", name)
	}
	return v
}

func reg(fr *walker.Frame, i int) (uint64, bool) { return fr.Context.Index(i) }

func wantReg(t *testing.T, fr *walker.Frame, name string, want uint64) {
	t.Helper()
	v, ok := fr.Context.Get(name)
	if !ok || v != want {
		t.Errorf("%s = %#x (valid %v), want %#x", name, v, ok, want)
	}
}

func wantValid(t *testing.T, fr *walker.Frame, names ...string) {
	t.Helper()
	valid := map[string]bool{}
	for _, n := range names {
		valid[n] = true
	}
	for _, n := range minidump.RegisterNames(minidump.ArchAMD64) {
		if _, ok := fr.Context.Get(n); ok != valid[n] {
			t.Errorf("register %s valid = %v, want %v", n, ok, valid[n])
		}
	}
}

func trusts(st *walker.Stack) []walker.Trust {
	var out []walker.Trust
	for _, f := range st.Frames {
		out = append(out, f.Trust)
	}
	return out
}

func wantTrusts(t *testing.T, st *walker.Stack, want ...walker.Trust) {
	t.Helper()
	got := trusts(st)
	if len(got) != len(want) {
		t.Fatalf("trusts %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("trusts %v, want %v", got, want)
		}
	}
}

func TestContextFrameWithoutMemory(t *testing.T) {
	ctx := minidump.NewContext(minidump.ArchAMD64)
	ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
	ctx.SetIndex(minidump.AMD64RSP, 0x8000000080000000)
	st := walker.Walk(&walker.Env{Modules: walkertest.NewModuleMap(modules())}, amd64.New(), ctx)
	wantTrusts(t, st, walker.TrustContext)
	if st.Frames[0].Module == nil || st.Frames[0].Module.CodeFile != "module1" {
		t.Errorf("module %v", st.Frames[0].Module)
	}
	if st.Frames[0].Instruction != mod1Base+0x200 {
		t.Errorf("instruction %#x", st.Frames[0].Instruction)
	}
}

// Scanning accepts only words that point into a module; it recovers rbp
// when the return address sits right above the callee's frame pointer slot
// and the saved value lies above it.
func TestScanWithoutSymbols(t *testing.T) {
	f := newFixture(0x8000000080000000)
	ra1, ra2 := uint64(mod2Base+0x100), uint64(mod2Base+0x900)
	f.stack.Append(16, 0).
		Words(0x00007400b0000000, 0x00007500d0000000). // not in a module
		Word(ra1).Mark("frame1_sp").Append(16, 0).
		Words(0x00007400b0000000, 0x00007500d0000000).
		Mark("frame1_rbp").WordLabel("frame2_rbp", 0).
		Word(ra2).Mark("frame2_sp").Append(32, 0).Mark("frame2_rbp").Append(16, 0)
	f.ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
	f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
	f.os = "windows" // no frame-pointer recovery; the leaf check fails (no return address at rsp)
	f.stack.Finish() // resolve labels
	f.ctx.SetIndex(minidump.AMD64RBP, f.label(t, "frame1_rbp"))
	st := f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustScan, walker.TrustScan)
	wantReg(t, st.Frames[1], "rip", ra1)
	wantReg(t, st.Frames[1], "rsp", f.label(t, "frame1_sp"))
	wantReg(t, st.Frames[1], "rbp", f.label(t, "frame1_rbp"))
	wantValid(t, st.Frames[1], "rip", "rsp", "rbp")
	wantReg(t, st.Frames[2], "rip", ra2)
	wantReg(t, st.Frames[2], "rsp", f.label(t, "frame2_sp"))
	wantReg(t, st.Frames[2], "rbp", f.label(t, "frame2_rbp"))
	if st.Frames[1].Instruction != ra1-1 {
		t.Errorf("caller instruction %#x, want return address - 1", st.Frames[1].Instruction)
	}
	if len(st.NoSymbols) != 0 {
		t.Errorf("no symbol source, yet modules without symbols: %v", st.NoSymbols)
	}
}

// With symbols, a scanned word must also fall inside a function.
func TestScanWithFunctionSymbols(t *testing.T) {
	f := newFixture(0x8000000080000000)
	f.syms = map[string]string{
		"module1": "MODULE Linux x86_64 ID module1\nFUNC 100 400 10 platypus\n",
		"module2": "MODULE Linux x86_64 ID module2\nFUNC 100 400 10 echidna\n",
	}
	f.os = "windows"
	ra := uint64(mod1Base + 0x200)
	f.stack.Append(16, 0).
		Word(mod2Base+0x800). // in module2 but outside any function
		Word(ra).Mark("frame1_sp").Append(32, 0)
	f.ctx.SetIndex(minidump.AMD64RIP, mod2Base+0x200)
	f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
	f.ctx.SetIndex(minidump.AMD64RBP, 0)
	st := f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustScan)
	if st.Frames[0].Function != "echidna" || st.Frames[0].FunctionBase != mod2Base+0x100 {
		t.Errorf("frame 0 %q at %#x", st.Frames[0].Function, st.Frames[0].FunctionBase)
	}
	if st.Frames[1].Function != "platypus" {
		t.Errorf("frame 1 %q", st.Frames[1].Function)
	}
	wantReg(t, st.Frames[1], "rsp", f.label(t, "frame1_sp"))
}

// Missing symbol files of frames' modules are reported once each, in order.
func TestModulesWithoutSymbols(t *testing.T) {
	f := newFixture(0x8000000080000000)
	f.syms = map[string]string{}
	f.stack.Word(mod2Base+0x100).Mark("frame1_sp").Word(mod1Base+0x100).Append(32, 0)
	f.ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
	f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
	f.ctx.SetIndex(minidump.AMD64RBP, 0)
	f.os = "windows"
	st := f.walk(t)
	if len(st.NoSymbols) != 2 || st.NoSymbols[0].CodeFile != "module1" || st.NoSymbols[1].CodeFile != "module2" {
		t.Errorf("NoSymbols %v", st.NoSymbols)
	}
}

// Linux: the rbp chain, checked for alignment, canonical IP and growth.
func TestFramePointer(t *testing.T) {
	f := newFixture(0x8000000080000000)
	ra1, ra2 := uint64(mod2Base+0x100), uint64(mod1Base+0x300)
	f.stack.Append(32, 0).
		Mark("frame0_rbp").WordLabel("frame1_rbp", 0).Word(ra1).Mark("frame1_sp").
		Append(32, 0).
		Mark("frame1_rbp").WordLabel("frame2_rbp", 0).Word(ra2).Mark("frame2_sp").
		Append(32, 0).
		Mark("frame2_rbp").Word(0).Word(0).Append(16, 0)
	f.stack.Finish()
	f.ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
	f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
	f.ctx.SetIndex(minidump.AMD64RBP, f.label(t, "frame0_rbp"))
	st := f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustFramePointer, walker.TrustFramePointer)
	wantValid(t, st.Frames[1], "rip", "rsp", "rbp")
	wantReg(t, st.Frames[1], "rip", ra1)
	wantReg(t, st.Frames[1], "rsp", f.label(t, "frame1_sp"))
	wantReg(t, st.Frames[1], "rbp", f.label(t, "frame1_rbp"))
	wantReg(t, st.Frames[2], "rip", ra2)
	wantReg(t, st.Frames[2], "rsp", f.label(t, "frame2_sp"))
	wantReg(t, st.Frames[2], "rbp", f.label(t, "frame2_rbp"))
}

// A misaligned rbp or a non-canonical saved IP rejects the frame pointer;
// the walker falls back to scanning.
func TestFramePointerRejected(t *testing.T) {
	for _, tc := range []struct {
		name     string
		misalign int64
		savedIP  uint64
	}{
		{"misaligned", 1, mod2Base + 0x100},
		{"non-canonical", 0, 0x800000000000 + 0x100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(0x8000000080000000)
			ra := uint64(mod2Base + 0x200)
			f.stack.Append(16, 0).Mark("frame0_rbp").WordLabel("frame1_rbp", 0).Word(tc.savedIP).
				Word(ra).Mark("frame1_sp").Append(32, 0).Mark("frame1_rbp").Append(16, 0)
			f.stack.Finish()
			f.ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
			f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
			f.ctx.SetIndex(minidump.AMD64RBP, f.label(t, "frame0_rbp")+uint64(tc.misalign))
			st := f.walk(t)
			if len(st.Frames) < 2 || st.Frames[1].Trust != walker.TrustScan {
				t.Fatalf("trusts %v, want scan for frame 1", trusts(st))
			}
			want := ra
			if tc.name == "misaligned" {
				want = tc.savedIP // the scan finds the first module address, the saved IP slot
			}
			wantReg(t, st.Frames[1], "rip", want)
		})
	}
}

// Windows: no frame-pointer recovery; a return address right at rsp of
// the context frame is taken as a leaf function's, keeping all registers.
func TestWindowsLeafAndNoFramePointer(t *testing.T) {
	f := newFixture(0x8000000080000000)
	f.os = "windows"
	ra1, ra2 := uint64(mod2Base+0x100), uint64(mod1Base+0x300)
	f.stack.Word(ra1).Mark("frame1_sp").
		Append(16, 0).
		Mark("frame1_rbp").WordLabel("x", 0).Word(mod1Base+0x20000). // a valid-looking rbp chain with an IP outside modules
		Word(ra2).Mark("frame2_sp").Append(16, 0).Mark("x").Append(16, 0)
	f.stack.Finish()
	f.ctx.SetIndex(minidump.AMD64RIP, mod1Base+0x200)
	f.ctx.SetIndex(minidump.AMD64RSP, f.stack.Base())
	f.ctx.SetIndex(minidump.AMD64RBP, f.label(t, "frame1_rbp"))
	st := f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustLeaf, walker.TrustScan)
	for i := 0; i < st.Frames[1].Context.NumRegs(); i++ {
		if i == minidump.AMD64RIP || i == minidump.AMD64RSP {
			continue
		}
		a, _ := reg(st.Frames[0], i)
		b, ok := reg(st.Frames[1], i)
		if !ok || a != b {
			t.Errorf("leaf frame register %d = %#x (valid %v), want the context's %#x", i, b, ok, a)
		}
	}
	wantReg(t, st.Frames[1], "rip", ra1)
	wantReg(t, st.Frames[1], "rsp", f.label(t, "frame1_sp"))
	wantReg(t, st.Frames[2], "rip", ra2)
	wantReg(t, st.Frames[2], "rsp", f.label(t, "frame2_sp"))
}

// Breakpad's CFI fixture: the same caller registers are recovered from
// every point of a prologue; callee-saved registers without rules keep
// the callee's values.
func TestCFI(t *testing.T) {
	const syms = "MODULE Linux x86_64 ID module1\n" +
		"FUNC 4000 1000 10 enchiridion\n" +
		"STACK CFI INIT 4000 100 .cfa: $rsp 8 + .ra: .cfa 8 - ^\n" +
		"STACK CFI 4001 .cfa: $rsp 16 + $rbx: .cfa 16 - ^\n" +
		"STACK CFI 4002 $r12: $rbx\n" +
		"STACK CFI 4003 .cfa: $rsp 40 + $r13: .cfa 32 - ^\n" +
		"STACK CFI 4005 .ra: $r13\n" +
		"STACK CFI 4006 .cfa: $rbp 16 + $rbp: .cfa 24 - ^\n" +
		"FUNC 5000 1000 10 epictetus\n" +
		"STACK CFI INIT 5000 1000 .cfa: $rsp .ra 0\n"
	const (
		callerRSP = 0x8000000080000000
		callerRIP = mod1Base + 0x5510
		rbp       = 0x68995b1de4700266
		rbx       = 0x5a5beeb38de23be8
		r12       = 0xed1b02e8cc0fc79c
		r13       = 0x1d20ad8acacbe930
		r14       = 0xe94cffc2f7adaa28
		r15       = 0xb638d17d8da413b5
	)
	cases := []struct {
		at    uint64
		words []uint64
		set   map[string]uint64
		rbpAt int // index of the word rbp points at, -1 for none
	}{
		{0x4000, []uint64{callerRIP}, nil, -1},
		{0x4001, []uint64{rbx, callerRIP}, map[string]uint64{"rbx": 0xbe0487d2f9eafe29}, -1},
		{0x4002, []uint64{rbx, callerRIP}, map[string]uint64{"rbx": r12, "r12": 0xb0118de918a4bcea}, -1},
		{0x4003, []uint64{0x0e023828dffd4d81, r13, 0x319e68b49e3ace0f, rbx, callerRIP}, map[string]uint64{"rbx": r12, "r12": 0x89d04fa804c87a43, "r13": 0x5118e02cbdb24b03}, -1},
		{0x4004, []uint64{0x0e023828dffd4d81, r13, 0x319e68b49e3ace0f, rbx, callerRIP}, map[string]uint64{"rbx": r12, "r12": 0x89d04fa804c87a43, "r13": 0x5118e02cbdb24b03}, -1},
		{0x4005, []uint64{0x4b516dd035745953, r13, 0xa6d445e16ae3d872, rbx, 0xaa95fa054aedfbae}, map[string]uint64{"rbx": r12, "r12": 0x46b1b8868891b34a, "r13": callerRIP}, -1},
		{0x4006, []uint64{0x043c6dfceb91aa34, r13, rbp, rbx, 0xf015ee516ad89eab}, map[string]uint64{"rbx": r12, "r12": 0x26e007b341acfebd, "r13": callerRIP}, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("at%x", c.at), func(t *testing.T) {
			f := newFixture(callerRSP - uint64(8*len(c.words)))
			f.syms = map[string]string{"module1": syms}
			f.stack.Words(c.words...)
			for n, v := range map[string]uint64{"rbp": rbp, "rbx": rbx, "r12": r12, "r13": r13, "r14": r14, "r15": r15} {
				f.ctx.Set(n, v)
			}
			for n, v := range c.set {
				f.ctx.Set(n, v)
			}
			if c.rbpAt >= 0 {
				f.ctx.Set("rbp", f.stack.Base()+uint64(8*c.rbpAt))
			}
			f.ctx.Set("rip", mod1Base+c.at)
			f.ctx.Set("rsp", f.stack.Base())
			st := f.walk(t)
			wantTrusts(t, st, walker.TrustContext, walker.TrustCFI)
			if st.Frames[0].Function != "enchiridion" || st.Frames[0].FunctionBase != mod1Base+0x4000 {
				t.Errorf("frame 0: %q at %#x", st.Frames[0].Function, st.Frames[0].FunctionBase)
			}
			fr := st.Frames[1]
			if fr.Function != "epictetus" {
				t.Errorf("frame 1: %q", fr.Function)
			}
			wantValid(t, fr, "rip", "rsp", "rbp", "rbx", "r12", "r13", "r14", "r15")
			for n, v := range map[string]uint64{"rip": callerRIP, "rsp": callerRSP, "rbp": rbp, "rbx": rbx, "r12": r12, "r13": r13, "r14": r14, "r15": r15} {
				wantReg(t, fr, n, v)
			}
		})
	}
}

// Stop rules: an IP below 4096, and a stack pointer that does not grow
// (except on the first unwind, where an equal one is allowed).
func TestStopRules(t *testing.T) {
	t.Run("low IP", func(t *testing.T) {
		f := newFixture(0x8000000080000000)
		f.stack.Append(16, 0).Mark("rbp").WordLabel("rbp2", 0).Word(0xfff).Append(16, 0).Mark("rbp2").Append(16, 0)
		f.stack.Finish()
		f.ctx.Set("rip", mod1Base+0x200)
		f.ctx.Set("rsp", f.stack.Base())
		f.ctx.Set("rbp", f.label(t, "rbp"))
		f.maxSc = 1 << 14
		st := f.walk(t)
		wantTrusts(t, st, walker.TrustContext)
	})
	const syms = "MODULE Linux x86_64 ID module1\nFUNC 100 100 0 f\n" +
		"STACK CFI INIT 100 100 .cfa: $rsp .ra: $rip\n" // caller rsp == callee rsp, same rip
	t.Run("equal SP allowed on first unwind only", func(t *testing.T) {
		f := newFixture(0x8000000080000000)
		f.syms = map[string]string{"module1": syms}
		f.stack.Append(64, 0)
		f.ctx.Set("rip", mod1Base+0x180)
		f.ctx.Set("rsp", f.stack.Base())
		st := f.walk(t)
		// Frame 1 has the same SP (allowed once); frame 2 would not grow.
		wantTrusts(t, st, walker.TrustContext, walker.TrustCFI)
	})
	t.Run("frame cap", func(t *testing.T) {
		f := newFixture(0x8000000080000000)
		f.syms = map[string]string{"module1": "MODULE Linux x86_64 ID module1\nFUNC 100 100 0 f\n" +
			"STACK CFI INIT 100 100 .cfa: $rsp 8 + .ra: $rip\n"} // endless recursion 8 bytes at a time
		f.stack.Append(8*100, 0)
		f.ctx.Set("rip", mod1Base+0x180)
		f.ctx.Set("rsp", f.stack.Base())
		f.max = 10
		st := f.walk(t)
		if len(st.Frames) != 11 || !st.Truncated {
			t.Errorf("%d frames, truncated %v; want 11 (Breakpad stops once the count exceeds the cap)", len(st.Frames), st.Truncated)
		}
	})
	t.Run("scan cap", func(t *testing.T) {
		f := newFixture(0x8000000080000000)
		for i := 0; i < 10; i++ {
			f.stack.Word(mod1Base + 0x100 + uint64(i))
		}
		f.stack.Append(16, 0)
		f.ctx.Set("rip", mod1Base+0x200)
		f.ctx.Set("rsp", f.stack.Base())
		f.ctx.Set("rbp", 0)
		f.maxSc = 3
		st := f.walk(t)
		// Three scanned frames are allowed; then scanning is refused.
		wantTrusts(t, st, walker.TrustContext, walker.TrustScan, walker.TrustScan, walker.TrustScan)
	})
}

// The context frame scans 4×40 words (plus one, Breakpad's inclusive bound);
// other frames 40 (plus one).
func TestScanLimits(t *testing.T) {
	build := func(gapWords int) *fixture {
		f := newFixture(0x8000000080000000)
		f.stack.Append(8*gapWords, 0).Word(mod2Base+0x100).Mark("frame1_sp").
			Append(8*40, 0).Word(mod2Base+0x200).Append(8*2, 0)
		f.ctx.Set("rip", mod1Base+0x200)
		f.ctx.Set("rsp", f.stack.Base())
		f.ctx.Set("rbp", 0)
		return f
	}
	st := build(160).walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustScan, walker.TrustScan)
	st = build(161).walk(t)
	wantTrusts(t, st, walker.TrustContext)
	// From a non-context frame: the second return address is 41 words up.
	f := newFixture(0x8000000080000000)
	f.stack.Word(mod2Base+0x100).Append(8*41, 0).Word(mod2Base+0x200).Append(16, 0)
	f.ctx.Set("rip", mod1Base+0x200)
	f.ctx.Set("rsp", f.stack.Base())
	f.ctx.Set("rbp", 0)
	wantTrusts(t, f.walk(t), walker.TrustContext, walker.TrustScan)
}

// The walk ends at the program's entry function when the entry point is known.
func TestEntryPointStop(t *testing.T) {
	f := newFixture(0x8000000080000000)
	f.syms = map[string]string{"module1": "MODULE Linux x86_64 ID module1\nFUNC 100 100 0 main\nPUBLIC 300 0 _start\n" +
		"STACK CFI INIT 100 100 .cfa: $rsp 8 + .ra: .cfa 8 - ^\nSTACK CFI INIT 300 40 .cfa: $rsp 8 + .ra: .cfa 8 - ^\n"}
	f.stack.Word(mod1Base+0x320).Word(mod1Base+0x100).Append(32, 0)
	f.ctx.Set("rip", mod1Base+0x180)
	f.ctx.Set("rsp", f.stack.Base())
	st := f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustCFI, walker.TrustCFI)
	f.entry = mod1Base + 0x300
	st = f.walk(t)
	wantTrusts(t, st, walker.TrustContext, walker.TrustCFI)
	if st.Frames[1].Function != "_start" {
		t.Errorf("last frame %q", st.Frames[1].Function)
	}
}
