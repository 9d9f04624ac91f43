package arm64

import (
	"strconv"
	"strings"

	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

// recordSP corrects the stack pointer of a frame found by a frame record
// before its own CFI runs. The record rule gives the frame the sp just
// above the record it followed, which is only a lower bound: AAPCS64 code
// keeps its record at the bottom of its frame, with its locals above, so a
// frameless function skipped between the two (static glibc's
// __libc_start_call_main) leaves the frame's real sp higher. CFI whose CFA
// is sp-based (`.cfa: sp N +`) then reads the wrong slots. The frame's
// own x29, restored from the record, shows where its record is: when its
// CFI saves x29 at `.cfa K +` and the word there (x29's slot) is not at
// x29, the sp that puts it there is the frame's (sp = x29 - N - K),
// provided it lies above the lower bound. It returns the corrected sp, and
// false where no correction applies, or where the rule is not the
// extended one (Breakpad runs CFI at the frame's sp).
func recordSP(last *walker.Frame, rules symfile.CFIRules, extended bool) (uint64, bool) {
	if !extended || last.Rule != walker.RuleFrameRecord {
		return 0, false
	}
	sp, ok1 := last.Context.Index(regSP)
	fp, ok2 := last.Context.Index(regFP)
	n, ok3 := cfiOffset(rules.CFA, "sp")
	if !ok1 || !ok2 || !ok3 || fp <= sp {
		return 0, false
	}
	var k int64
	found := false
	for _, r := range rules.Rules {
		if r.Register == "x29" {
			k, found = cfiOffset(strings.TrimSuffix(r.Expr, " ^"), ".cfa")
		}
	}
	if !found || int64(sp)+n+k == int64(fp) {
		return 0, false
	}
	corrected := uint64(int64(fp) - n - k)
	if corrected <= sp || corrected > fp {
		return 0, false
	}
	return corrected, true
}

// cfiOffset parses a postfix expression "BASE N +" and returns N.
func cfiOffset(expr, base string) (int64, bool) {
	f := strings.Fields(expr)
	if len(f) != 3 || f[0] != base || f[2] != "+" {
		return 0, false
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	return n, err == nil
}
