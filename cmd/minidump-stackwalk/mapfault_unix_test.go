//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/pflag"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/summary"
	"github.com/minidump-stackwalk/minidump-stackwalk/triage/symcache"
)

// TestTruncatedDumpSingleMode: the dump is truncated after it was mapped
// (by the symbol server's handler, asked during processing): exit status
// 1 and an error naming the dump, not a SIGBUS (issue 26, item 1).
func TestTruncatedDumpSingleMode(t *testing.T) {
	dump := filepath.Join(corpus.CopyTestdata(t, "dumps"), "amd64-fp.dmp")
	corpus.GrowPastReadWhole(t, dump)
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { os.Truncate(dump, 0) })
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	status := run([]string{"--symbols-url", srv.URL, "--symbols-cache", t.TempDir(), "-s", dump}, &stdout, &stderr)
	if status != exitDump {
		t.Errorf("status %d, want %d", status, exitDump)
	}
	if !strings.Contains(stderr.String(), dump+": memory-mapped file changed") {
		t.Errorf("stderr does not name the truncated dump:\n%s", stderr.String())
	}
}

// truncateFirst truncates path on the first request for symbols: the dump
// is mapped by then.
type truncateFirst struct {
	symfile.Supplier
	path string
	once sync.Once
}

func (s *truncateFirst) Symbols(m symfile.ModuleKey) (*symfile.File, error) {
	s.once.Do(func() { os.Truncate(s.path, 0) })
	return s.Supplier.Symbols(m)
}

// TestTruncatedFilesBatch: in batch, a .sym truncated while the symbol
// cache holds it mapped and a dump truncated while it is processed fail
// their dumps with an error naming the file; the others are processed, a
// later dump loads the .sym again, and the summary is written (issue 26,
// item 1).
func TestTruncatedFilesBatch(t *testing.T) {
	dumps, syms := corpus.CopyTestdata(t, "dumps"), corpus.CopyTestdata(t, "symbols")
	fp := filepath.Join(dumps, "amd64-fp.dmp")
	sym := filepath.Join(syms, "crashdemo", "D83F6001E70265BE29AD592DD70C2F4F0", "crashdemo.sym") // amd64-fp's
	inputs := []string{fp, fp + ".copy", fp + ".copy2", filepath.Join(dumps, "amd64-leaf.dmp"), filepath.Join(dumps, "amd64-nofp.dmp")}
	data, err := os.ReadFile(fp)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range inputs[1:3] {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	corpus.GrowPastReadWhole(t, inputs[3]) // mapped, so that truncating it faults
	summaryFile := filepath.Join(t.TempDir(), "summary.json")
	var stderr, out bytes.Buffer
	b := &batchFlags{}
	fs := pflag.NewFlagSet("batch", pflag.ContinueOnError)
	b.addFlags(fs)
	if err := fs.Parse([]string{"-j", "1", "--progress", "never", "--summary", summaryFile, "--symbols-path", syms}); err != nil {
		t.Fatal(err)
	}
	if err := b.check(&stderr); err != nil {
		t.Fatal(err)
	}
	r := &batchRun{flags: b, builder: summary.NewBuilder(b.examples), stderr: &stderr, out: &out}
	r.cache = symcache.NewContext(newSymbolLoader(&b.o, &stderr), b.cacheBytes)
	r.process = func(o *options, path string, sup symfile.Supplier, w io.Writer) triage.Result {
		switch path {
		case inputs[1]: // amd64-fp's .sym is cached, mapped: truncate it
			if err := os.Truncate(sym, 0); err != nil {
				t.Error(err)
			}
		case inputs[3]:
			sup = &truncateFirst{Supplier: sup, path: path}
		}
		return processBatchInput(o, path, sup, w)
	}
	if status := r.run(inputs); status != exitDump {
		t.Errorf("status %d, want 1", status)
	}
	var results []triage.Result
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var res triage.Result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			t.Fatalf("%v: %q", err, line)
		}
		results = append(results, res)
	}
	got := byPath(results)
	faulted := map[string]string{inputs[1]: sym, inputs[3]: inputs[3]}
	for _, p := range inputs {
		res := got[p]
		if file, ok := faulted[p]; ok {
			if res.Status != triage.StatusUnreadable || !strings.HasPrefix(res.Error, file+": memory-mapped file changed") {
				t.Errorf("%s: %s %q, want unreadable, naming %s", p, res.Status, res.Error, file)
			}
			continue
		}
		if res.Status != triage.StatusOK {
			t.Errorf("%s: %s %q, want ok", p, res.Status, res.Error)
		}
	}
	if s := readSummary(t, summaryFile); s.Inputs != len(inputs) {
		t.Errorf("summary of %d inputs, want %d", s.Inputs, len(inputs))
	}
}
