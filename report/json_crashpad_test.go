package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/oracle"
	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
)

var crashpadDumpLine = regexp.MustCompile(`^  (version|report_id|client_id|simple_annotations\[.*\]|module_list\[\d+\]\.(?:minidump_module_list_index|list_annotations\[\d+\]|simple_annotations\[.*\])) = (.*)$`)

// TestJSONCrashpadInfo compares "crashpad_info" of rust-minidump's
// simple-crashpad.dmp with Breakpad's minidump_dump, which prints the
// MDRawCrashpadInfo stream field by field.
func TestJSONCrashpadInfo(t *testing.T) {
	dumpTool := oracle.Require(t, "minidump_dump")
	path := corpus.Shared(t, "corpus", "rust-minidump", "testdata", "simple-crashpad.dmp")
	out, _ := exec.Command(dumpTool, path).Output() // exits non-zero on streams it cannot print
	var want []string
	in := false
	for _, l := range strings.Split(string(out), "\n") {
		if l == "MDRawCrashpadInfo" {
			in = true
			continue
		}
		if m := crashpadDumpLine.FindStringSubmatch(l); in && m != nil {
			want = append(want, m[1]+" = "+m[2])
		}
	}
	if len(want) < 5 {
		t.Fatalf("minidump_dump printed no Crashpad info:\n%s", out)
	}

	f, err := minidump.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, BuildJSON(processed(t, f), JSONOptions{}), false); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		CrashpadInfo *JSONCrashpadInfo `json:"crashpad_info"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil || doc.CrashpadInfo == nil {
		t.Fatalf("no crashpad_info (%v)", err)
	}
	ci := doc.CrashpadInfo
	got := []string{fmt.Sprintf("version = %d", ci.Version), "report_id = " + ci.ReportID, "client_id = " + ci.ClientID}
	got = append(got, annotationLines("simple_annotations", ci.SimpleAnnotations)...)
	for i, m := range ci.ModuleList {
		p := fmt.Sprintf("module_list[%d].", i)
		got = append(got, fmt.Sprintf("%sminidump_module_list_index = %d", p, m.ModuleIndex))
		for j, a := range m.ListAnnotations {
			got = append(got, fmt.Sprintf("%slist_annotations[%d] = %s", p, j, a))
		}
		got = append(got, annotationLines(p+"simple_annotations", m.SimpleAnnotations)...)
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ours:\n%s\nminidump_dump:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if name := ci.ModuleList[0].Module; name == nil || *name != "libsystem_c.dylib" {
		t.Errorf("module 16 named %v", name)
	}
}

func annotationLines(prefix string, m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s[%q] = %s", prefix, k, v))
	}
	return out
}
