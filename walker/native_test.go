package walker_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/amd64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/arm64"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/walkertest"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker/x86"
)

// nativeFile is a module file whose every address has the same unwind
// rules, from source.
type nativeFile struct {
	rules  string // "REG: EXPR REG: EXPR", as a STACK CFI INIT line's
	source walker.CFISource
}

func (n nativeFile) Native(*walker.Module) walker.NativeModule { return n }

func (n nativeFile) CFIRules(walker.NativeQuery) (symfile.CFIRules, walker.CFISource, bool) {
	var rules symfile.CFIRules
	fields := strings.Fields(n.rules)
	for i := 0; i < len(fields); {
		reg := strings.TrimSuffix(fields[i], ":")
		j := i + 1
		for j < len(fields) && !strings.HasSuffix(fields[j], ":") {
			j++
		}
		rules.Set(reg, strings.Join(fields[i+1:j], " "))
		i = j
	}
	return rules, n.source, true
}

func (nativeFile) FunctionStart(uint64) (uint64, bool) { return 0, false }
func (nativeFile) IsCode(uint64) bool                  { return false }
func (nativeFile) ReadCode(uint64, []byte) bool        { return false }

// TestNativeRulesNamedBySource: on all four architectures, a frame
// unwound by the rules a module's file gives is named by where they came
// from: RuleModulePrologue for a prologue's, RuleCFI for the file's
// unwind tables; its trust is call frame info either way. Breakpad's mode
// never reads the file.
func TestNativeRulesNamedBySource(t *testing.T) {
	const (
		mod   = 0x10000
		stack = 0x80000
		ra    = mod + 0x1234
	)
	for _, c := range []struct {
		arch   walker.Arch
		ctx    minidump.Arch
		pc, sp int
		word   int
		rules  string
	}{
		{x86.New(), minidump.ArchX86, minidump.X86EIP, minidump.X86ESP, 4, ".cfa: $esp 4 + .ra: .cfa 4 - ^"},
		{amd64.New(), minidump.ArchAMD64, minidump.AMD64RIP, minidump.AMD64RSP, 8, ".cfa: $rsp 8 + .ra: .cfa 8 - ^"},
		{arm.New(), minidump.ArchARM, minidump.ARMPC, minidump.ARMSP, 4, ".cfa: sp 4 + .ra: .cfa 4 - ^"},
		{arm64.New(), minidump.ArchARM64, minidump.ARM64PC, minidump.ARM64SP, 8, ".cfa: sp 8 + .ra: .cfa 8 - ^"},
	} {
		for _, src := range []walker.CFISource{walker.CFIPrologue, walker.CFIUnwindTables} {
			for _, mode := range []walker.Mode{walker.Extended, walker.Breakpad} {
				data := make([]byte, 0x100)
				if c.word == 4 {
					binary.LittleEndian.PutUint32(data, ra)
				} else {
					binary.LittleEndian.PutUint64(data, ra)
				}
				ctx := minidump.NewContext(c.ctx)
				ctx.SetIndex(c.pc, mod+0x100)
				ctx.SetIndex(c.sp, stack)
				if c.ctx == minidump.ArchX86 {
					ctx.SetIndex(minidump.X86EBP, 0) // the caller's, callee-saved: byCFI wants it
				}
				env := &walker.Env{
					OS:      "linux",
					Mode:    mode,
					Memory:  &walkertest.Memory{Base: stack, Data: data},
					Modules: walkertest.NewModuleMap([]*walker.Module{walkertest.Module(0, "prog", mod, 0x10000)}),
					Native:  nativeFile{rules: c.rules, source: src},
				}
				st := walker.Walk(env, c.arch, ctx)
				label := c.ctx.String() + " " + mode.String()
				if mode == walker.Breakpad {
					for _, f := range st.Frames {
						if f.Trust == walker.TrustCFI {
							t.Errorf("%s: a frame by %s: Breakpad's mode read the module's file", label, f.Rule)
						}
					}
					continue
				}
				if len(st.Frames) < 2 {
					t.Fatalf("%s: %d frames", label, len(st.Frames))
				}
				f := st.Frames[1]
				if pc, _ := f.Context.Index(c.pc); pc != ra {
					t.Errorf("%s: caller pc %#x, want %#x", label, pc, ra)
				}
				if want := src.Rule(); f.Rule != want || f.Trust != walker.TrustCFI {
					t.Errorf("%s, rules from %d: caller found by %s (%s), want %s (call frame info)", label, src, f.Rule, f.Trust, want)
				}
			}
		}
	}
}
