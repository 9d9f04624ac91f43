package main

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// The testdata dumps are the same programs crashed on four architectures
// (x86, amd64, arm, arm64-CASE.dmp), so each case is one bug and should be
// one group. Socorro's lists alone split three cases: abort and throw by
// the libc or vDSO frame the signal left on top (__libc_do_syscall,
// linux-gate.so@0x5e9), strfn by the architecture's strlen variant. One
// grouping rule marking the programs' own sources in-app makes the
// signature from their frames: every case gets a single signature, and
// the cases that were already whole keep theirs, but for arm-assert.dmp
// (only on arm), named by the syscall frame on top before and by the
// program's function that asserted (check_positive) after.
func TestBatchGroupingRulesOnTestdata(t *testing.T) {
	syms, dumps := corpus.Testdata(t, "symbols"), corpus.Testdata(t, "dumps")
	rules := filepath.Join(t.TempDir(), "grouping.txt")
	if err := os.WriteFile(rules, []byte("# the demos' own sources are the application\npath:**/src/** +app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bySig := func(args ...string) map[string]map[string]bool {
		results, stderr, status := runBatchCLI("", append(args, "--symbols-path", syms, dumps)...)
		if status != exitOK || len(results) < 40 {
			t.Fatalf("%q: status %d, %d results\n%s", args, status, len(results), stderr)
		}
		cases := map[string]map[string]bool{}
		for _, r := range results {
			_, c, _ := strings.Cut(filepath.Base(r.Path), "-")
			if cases[c] == nil {
				cases[c] = map[string]bool{}
			}
			cases[c][r.Signature] = true
		}
		return cases
	}
	before, after := bySig(), bySig("--grouping-rules", rules)
	for _, split := range []string{"abort.dmp", "throw.dmp", "strfn.dmp"} {
		if len(before[split]) < 2 {
			t.Errorf("%s: %v without rules; the test expects it split", split, before[split])
		}
	}
	for c, sigs := range after {
		if len(sigs) != 1 {
			t.Errorf("%s: signatures %v with the rules, want one", c, sigs)
		}
		if c != "assert.dmp" && len(before[c]) == 1 && !maps.Equal(before[c], sigs) {
			t.Errorf("%s: %v became %v", c, before[c], sigs)
		}
	}
	if !after["strfn.dmp"]["strfn_measure"] || !after["abort.dmp"]["check_invariant"] || !after["assert.dmp"]["check_positive"] {
		t.Errorf("strfn %v, abort %v, assert %v: want the programs' frames strfn_measure, check_invariant, check_positive",
			after["strfn.dmp"], after["abort.dmp"], after["assert.dmp"])
	}
}
