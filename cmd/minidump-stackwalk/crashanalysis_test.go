package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// Our human report adds, after the crash address, the faulting instruction
// and what it touched (report/human_crash.go), in rust-minidump's words;
// Breakpad prints none of it. The comparisons with Breakpad's outputs drop
// those lines (dropCrashAnalysis); --breakpad-compat never prints them
// (TestConformanceBreakpadCompat compares its whole output), and
// TestHumanCrashAnalysis checks them against rust-minidump's snapshot.

// dropCrashAnalysis removes the crash-analysis lines from a human report:
// those between the crash address (and its parameters) and the
// "Assertion:" or "Process uptime:" line.
func dropCrashAnalysis(report string) string {
	lines := strings.SplitAfter(report, "\n")
	var out []string
	state := 0 // 0 before the crash address, 1 in its block, 2 after
	for _, l := range lines {
		switch {
		case state == 0 && strings.HasPrefix(l, "Crash address: "):
			state = 1
		case state == 1 && (strings.HasPrefix(l, "Crash parameters:") || strings.HasPrefix(l, "    value: ")):
		case state == 1 && (strings.HasPrefix(l, "Assertion: ") || strings.HasPrefix(l, "Process uptime:") || l == "\n"):
			state = 2
		case state == 1:
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "")
}

// TestHumanCrashAnalysis: for linux-mini.dmp our human report carries
// rust-minidump's crash-analysis lines of __linux_human.snap word for word,
// and --breakpad-compat drops them.
func TestHumanCrashAnalysis(t *testing.T) {
	root := corpus.Shared(t, "corpus", "rust-minidump")
	snap := string(snapshotJSON(t, filepath.Join(root, "minidump-stackwalk", "tests", "snapshots",
		"test_minidump_stackwalk__linux_human.snap")))
	start := strings.Index(snap, "Crashing instruction:")
	end := strings.Index(snap, "Process uptime:")
	if start < 0 || end < start {
		t.Fatal("no crash analysis in rust-minidump's snapshot")
	}
	want := snap[start:end]
	dump := filepath.Join(root, "testdata", "linux-mini.dmp")
	out, _, status := runCLI(dump)
	if status != exitOK {
		t.Fatalf("status %d", status)
	}
	if !strings.Contains(out, "Crash address: 0x45\n"+want+"Process uptime:") {
		t.Errorf("our report lacks rust-minidump's lines\n%s\nin:\n%s", want, out)
	}
	if d := dropCrashAnalysis(out); strings.Contains(d, "Crashing instruction") || !strings.Contains(d, "Crash address: 0x45\nProcess uptime:") {
		t.Errorf("dropCrashAnalysis left:\n%s", d)
	}
	// --breakpad-compat also walks differently; compare the headers.
	header := func(s string) string { h, _, _ := strings.Cut(s, "\nThread "); return h }
	compat, _, _ := runCLI("--breakpad-compat", dump)
	if header(compat) != header(dropCrashAnalysis(out)) {
		t.Errorf("--breakpad-compat header is not ours without the analysis:\n%s", header(compat))
	}
}

// withoutCrashAnalysis drops the crash analysis from a human report or a
// JSON document (crash_info's instruction-derived fields).
func withoutCrashAnalysis(out string) string {
	if !strings.HasPrefix(out, "{") {
		return dropCrashAnalysis(out)
	}
	var doc map[string]any
	if json.Unmarshal([]byte(out), &doc) != nil {
		return out
	}
	if ci, ok := doc["crash_info"].(map[string]any); ok {
		for _, k := range []string{"instruction", "memory_accesses", "instruction_pointer_update",
			"adjusted_address", "possible_bit_flips", "crash_inconsistencies"} {
			delete(ci, k)
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return out
	}
	return string(b)
}
