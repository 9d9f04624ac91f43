package processor

import (
	"fmt"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symcompress"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// TestTraceEveryFrame walks every dump of the corpora (callSiteCases) in
// both modes with Options.Trace: every physical frame says which rule
// found it (its last step, Taken, naming its Rule) after the steps
// rejected before it, every inlined frame is RuleInline, every walked
// thread says why its walk ended, and the frames are those of the walk
// without tracing.
func TestTraceEveryFrame(t *testing.T) {
	rules := map[string]int{}
	for _, c := range callSiteCases(t) {
		for _, mode := range []walker.Mode{walker.Extended, walker.Breakpad} {
			plain, traced := traceWalks(t, c, mode)
			for i, th := range traced.Threads {
				if !th.Walked() {
					continue
				}
				where := fmt.Sprintf("%s/%s %s thread %d", c.set, c.name, mode, i)
				if got, want := frameKeys(th.Frames), frameKeys(plain.Threads[i].Frames); got != want {
					t.Errorf("%s: traced walk differs:\n%s\nuntraced:\n%s", where, got, want)
				}
				if len(th.WalkEnd) == 0 {
					t.Errorf("%s: no step says why the walk ended", where)
				}
				for j, f := range th.Frames {
					checkFrameSteps(t, fmt.Sprintf("%s frame %d", where, j), f)
					rules[f.Rule.String()]++
				}
			}
		}
	}
	t.Logf("frames by rule: %v", rules)
}

func traceWalks(t *testing.T, c callSiteCase, mode walker.Mode) (plain, traced *ProcessState) {
	t.Helper()
	d, err := minidump.Open(c.dump)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	var sup symfile.Supplier
	if len(c.roots) > 0 {
		sup = symcompress.NewDirSupplier(c.roots...)
	}
	plain, _ = Process(d, sup, Options{Mode: mode})
	traced, _ = Process(d, sup, Options{Mode: mode, Trace: true})
	if plain == nil || traced == nil || len(plain.Threads) != len(traced.Threads) {
		t.Fatalf("%s: walks failed or differ in threads", c.dump)
	}
	return plain, traced
}

func checkFrameSteps(t *testing.T, where string, f *Frame) {
	t.Helper()
	if f.Trust == walker.TrustInline {
		if f.Rule != walker.RuleInline || len(f.Steps) != 0 {
			t.Errorf("%s: inlined frame with rule %s, %d steps", where, f.Rule, len(f.Steps))
		}
		return
	}
	if f.Rule == walker.RuleNone || f.Rule == walker.RuleStop || len(f.Steps) == 0 {
		t.Errorf("%s: rule %s, %d steps", where, f.Rule, len(f.Steps))
		return
	}
	for k, s := range f.Steps {
		last := k == len(f.Steps)-1
		if s.Taken != last || s.Note == "" || s.Rule == walker.RuleNone {
			t.Errorf("%s: step %d of %d: %+v", where, k, len(f.Steps), s)
		}
	}
	if taken := f.Steps[len(f.Steps)-1]; taken.Rule != f.Rule {
		t.Errorf("%s: found by %s, its step says %s", where, f.Rule, taken.Rule)
	}
}

// frameKeys is what a walk found: each frame's address, trust and rule.
func frameKeys(frames []*Frame) string {
	s := ""
	for _, f := range frames {
		s += fmt.Sprintf("%#x %s %s\n", f.Instruction, f.Trust.ShortName(), f.Rule)
	}
	return s
}
