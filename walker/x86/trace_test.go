package x86_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// TestTraceShowsRejections walks TestScanByCallSite's stack (a word after
// a ret, one after a call to another function, one after a call to the
// callee) with Env.Trace: frame 1's steps name every method tried and why
// it gave nothing, each candidate passed over, and last the call-site
// scan that found it. Tracing changes no frame.
func TestTraceShowsRejections(t *testing.T) {
	const (
		callee = csMod + 0x1000
		stale  = csMod + 0x2010 // after `ret`: no call
		other  = csMod + 0x4000
		viaB   = csMod + 0x3020 // after `call other`
		viaC   = csMod + 0x3040 // after `call callee`
	)
	code := &walkertest.Memory{Base: csMod + 0x2000, Data: make([]byte, 0x1100)}
	put := func(end uint32, b []byte) { copy(code.Data[end-uint32(len(b))-uint32(code.Base):], b) }
	put(stale, []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0xc3})
	put(viaB, call32(viaB, other))
	put(viaC, call32(viaC, callee))
	syms := "MODULE Linux x86 ID1 module1\nFUNC 1000 100 0 callee\nFUNC 2000 100 0 stale\nFUNC 3000 100 0 caller\nFUNC 4000 100 0 other\n"
	walk := func(trace bool) *walker.Stack {
		ctx := minidump.NewContext(minidump.ArchX86)
		ctx.SetIndex(minidump.X86EIP, callee+0x10)
		ctx.SetIndex(minidump.X86ESP, csStack)
		ctx.SetIndex(minidump.X86EBP, 0)
		env := &walker.Env{
			OS: "linux", Memory: &walkertest.Memory{Base: csStack, Data: walkertest.Words32(0x100, stale, viaB, viaC)}, Code: code,
			Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "module1", csMod, 0x10000)}),
			Symbols: walkertest.NewSymbols(t, map[string]string{"module1": syms}),
			Trace:   trace,
		}
		return walker.Walk(env, x86.New(), ctx)
	}
	plain, traced := walk(false), walk(true)
	if got, want := walkertest.ReturnAddresses(traced.Frames), walkertest.ReturnAddresses(plain.Frames); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("traced walk %x, untraced %x", got, want)
	}
	if len(traced.Frames) < 2 || traced.Frames[1].Rule != walker.RuleScanCallSite {
		t.Fatalf("frame 1 not found by its call site: %+v", traced.Frames)
	}
	var lines []string
	for _, s := range traced.Frames[1].Steps {
		lines = append(lines, fmt.Sprintf("%s %v %s", s.Rule, s.Taken, s.Note))
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		fmt.Sprintf("stack_win false no STACK WIN record at %#x, only a parameter size", callee+0x10),
		fmt.Sprintf("cfi false no STACK CFI at %#x", callee+0x10),
		"frame_record false no frame record at ebp 0x0 in the stack",
		fmt.Sprintf("scan_after_call false word at %#x = %#x: no call instruction precedes it", uint64(csStack), stale),
		fmt.Sprintf("scan_after_call false word at %#x = %#x: call site not confirmed, a later confirmed one replaces it", uint64(csStack+4), viaB),
		fmt.Sprintf("scan_call_site true word at %#x = %#x", uint64(csStack+8), viaC),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("frame 1's steps lack %q:\n%s", want, got)
		}
	}
	if last := traced.Frames[1].Steps[len(traced.Frames[1].Steps)-1]; !last.Taken {
		t.Errorf("frame 1's last step is not the one that found it: %+v", last)
	}
	if len(traced.End) == 0 {
		t.Errorf("no step says why the walk ended after %d frames", len(traced.Frames))
	}
	if plain.Frames[1].Steps != nil || plain.End != nil {
		t.Errorf("untraced walk recorded steps")
	}
}
