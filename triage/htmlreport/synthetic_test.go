package htmlreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
)

// batchResults reads testdata/batch-results.jsonl: the JSON Lines batch
// printed for the repository's testdata dumps with their symbols (63 real
// crashes), frames cut to 8, "ms" and modules_without_symbols dropped:
//
//	go run ./cmd/minidump-stackwalk batch --symbols-path testdata/symbols testdata/dumps
func batchResults(t *testing.T) []triage.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "batch-results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []triage.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r triage.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil || len(out) < 20 {
		t.Fatalf("%d results: %v", len(out), err)
	}
	return out
}

// Systems the synthetic dumps are spread over.
var (
	syntheticOS  = []string{"Linux", "Windows NT", "Mac OS X", "Android"}
	syntheticCPU = map[string][]string{"Linux": {"amd64", "arm64", "x86", "arm"}, "Windows NT": {"amd64", "x86"},
		"Mac OS X": {"arm64", "amd64"}, "Android": {"arm64", "arm"}}
)

// pluginVariants is how many plugin variants multiply the real signatures.
const pluginVariants = 37

// syntheticSummary summarises n results made from the real ones: result i
// is real result i mod 63, from one of four systems and seven product
// versions, and for i/63 mod 37 = v > 0 crashed in a plugin (module
// libpluginV.so, function plugin_vV::run, a signature of its own) called by
// the real stack. Failed inputs come every 50th. examples are kept per
// group.
func syntheticSummary(t *testing.T, n, examples int) *summary.Summary {
	results := batchResults(t)
	b := summary.NewBuilder(examples)
	for i := range n {
		r := results[i%len(results)]
		sys := syntheticOS[(i/3)%len(syntheticOS)]
		cpus := syntheticCPU[sys]
		r.OS, r.CPU = sys, cpus[(i/7)%len(cpus)]
		r.ProductVersion = fmt.Sprintf("1.%d", (i/11)%7)
		r.Path = fmt.Sprintf("/crashes/%s/%05d-%s", strings.ToLower(strings.ReplaceAll(sys, " ", "-")), i, filepath.Base(r.Path))
		if i%50 == 49 {
			b.Add(&triage.Result{Path: r.Path, Status: triage.StatusInvalid, Error: "no minidump header"})
			continue
		}
		if v := (i / len(results)) % pluginVariants; v > 0 {
			fn := fmt.Sprintf("plugin_v%d::run", v)
			mod := fmt.Sprintf("libplugin%d.so", v)
			r.Frames = append([]triage.Frame{{Module: mod, Function: fn, Offset: "0x40", Trust: "context"}}, r.Frames...)
			r.Modules = append([]triage.Module{{Name: mod, Version: "2.0"}}, r.Modules...)
			r.Signature = fn + " | " + r.Signature
		}
		b.Add(&r)
	}
	return b.Summary()
}
