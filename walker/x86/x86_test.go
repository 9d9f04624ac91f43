package x86_test

import (
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/synthkit"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// Module layout of Breakpad's stackwalker_x86_unittest.cc.
const (
	mod1 = 0x40000000
	mod2 = 0x50000000
)

type fixture struct {
	os       string
	syms     map[string]string
	ctx      minidump.Context
	stack    *synthkit.Stack
	maxSc    int
	extra    []*walker.Module
	breakpad bool
}

func newFixture() *fixture {
	f := &fixture{os: "linux", ctx: minidump.NewContext(minidump.ArchX86), stack: synthkit.NewStack(0x80000000, 4)}
	for i := 0; i < f.ctx.NumRegs(); i++ {
		f.ctx.SetIndex(i, 0x11111111*uint64(i+1))
	}
	return f
}

func (f *fixture) label(t *testing.T, name string) uint64 {
	t.Helper()
	v, ok := f.stack.Label(name)
	if !ok {
		t.Fatalf("no label %s", name)
	}
	return v
}

func (f *fixture) walk(t *testing.T) *walker.Stack {
	t.Helper()
	data, err := f.stack.Finish()
	if err != nil {
		t.Fatal(err)
	}
	mods := []*walker.Module{
		walkertest.Module(0, "module1", mod1, 0x10000),
		walkertest.Module(1, "module2", mod2, 0x10000),
	}
	mods = append(mods, f.extra...)
	env := &walker.Env{OS: f.os, Memory: &walkertest.Memory{Base: f.stack.Base(), Data: data},
		Modules: walkertest.NewModuleMap(mods), MaxScanned: f.maxSc}
	if f.syms != nil {
		env.Symbols = walkertest.NewSymbols(t, f.syms)
	}
	env.Mode = walkertest.Mode(f.breakpad)
	return walker.Walk(env, x86.New(), f.ctx)
}

// frameWant is the expected state of one frame: trust, valid registers
// (exactly), their values, and optionally the function.
type frameWant struct {
	trust    walker.Trust
	regs     map[string]uint64
	function string
}

func check(t *testing.T, st *walker.Stack, want ...frameWant) {
	t.Helper()
	if len(st.Frames) != len(want) {
		var got []string
		for _, f := range st.Frames {
			ip, _ := f.Context.IP()
			got = append(got, fmt.Sprintf("%v@%#x", f.Trust.ShortName(), ip))
		}
		t.Fatalf("%d frames %v, want %d", len(st.Frames), got, len(want))
	}
	for i, w := range want {
		fr := st.Frames[i]
		if fr.Trust != w.trust {
			t.Errorf("frame %d trust %v, want %v", i, fr.Trust, w.trust)
		}
		if i > 0 && w.regs != nil {
			for _, n := range minidump.RegisterNames(minidump.ArchX86) {
				v, ok := fr.Context.Get(n)
				wv, wok := w.regs[n]
				if ok != wok || v != wv {
					t.Errorf("frame %d %s = %#x (valid %v), want %#x (valid %v)", i, n, v, ok, wv, wok)
				}
			}
			if ip, _ := fr.Context.IP(); fr.Instruction != ip-1 {
				t.Errorf("frame %d instruction %#x, want eip-1", i, fr.Instruction)
			}
		}
		if w.function != "" && fr.Function != w.function {
			t.Errorf("frame %d function %q, want %q", i, fr.Function, w.function)
		}
	}
}

// The EBP chain.
func TestTraditional(t *testing.T) {
	f := newFixture()
	f.stack.Append(12, 0).Mark("frame0_ebp").WordLabel("frame1_ebp", 0).Word(0x40008679).
		Mark("frame1_esp").Append(8, 0).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000c7a5)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame0_ebp"))
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustFramePointer, regs: map[string]uint64{"eip": 0x40008679, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp")}})
}

// EBP points nowhere useful: scan, then recover EBP from the slot below
// the return address.
func TestTraditionalScan(t *testing.T) {
	f := newFixture()
	f.stack.Words(0xf065dc76, 0x46ee2167, 0xbab023ec).WordLabel("frame1_ebp", 0).Word(0x4000129d).
		Mark("frame1_esp").Append(8, 0).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000f49d)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xd43eed6e)
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustScan, regs: map[string]uint64{"eip": 0x4000129d, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp")}})
}

// The saved-EBP guess is rejected when it lies too far above (more than
// 128 KiB) or below the frame; the callee's EBP is kept then.
func TestScanKeepsEBPWhenSavedValueImplausible(t *testing.T) {
	f := newFixture()
	f.stack.Words(0xf065dc76).Word(0x80000000+0x40000).Word(0x4000129d).Mark("frame1_esp").Append(8, 0)
	f.ctx.Set("eip", 0x4000f49d)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xd43eed6e)
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustScan, regs: map[string]uint64{"eip": 0x4000129d, "esp": f.label(t, "frame1_esp"), "ebp": 0xd43eed6e}})
}

// Scanning can be refused (the scan cap): then the walk stops.
func TestScanningNotAllowed(t *testing.T) {
	f := newFixture()
	f.stack.Words(0xf065dc76, 0x4000129d, 0x50000100).Append(8, 0)
	f.ctx.Set("eip", 0x4000f49d)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xd43eed6e)
	f.maxSc = 1
	st := f.walk(t)
	if len(st.Frames) != 2 || st.Frames[1].Trust != walker.TrustScan {
		t.Fatalf("want context + one scanned frame, got %d frames", len(st.Frames))
	}
}

// A STACK WIN 4 (FrameData) program restores eip, esp, ebp, ebx, esi, edi.
func TestWindowsFrameData(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{"module1": "MODULE windows x86 ID module1\n" +
		"STACK WIN 4 aa85 176 0 0 4 10 4 0 1 $T2 $esp .cbSavedRegs + = $T0 .raSearchStart = $eip $T0 ^ = $esp $T0 4 + = " +
		"$ebx $T2 4  - ^ = $edi $T2 8  - ^ = $esi $T2 12 - ^ = $ebp $T2 16 - ^ =\n"}
	f.stack.WordLabel("frame1_ebp", 0).Words(0xa7120d1a, 0x630891be, 0x9068a878, 0xa08ea45f, 0x40001350).
		Mark("frame1_esp").Append(12, 0).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000aa85)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xf052c1de)
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustCFI, regs: map[string]uint64{"eip": 0x40001350, "esp": f.label(t, "frame1_esp"),
			"ebp": f.label(t, "frame1_ebp"), "ebx": 0x9068a878, "esi": 0xa7120d1a, "edi": 0x630891be}})
}

// .cbCalleeParams comes from the callee's FUNC parameter size; a program
// whose EIP lies in no module is kept when nothing better is found by scanning.
func TestWindowsFrameDataParameterSize(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{
		"module1": "MODULE windows x86 ID module1\nFUNC 1000 100 c module1::wheedle\n",
		"module2": "MODULE windows x86 ID module2\nFUNC aa85 176 beef module2::whine\n" +
			"STACK WIN 4 aa85 176 0 0 4 10 4 0 1 $T2 $esp .cbLocals + .cbSavedRegs + = $T0 .raSearchStart = " +
			"$eip $T0 ^ = $esp $T0 4 + = $ebp $T0 20 - ^ = $ebx $T0 8 - ^ =\n",
	}
	f.stack.Append(16, 0).Mark("frame0_ebp").Word(0x6fa902e0).Word(0x5000aa95).
		Mark("frame1_esp").Words(0xbaa0cb7a, 0xbdc92f9f, 0x0b1d8442).WordLabel("frame2_ebp", 0).
		Words(0xb1b90a15, 0xf18e072d, 0x2558c7f3, 0x0365e25e, 0x2a179e38).
		Mark("frame2_esp").Append(12, 0).Mark("frame2_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x40001004)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame0_ebp"))
	check(t, f.walk(t), frameWant{trust: walker.TrustContext, function: "module1::wheedle"},
		frameWant{trust: walker.TrustFramePointer, function: "module2::whine",
			regs: map[string]uint64{"eip": 0x5000aa95, "esp": f.label(t, "frame1_esp"), "ebp": 0x6fa902e0}},
		frameWant{trust: walker.TrustCFI,
			regs: map[string]uint64{"eip": 0x2a179e38, "esp": f.label(t, "frame2_esp"), "ebp": f.label(t, "frame2_ebp"), "ebx": 0x2558c7f3}})
}

// A program that fails to evaluate falls back to scanning.
func TestWindowsFrameDataScan(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{"module1": "MODULE windows x86 ID module1\n" +
		"STACK WIN 4 aa85 176 0 0 4 10 4 0 1 $eip $nosuchvar ^ = $esp $esp 4 + =\n"}
	// module1 has symbols but no FUNC at 0x40001350: not a return address there.
	f.stack.Words(0x1, 0x40001350, 0x50001350).Mark("frame1_esp").Append(12, 0)
	f.ctx.Set("eip", 0x4000aa85)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xf052c1de)
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustScan, regs: map[string]uint64{"eip": 0x50001350, "esp": f.label(t, "frame1_esp"), "ebp": 0xf052c1de}})
}

// The program's EIP lies in no module: scan on from .raSearchStart+4 and
// call the result "call frame info with scanning".
func TestWindowsFrameDataBadEIPScan(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{
		"module1": "MODULE windows x86 ID module1\nSTACK WIN 4 6e6 e7 0 0 0 8 4 0 1 $eip $ebp 4 + ^ = $esp $ebp 8 + = $ebp $ebp ^ =\n",
		"module2": "MODULE windows x86 ID module2\nFUNC cfdb 8406 0 module2::function\nSTACK WIN 4 cfdb 8406 0 0 0 0 0 0 1 $eip 0 = $ebp 0 =\n",
	}
	f.stack.Append(8, 0x2a).Mark("frame0_ebp").Words(0x3d937b2b, 0x17847f5b).WordLabel("frame1_ebp", 0).
		Words(0x2b2b2b2b, 0x2c2c2c2c, 0x5000d000).Mark("frame1_esp").Mark("frame1_ebp").Word(0x2d2d2d2d)
	f.stack.Finish()
	f.ctx.Set("eip", 0x40000700)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame0_ebp"))
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustCFIScan, function: "module2::function",
			regs: map[string]uint64{"eip": 0x5000d000, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp")}})
}

// STACK WIN 0 (FPO) without a program: EBP unchanged, EBX carried over.
func TestWindowsFPOUnchangedEBP(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{"module1": "MODULE windows x86 ID module1\n" +
		"FUNC e8a8 100 feeb module1::discombobulated\nSTACK WIN 0 e8a8 100 0 0 8 4 10 0 0 0\n"}
	f.stack.Word(0x7c521352).Append(0x10, 0x42).Word(0x40009b5b).Mark("frame1_esp").Word(0xf60ea7fc).
		Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000e8b8)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame1_ebp"))
	ebx, _ := f.ctx.Get("ebx")
	check(t, f.walk(t), frameWant{trust: walker.TrustContext, function: "module1::discombobulated"},
		frameWant{trust: walker.TrustCFI, regs: map[string]uint64{"eip": 0x40009b5b, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp"), "ebx": ebx}})
}

// STACK WIN 0 with allocates_base_pointer: EBP restored from the save area.
func TestWindowsFPOUsedEBP(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{"module1": "MODULE windows x86 ID module1\n" +
		"FUNC 9aa8 e6 abbe module1::RaisedByTheAliens\nSTACK WIN 0 9aa8 e6 a 0 10 8 4 0 0 1\n"}
	f.stack.WordLabel("frame1_ebp", 0).Words(0xb68bd5f9, 0xd25d05fc, 0x4000debe).
		Mark("frame1_esp").Word(0xf0c9a974).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x40009ab8)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", 0xecbdd1a5)
	check(t, f.walk(t), frameWant{trust: walker.TrustContext, function: "module1::RaisedByTheAliens"},
		frameWant{trust: walker.TrustCFI,
			regs: map[string]uint64{"eip": 0x4000debe, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp")}})
}

// Breakpad's x86 CFI fixture: the caller's registers from every point of a
// prologue; callee-saved registers without rules keep the callee's values.
func TestCFI(t *testing.T) {
	const syms = "MODULE Linux x86 ID module1\n" +
		"FUNC 4000 1000 10 enchiridion\n" +
		"STACK CFI INIT 4000 100 .cfa: $esp 4 + .ra: .cfa 4 - ^\n" +
		"STACK CFI 4001 .cfa: $esp 8 + $ebp: .cfa 8 - ^\n" +
		"STACK CFI 4002 .cfa: $esp 12 + $ebx: .cfa 12 - ^\n" +
		"STACK CFI 4003 $esi: $eax\n" +
		"STACK CFI 4004 .cfa: $esp 16 + $edi: .cfa 16 - ^\n" +
		"STACK CFI 4005 .ra: $ecx\n" +
		"FUNC 5000 1000 10 epictetus\n" +
		"STACK CFI INIT 5000 1000 .cfa: $esp .ra 0\n"
	const (
		callerESP = 0x80000000 + 0x100
		callerEIP = mod1 + 0x5510
		ebp, ebx  = 0x19db0eb0, 0x7ee1f6a6
		esi, edi  = 0x0e1cf9bc, 0x8e1c5b57
	)
	cases := []struct {
		at    uint64
		words []uint64
		set   map[string]uint64
	}{
		{0x4000, []uint64{callerEIP}, nil},
		{0x4001, []uint64{ebp, callerEIP}, map[string]uint64{"ebp": 0xdeadbeef}},
		{0x4002, []uint64{ebx, ebp, callerEIP}, map[string]uint64{"ebp": 0x1, "ebx": 0x2}},
		{0x4003, []uint64{ebx, ebp, callerEIP}, map[string]uint64{"ebp": 0x1, "ebx": 0x2, "eax": esi, "esi": 0x3}},
		{0x4004, []uint64{edi, ebx, ebp, callerEIP}, map[string]uint64{"ebp": 0x1, "ebx": 0x2, "eax": esi, "esi": 0x3, "edi": 0x4}},
		{0x4005, []uint64{edi, ebx, ebp, 0x5555}, map[string]uint64{"ebp": 0x1, "ebx": 0x2, "eax": esi, "esi": 0x3, "edi": 0x4, "ecx": callerEIP}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%x", c.at), func(t *testing.T) {
			f := newFixture()
			f.stack = synthkit.NewStack(callerESP-uint64(4*len(c.words)), 4)
			f.syms = map[string]string{"module1": syms}
			f.stack.Words(c.words...)
			for n, v := range map[string]uint64{"ebp": ebp, "ebx": ebx, "esi": esi, "edi": edi} {
				f.ctx.Set(n, v)
			}
			for n, v := range c.set {
				f.ctx.Set(n, v)
			}
			f.ctx.Set("eip", mod1+c.at)
			f.ctx.Set("esp", f.stack.Base())
			check(t, f.walk(t), frameWant{trust: walker.TrustContext, function: "enchiridion"},
				frameWant{trust: walker.TrustCFI, function: "epictetus",
					regs: map[string]uint64{"eip": callerEIP, "esp": callerESP, "ebp": ebp, "ebx": ebx, "esi": esi, "edi": edi}})
		})
	}
}

// The walk stops at an EIP below 4096 and when ESP does not grow.
func TestStopRules(t *testing.T) {
	f := newFixture()
	f.stack.Append(8, 0).Mark("frame0_ebp").WordLabel("frame1_ebp", 0).Word(0x0ffc).Append(8, 0).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000c7a5)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame0_ebp"))
	check(t, f.walk(t), frameWant{trust: walker.TrustContext})

	// EBP chain pointing below ESP: the caller's ESP would not grow.
	g := newFixture()
	g.stack = synthkit.NewStack(0x80000000, 4)
	g.stack.Mark("low").WordLabel("low", 0).Word(0x40001000).Append(32, 0).Mark("esp").Append(32, 0)
	g.stack.Finish()
	g.ctx.Set("eip", 0x4000c7a5)
	g.ctx.Set("esp", g.label(t, "esp"))
	g.ctx.Set("ebp", g.label(t, "low"))
	check(t, g.walk(t), frameWant{trust: walker.TrustContext})
}

// Breakpad's WindowsFPOSystemCall: frame 0 sits on a system call stub
// (FPO, no program) whose [esp] holds the current EIP; .raSearchStart
// must skip that word to find the real return address.
func TestWindowsFPOSystemCall(t *testing.T) {
	f := newFixture()
	f.extra = []*walker.Module{
		walkertest.Module(2, "module3", 0x771d0000, 0x180000),
		walkertest.Module(3, "module4", 0x75f90000, 0x46000),
		walkertest.Module(4, "module5", 0x75730000, 0x110000),
		walkertest.Module(5, "module6", 0x647f0000, 0x1ba8000),
	}
	const prog = "$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + = $L $T0 .cbSavedRegs - = $P $T0 8 + .cbParams + ="
	f.syms = map[string]string{
		"module3": "MODULE windows x86 ID ntdll\nPUBLIC 1f8ac c ZwWaitForSingleObject\nSTACK WIN 0 1f8ac 1b 0 0 c 0 0 0 0 0\n",
		"module4": "MODULE windows x86 ID kernelbase\nPUBLIC 109f9 c WaitForSingleObjectEx\nPUBLIC 36590 0 _except_handler4\n" +
			"STACK WIN 4 109f9 df c 0 c c 48 0 1 " + prog + "\nSTACK WIN 4 36590 154 17 0 10 0 14 0 1 " + prog + "\n",
		"module5": "MODULE windows x86 ID kernel32\nPUBLIC 11136 8 WaitForSingleObject\nPUBLIC 11151 c WaitForSingleObjectExImplementation\n" +
			"STACK WIN 4 11136 16 5 0 8 0 0 0 1 " + prog + "\nSTACK WIN 4 11151 7a 5 0 c 0 0 0 1 " + prog + "\n",
		"module6": "MODULE windows x86 ID chrome\nFILE 7038 some_file_name.h\nFILE 839776 some_file_name.cc\n" +
			"FUNC 217fda 17 4 function_217fda\n217fda 4 102 839776\nFUNC 217ff1 a 4 function_217ff1\n217ff1 0 594 7038\n217ff1 a 596 7038\n" +
			"STACK WIN 0 217ff1 a 0 0 4 0 0 0 0 0\n",
	}
	f.stack = synthkit.NewStack(0x002ff290, 4)
	f.stack.Words(0x771ef8c1, 0x75fa0a91).Mark("frame1_esp").
		Words(0x000017b0, 0, 0x002ff2d8, 0x88014a2e, 0x002ff364, 0x000017b0, 0, 0x24, 1, 0, 0, 0, 0, 0, 0, 0,
			0x9e3b9800, 0xfffffff7, 0, 0x002ff2a4, 0x64a07ff1, 0x002ff8dc, 0x75fc6590, 0xfdd2c6ea, 0).
		Mark("frame1_ebp").WordLabel("frame2_ebp", 0).Words(0x75741194, 0x000017b0, 0x0036ee80, 0, 0x65bc7d14).
		Mark("frame2_ebp").WordLabel("frame3_ebp", 0).Words(0x75741148, 0x000017b0, 0x0036ee80, 0).
		Mark("frame3_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x771ef8c1)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame1_ebp"))
	ebx, _ := f.ctx.Get("ebx")
	st := f.walk(t)
	if len(st.Frames) != 4 {
		t.Fatalf("%d frames, want 4", len(st.Frames))
	}
	check(t, &walker.Stack{Frames: st.Frames[:2]},
		frameWant{trust: walker.TrustContext, function: "ZwWaitForSingleObject"},
		frameWant{trust: walker.TrustCFI, function: "WaitForSingleObjectEx",
			regs: map[string]uint64{"eip": 0x75fa0a91, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp"), "ebx": ebx}})
}

// A program using the alignment operator '@' (a realigned frame) takes
// .raSearchStart from EBP+4 rather than from ESP and the frame sizes.
func TestWindowsFrameDataAlignment(t *testing.T) {
	f := newFixture()
	f.syms = map[string]string{"module1": "MODULE windows x86 ID module1\n" +
		"STACK WIN 4 aa85 176 0 0 4 40 4 0 1 $T1 $esp 16 @ = $eip .raSearchStart ^ = $esp .raSearchStart 4 + = $ebp $ebp ^ =\n"}
	// ESP-based search would find 0x50000111 (module2, no symbols) first.
	f.stack.Words(0x50000111, 0, 0, 0, 0).Mark("frame0_ebp").WordLabel("frame1_ebp", 0).Word(0x50000222).
		Mark("frame1_esp").Append(8, 0).Mark("frame1_ebp").Word(0).Word(0)
	f.stack.Finish()
	f.ctx.Set("eip", 0x4000aa85)
	f.ctx.Set("esp", f.stack.Base())
	f.ctx.Set("ebp", f.label(t, "frame0_ebp"))
	check(t, f.walk(t), frameWant{trust: walker.TrustContext},
		frameWant{trust: walker.TrustCFI, regs: map[string]uint64{"eip": 0x50000222, "esp": f.label(t, "frame1_esp"), "ebp": f.label(t, "frame1_ebp")}})
}

// .cbCalleeParams is the parameter size of the frame's callee. Breakpad's
// loop over the earlier frames lacks a break and takes frame 0's size
// instead; with a deeper stack its .raSearchStart then starts past the
// return address and finds a later word. Options.Breakpad reproduces that.
func TestCalleeParameterSize(t *testing.T) {
	build := func(breakpad bool) (*fixture, *walker.Stack) {
		f := newFixture()
		f.breakpad = breakpad
		f.syms = map[string]string{
			"module1": "MODULE windows x86 ID module1\nFUNC 1000 100 10 callee0\n",
			"module2": "MODULE windows x86 ID module2\nFUNC 2000 100 4 mid\nFUNC 3000 100 0 top\n" +
				"STACK WIN 4 3000 100 0 0 0 0 0 0 1 $eip .raSearchStart ^ = $esp .raSearchStart 4 + =\n",
		}
		f.stack.Append(8, 0).
			Mark("ebp0").WordLabel("ebp1", 0).Word(0x50002010).         // frame 0 -> mid
			Word(0).Mark("ebp1").WordLabel("ebp2", 0).Word(0x50003010). // frame 1 -> top
			Mark("esp2").Word(0).                                       // top's argument to mid (4 bytes)
			Word(0x50002020).Mark("esp3").                              // top's return address
			Words(0, 0, 0).Word(0x50002030).                            // a later code address
			Mark("ebp2").Word(0).Word(0).Append(16, 0)
		f.stack.Finish()
		f.ctx.Set("eip", 0x40001010)
		f.ctx.Set("esp", f.stack.Base())
		f.ctx.Set("ebp", f.label(t, "ebp0"))
		return f, f.walk(t)
	}
	f, st := build(false)
	if len(st.Frames) < 4 {
		t.Fatalf("%d frames", len(st.Frames))
	}
	if ip, _ := st.Frames[3].Context.IP(); ip != 0x50002020 || st.Frames[3].Trust != walker.TrustCFI {
		t.Errorf("frame 3: eip %#x %v, want 0x50002020 by CFI (.cbCalleeParams = mid's 4)", ip, st.Frames[3].Trust)
	}
	if sp, _ := st.Frames[3].Context.SP(); sp != f.label(t, "esp3") {
		t.Errorf("frame 3: esp %#x, want %#x", sp, f.label(t, "esp3"))
	}
	_, st = build(true)
	if ip, _ := st.Frames[3].Context.IP(); ip != 0x50002030 {
		t.Errorf("Breakpad mode: frame 3 eip %#x, want Breakpad's 0x50002030 (.cbCalleeParams = callee0's 0x10)", ip)
	}
}

// A callee named only by a PUBLIC symbol still has a parameter size (a
// PDB's stdcall decoration, which dump_syms writes): its caller's STACK WIN
// search for the return address starts above those arguments, past a stale
// code address in the caller's locals. Breakpad drops a PUBLIC's size
// (FindWindowsFrameInfo returns nothing without a FUNC) and, in Breakpad
// mode, takes the stale word. (The shape of difftest windows-x86 seed 1145.)
func TestCalleeParameterSizeFromPublic(t *testing.T) {
	build := func(breakpad bool) (*fixture, *walker.Stack) {
		f := newFixture()
		f.breakpad = breakpad
		f.syms = map[string]string{
			"module1": "MODULE windows x86 ID module1\nFUNC 1000 100 0 callee0\nPUBLIC 1100 8 pubfn\nFUNC 2000 100 0 outer\n",
			"module2": "MODULE windows x86 ID module2\nFUNC 3000 100 0 top\nSTACK WIN 0 3000 100 0 0 0 0 10 0 0 0\n",
		}
		f.stack.Append(8, 0).
			Mark("ebp0").WordLabel("ebp1", 0).Word(0x40001110).         // frame 0 -> pubfn
			Word(0).Mark("ebp1").WordLabel("ebp2", 0).Word(0x50003010). // pubfn -> top
			Mark("esp2").Words(0, 0).                                   // pubfn's 8 bytes of arguments
			Words(0, 0, 0x50003050, 0).                                 // top's 16 bytes of locals, a stale code address among them
			Word(0x40002010).Mark("esp3").                              // top's return address
			Mark("ebp2").Word(0).Word(0).Append(16, 0)
		f.stack.Finish()
		f.ctx.Set("eip", 0x40001010)
		f.ctx.Set("esp", f.stack.Base())
		f.ctx.Set("ebp", f.label(t, "ebp0"))
		return f, f.walk(t)
	}
	f, st := build(false)
	check(t, st, frameWant{trust: walker.TrustContext, function: "callee0"},
		frameWant{trust: walker.TrustFramePointer, function: "pubfn",
			regs: map[string]uint64{"eip": 0x40001110, "esp": f.label(t, "ebp0") + 8, "ebp": f.label(t, "ebp1")}},
		frameWant{trust: walker.TrustFramePointer, function: "top",
			regs: map[string]uint64{"eip": 0x50003010, "esp": f.label(t, "esp2"), "ebp": f.label(t, "ebp2")}},
		frameWant{trust: walker.TrustCFI, function: "outer",
			regs: map[string]uint64{"eip": 0x40002010, "esp": f.label(t, "esp3"), "ebp": f.label(t, "ebp2")}})
	_, st = build(true)
	if len(st.Frames) < 4 {
		t.Fatalf("Breakpad mode: %d frames", len(st.Frames))
	}
	if ip, _ := st.Frames[3].Context.IP(); ip != 0x50003050 {
		t.Errorf("Breakpad mode: frame 3 eip %#x, want Breakpad's stale 0x50003050 (.cbCalleeParams 0)", ip)
	}
}
