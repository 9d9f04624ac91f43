package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

// The JSON conformance test compares our --json output with rust-minidump's
// own output for the same command, stored as insta snapshots in
// ../shared/corpus/rust-minidump/minidump-stackwalk/tests/snapshots (a 4-line
// header, then the output). Both documents are parsed and flattened to
// leaf paths ("threads[0].frames[1].trust"); every leaf present in either is
// compared. A difference fails the test unless a rule below lists it with
// the reason we differ on purpose.

// jsonSnapshot is one rust-minidump snapshot and the command that produced
// it (from the corpus README), relative to rust-minidump/testdata.
type jsonSnapshot struct {
	name string   // snapshot file name without prefix and .snap
	args []string // arguments; paths relative to testdata/
}

var jsonSnapshots = []jsonSnapshot{
	{"json-pretty", []string{"--json", "--pretty", "test.dmp"}},
	{"json-pretty-symbols", []string{"--json", "--pretty", "test.dmp", "symbols/"}},
	{"linux_json_pretty", []string{"--json", "--pretty", "linux-mini.dmp"}},
	{"macos_inlines_json_pretty", []string{"--json", "--pretty", "--symbols-path=symbols/", "pipeline-inlines-macos-segv.dmp"}},
	{"json-stable-all", []string{"--json", "--pretty", "--features", "stable-all", "test.dmp"}},
	{"json-unstable-all", []string{"--json", "--pretty", "--features", "unstable-all", "test.dmp"}},
	{"json-pretty-evil-symbols", []string{"--json", "--pretty", "--evil-json", "evil.json", "test.dmp", "symbols/"}},
	// The compact form (the JSON half of --cyborg too).
	{"json", []string{"--json", "test.dmp"}},
}

// deliberateDifference is a set of leaves where we knowingly differ.
type deliberateDifference struct {
	snapshot string         // "" for all snapshots
	path     *regexp.Regexp // matched against the leaf path
	reason   string
}

// deliberateDifferences is empty: every leaf agrees. A rule goes here with
// its reason if we ever differ on purpose.
var deliberateDifferences = []deliberateDifference{}

func snapshotJSON(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Skip the insta header: "---", "source: ...", "expression: ...", "---".
	for i := 0; i < 4; i++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			t.Fatalf("%s: short insta header", path)
		}
		data = data[nl+1:]
	}
	return data
}

// flattenJSON maps each leaf path of v to its JSON text. Empty arrays and
// objects are leaves ("[]", "{}").
func flattenJSON(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[prefix] = "{}"
			return
		}
		for k, e := range x {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			flattenJSON(p, e, out)
		}
	case []any:
		if len(x) == 0 {
			out[prefix] = "[]"
			return
		}
		for i, e := range x {
			flattenJSON(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
}

func parseFlat(t *testing.T, what string, data []byte) map[string]string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: invalid JSON: %v", what, err)
	}
	out := map[string]string{}
	flattenJSON("", v, out)
	return out
}

func TestJSONConformance(t *testing.T) {
	root := corpus.Shared(t, "corpus", "rust-minidump")
	testdata := filepath.Join(root, "testdata")
	snapDir := filepath.Join(root, "minidump-stackwalk", "tests", "snapshots")
	for _, snap := range jsonSnapshots {
		t.Run(snap.name, func(t *testing.T) {
			want := snapshotJSON(t, filepath.Join(snapDir, "test_minidump_stackwalk__"+snap.name+".snap"))
			args := make([]string, len(snap.args))
			for i, a := range snap.args {
				switch {
				case strings.HasPrefix(a, "--symbols-path="):
					args[i] = "--symbols-path=" + filepath.Join(testdata, strings.TrimPrefix(a, "--symbols-path="))
				case strings.HasPrefix(a, "-"):
					args[i] = a
				case i > 0 && snap.args[i-1] == "--features":
					args[i] = a
				case i > 0 && snap.args[i-1] == "--evil-json":
					args[i] = filepath.Join(testdata, a)
				default:
					args[i] = filepath.Join(testdata, a)
				}
			}
			var stdout, stderr bytes.Buffer
			if status := run(args, &stdout, &stderr); status != exitOK {
				t.Errorf("exit status %d; stderr:\n%s", status, stderr.String())
			}
			ours := parseFlat(t, "our output", stdout.Bytes())
			theirs := parseFlat(t, "rust-minidump's snapshot", want)

			paths := map[string]bool{}
			for p := range ours {
				paths[p] = true
			}
			for p := range theirs {
				paths[p] = true
			}
			sorted := make([]string, 0, len(paths))
			for p := range paths {
				sorted = append(sorted, p)
			}
			sort.Strings(sorted)

			equal, excused := 0, map[string]int{}
			callSite := callSiteChecked(t, args) // see callsite_test.go
			for _, p := range sorted {
				o, inOurs := ours[p]
				th, inTheirs := theirs[p]
				if inOurs && inTheirs && o == th {
					equal++
					continue
				}
				rule := matchDifference(snap.name, p)
				if rule != nil {
					excused[rule.reason]++
					continue
				}
				if callSite && callSiteFramePath.MatchString(p) {
					excused["scanned words no call precedes are skipped (callsite_test.go); rust-minidump takes them"]++
					continue
				}
				if !inOurs {
					o = "(absent)"
				}
				if !inTheirs {
					th = "(absent)"
				}
				t.Errorf("%s: ours %s, rust-minidump %s", p, o, th)
			}
			t.Logf("%s: %d/%d fields equal (%.1f%%)", snap.name, equal, len(sorted), 100*float64(equal)/float64(len(sorted)))
			for reason, n := range excused {
				t.Logf("  %d fields differ on purpose: %s", n, reason)
			}
			// Key order and layout: the pretty output is byte-identical
			// when there is no difference at all.
			if equal == len(sorted) && !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("same fields but different text layout")
			}
		})
	}
}

// callSiteFramePath matches the frame fields a call-site check changes.
var callSiteFramePath = regexp.MustCompile(`^(threads\[\d+\]|crashing_thread)\.(frames\[|frame_count$)`)

func matchDifference(snapshot, path string) *deliberateDifference {
	for i := range deliberateDifferences {
		d := &deliberateDifferences[i]
		if (d.snapshot == "" || d.snapshot == snapshot) && d.path.MatchString(path) {
			return d
		}
	}
	return nil
}

// TestJSONEveryDump runs --json on every dump (minidumps and Android
// microdumps) of the shared corpus and of testdata/: the output must be valid
// JSON in the schema's shape and list every thread of the dump's thread
// list, whatever the dump's state.
func TestJSONEveryDump(t *testing.T) {
	var dumps []string
	shared := corpus.Shared(t, "corpus")
	filepath.WalkDir(shared, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".dmp") {
			dumps = append(dumps, p)
		}
		return nil
	})
	own, _ := filepath.Glob(corpus.Testdata(t, "dumps", "*.dmp"))
	dumps = append(dumps, own...)
	if len(dumps) < 90 {
		t.Fatalf("found only %d dumps", len(dumps))
	}
	for _, path := range dumps {
		name := strings.TrimPrefix(path, filepath.Dir(shared)+"/")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			status := run([]string{"--json", path}, &stdout, &stderr)
			var doc struct {
				Status      *string `json:"status"`
				ThreadCount *int    `json:"thread_count"`
				Threads     []struct {
					ThreadID   uint32            `json:"thread_id"`
					FrameCount int               `json:"frame_count"`
					Frames     []json.RawMessage `json:"frames"`
				} `json:"threads"`
				Modules    []json.RawMessage `json:"modules"`
				SystemInfo *json.RawMessage  `json:"system_info"`
				CrashInfo  *json.RawMessage  `json:"crash_info"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
				t.Fatalf("exit %d, invalid JSON (%v); stderr: %s", status, err, stderr.String())
			}
			if doc.Status == nil || doc.SystemInfo == nil || doc.CrashInfo == nil || doc.ThreadCount == nil {
				t.Fatalf("missing status, system_info, crash_info or thread_count")
			}
			if *doc.ThreadCount != len(doc.Threads) {
				t.Errorf("thread_count %d, %d threads listed", *doc.ThreadCount, len(doc.Threads))
			}
			for i, th := range doc.Threads {
				if th.FrameCount != len(th.Frames) {
					t.Errorf("thread %d: frame_count %d, %d frames", i, th.FrameCount, len(th.Frames))
				}
			}
			if strings.Contains(path, "/microdumps/") {
				// An Android microdump holds one thread; without a usable
				// context (MIPS: no walker, as in Breakpad) processing fails.
				switch {
				case *doc.Status == "OK" && status == exitOK && len(doc.Threads) == 1:
				case *doc.Status == "ERROR_GETTING_THREAD" && status == exitDump:
				default:
					t.Errorf("microdump: status %q, exit %d, %d threads", *doc.Status, status, len(doc.Threads))
				}
				return
			}
			f, err := minidump.Open(path)
			if err != nil {
				if status != exitDump || *doc.Status == "OK" {
					t.Errorf("unreadable dump (%v): exit status %d, JSON status %q", err, status, *doc.Status)
				}
				return
			}
			defer f.Close()
			threads, _ := f.Threads()
			if len(threads) != len(doc.Threads) {
				t.Fatalf("%d threads in the dump, %d in the JSON", len(threads), len(doc.Threads))
			}
			for i := range threads {
				if threads[i].ID != doc.Threads[i].ThreadID {
					t.Errorf("thread %d: id %#x in the dump, %#x in the JSON", i, threads[i].ID, doc.Threads[i].ThreadID)
				}
			}
		})
	}
}
