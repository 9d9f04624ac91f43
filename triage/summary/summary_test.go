package summary

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
)

// results makes n results over a few signatures and stacks, some failed.
func results(n int) []*triage.Result {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []*triage.Result
	for i := range n {
		r := &triage.Result{Path: fmt.Sprintf("/dumps/%04d.dmp", rng.IntN(100000)), Status: triage.StatusOK,
			OS: []string{"Linux", "Windows NT", "Mac OS X"}[i%3], CPU: []string{"amd64", "arm64"}[i%2],
			Product: "app", ProductVersion: fmt.Sprintf("1.%d", i%4)}
		switch rng.IntN(10) {
		case 0:
			r.Status, r.Error = triage.StatusInvalid, "no minidump header"
			out = append(out, r)
			continue
		case 1:
			r.Status, r.Error = triage.StatusPartial, "module list: truncated"
		}
		fn := fmt.Sprintf("f%d", rng.IntN(5))
		r.Frames = []triage.Frame{{Module: "lib.so", Function: fn, Offset: fmt.Sprintf("0x%x", rng.IntN(3)), Trust: "context"}}
		r.Modules = []triage.Module{{Name: "lib.so", Version: fmt.Sprint(1 + rng.IntN(2))}}
		r.Signature = fn
		r.CrashReason = []string{"SIGSEGV /SEGV_MAPERR", "SIGABRT"}[rng.IntN(2)]
		out = append(out, r)
	}
	return out
}

func TestMergeOfShardsEqualsWhole(t *testing.T) {
	all := results(500)
	whole := NewBuilder(3)
	for _, r := range all {
		whole.Add(r)
	}
	want := whole.Summary()
	for _, n := range []int{1, 2, 3, 7} {
		shards := make([]*Builder, n)
		for i := range shards {
			shards[i] = NewBuilder(3)
		}
		for i, r := range all {
			shards[(i*31)%n].Add(r)
		}
		var parts []*Summary
		for _, s := range shards {
			// Through JSON, as batch merge reads them.
			var buf bytes.Buffer
			if err := Write(&buf, s.Summary()); err != nil {
				t.Fatal(err)
			}
			p, err := Read(&buf)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, p)
		}
		got, err := Merge(3, parts...)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%d shards: merged summary differs from the whole (-whole +merged):\n%s", n, d)
		}
	}
	if want.Inputs != 500 || len(want.Groups) != 5 {
		t.Errorf("whole: %d inputs, %d groups; want 500, 5", want.Inputs, len(want.Groups))
	}
}

func TestSummaryContents(t *testing.T) {
	b := NewBuilder(2)
	st := []triage.Frame{{Module: "a.so", Function: "crash", Offset: "0x1", Trust: "context"}}
	st2 := []triage.Frame{{Module: "a.so", Function: "crash", Offset: "0x2", Trust: "context"}}
	add := func(path, sig string, frames []triage.Frame) {
		b.Add(&triage.Result{Path: path, Status: triage.StatusOK, Signature: sig, Frames: frames, CrashReason: "SIGSEGV",
			Modules: []triage.Module{{Name: "a.so", Version: "1.0"}}})
	}
	add("c.dmp", "crash", st)
	add("a.dmp", "crash", st2)
	add("b.dmp", "crash", st)
	add("z.dmp", "other", st)
	b.Add(&triage.Result{Path: "bad.dmp", Status: triage.StatusInvalid, Error: "no header"})
	s := b.Summary()
	if s.Inputs != 5 || s.OK != 4 || s.Statuses[triage.StatusInvalid] != 1 {
		t.Errorf("counts: %+v", s)
	}
	g := s.Groups[0]
	if g.Signature != "crash" || g.Count != 3 || len(g.Stacks) != 2 || g.Stacks[0].Count != 2 {
		t.Errorf("group 0: %+v", g)
	}
	if !cmp.Equal(g.Examples, []string{"a.dmp", "b.dmp"}) {
		t.Errorf("examples %v, want the two smallest paths", g.Examples)
	}
	if len(s.Stacks) != 2 {
		t.Errorf("%d stacks, want 2", len(s.Stacks))
	}
	if g.Modules[0] != (ModuleCount{"a.so", "1.0", 3}) || g.CrashReasons[0] != (NameCount{"SIGSEGV", 3}) {
		t.Errorf("modules %v, reasons %v", g.Modules, g.CrashReasons)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, s, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"      3  75.0%  crash", "(1 more signatures)", "5 inputs: 4 ok, 1 not processed in full (invalid 1); 2 signatures, 2 distinct stacks"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestReadRejects(t *testing.T) {
	for _, in := range []string{`{"format":2}`, `{`, `[]`} {
		if _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("Read(%s): no error", in)
		}
	}
	if _, err := Merge(1, &Summary{Format: 1, Groups: []Group{{Signature: "x", Stacks: []StackCount{{"nope", 1}}}}}); err == nil {
		t.Error("Merge of a group naming a missing stack: no error")
	}
}

// Configs count each group's dumps by OS, CPU and product version; a merge
// adds them and keeps the runs of its parts.
func TestConfigsAndRuns(t *testing.T) {
	b := NewBuilder(2)
	add := func(path, os, version string) {
		b.Add(&triage.Result{Path: path, Status: triage.StatusOK, Signature: "crash", OS: os, CPU: "amd64",
			Product: "app", ProductVersion: version, Frames: []triage.Frame{{Function: "crash", Offset: "0x1", Trust: "context"}}})
	}
	add("a.dmp", "Linux", "1.0")
	add("b.dmp", "Linux", "1.0")
	add("c.dmp", "Windows NT", "2.0")
	s := b.Summary()
	want := []ConfigCount{{Config{"Linux", "amd64", "app", "1.0"}, 2}, {Config{"Windows NT", "amd64", "app", "2.0"}, 1}}
	if d := cmp.Diff(want, s.Groups[0].Configs); d != "" {
		t.Errorf("configs (-want +got):\n%s", d)
	}
	s.Run = &Run{Date: "2026-01-02T03:04:05Z", Version: "v1", Inputs: []string{"dumps/"}}
	b2 := NewBuilder(2)
	b2.Add(&triage.Result{Path: "d.dmp", Status: triage.StatusOK, Signature: "crash", OS: "Linux", CPU: "amd64",
		Product: "app", ProductVersion: "1.0", Frames: []triage.Frame{{Function: "crash", Offset: "0x1", Trust: "context"}}})
	m, err := Merge(2, s, b2.Summary())
	if err != nil {
		t.Fatal(err)
	}
	want[0].Count = 3
	if d := cmp.Diff(want, m.Groups[0].Configs); d != "" {
		t.Errorf("merged configs (-want +got):\n%s", d)
	}
	if m.Run == nil || len(m.Run.Parts) != 1 || m.Run.Parts[0].Inputs[0] != "dumps/" {
		t.Errorf("merged run %+v, want the one part's run", m.Run)
	}
	// Configs counting more dumps than the group has are refused.
	s.Groups[0].Configs[1].Count = 2
	if _, err := Merge(2, s); err == nil || !strings.Contains(err.Error(), "configs count more dumps") {
		t.Errorf("configs past the group's count: %v", err)
	}
}
