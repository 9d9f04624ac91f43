package symfile

import (
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repoSymFiles lists the symbol files under testdata/symbols.
func repoSymFiles(t testing.TB) []string {
	var out []string
	filepath.WalkDir("../testdata/symbols", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".sym") || isCompressed(p)) {
			out = append(out, p)
		}
		return nil
	})
	if len(out) == 0 {
		t.Fatal("no symbol files under testdata/symbols")
	}
	return out
}

// failOnWarn is an IndexDir warning function that fails the test.
func failOnWarn(t *testing.T) func(error) {
	return func(err error) { t.Errorf("warning: %v", err) }
}

// openTwice opens p through a fresh index directory twice: the first open
// builds the index, the second must map it.
func openTwice(t *testing.T, p string) (built, mapped *File) {
	t.Helper()
	d := NewIndexDir(t.TempDir(), failOnWarn(t))
	built, _ = d.Open(p)
	if built == nil || built.origin != fromBuild {
		t.Fatalf("%s: first open through the index: %+v, want a built index", p, built)
	}
	mapped, _ = d.Open(p)
	if mapped == nil || mapped.origin != fromIndex {
		t.Fatalf("%s: second open through the index did not map it", p)
	}
	return built, mapped
}

// TestIndexEqualsMemory is the differential test: for every symbol file in
// the corpus and in testdata, the File mapped from its on-disk index holds
// the same index and answers every lookup as the File indexed in memory.
func TestIndexEqualsMemory(t *testing.T) {
	files := append(repoSymFiles(t), corpusSymFiles(t)...)
	for _, p := range files {
		t.Run(strings.ReplaceAll(p, "/", "_"), func(t *testing.T) {
			ref, refErr := Open(p)
			if ref == nil {
				t.Skipf("%s does not open: %v", p, refErr)
			}
			defer ref.Close()
			built, mapped := openTwice(t, p)
			defer built.Close()
			defer mapped.Close()
			if mapped.Err() == nil != (refErr == nil) || (refErr != nil && mapped.Err().Error() != refErr.Error()) {
				t.Errorf("Err() = %v, in memory %v", mapped.Err(), refErr)
			}
			sameFile(t, ref, mapped)
		})
	}
}

// sameFile compares what two Files of one symbol file know and answer.
func sameFile(t *testing.T, want, got *File) {
	t.Helper()
	type snapshot struct {
		Module  ModuleLine
		CodeID  string
		Errors  []string
		Limit   uint64
		Funcs   []funcEntry
		Pubs    []pubEntry
		CFI     []rangeEntry
		Win     []winEntry
		WinType []uint8
		Files   []idEntry
		Origins []idEntry
		Info    []uint64
	}
	snap := func(f *File) snapshot {
		var errs []string
		for _, e := range f.Errors() {
			errs = append(errs, e.Error())
		}
		return snapshot{f.Module(), f.CodeID(), errs, f.limit, f.funcs, f.pubs, f.cfi, f.win, f.winType, f.files, f.origins, f.info}
	}
	opt := cmp.AllowUnexported(funcEntry{}, pubEntry{}, rangeEntry{}, winEntry{}, idEntry{})
	if d := cmp.Diff(snap(want), snap(got), opt, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("index differs (-memory +mapped):\n%s", d)
	}
	for _, key := range []string{"CODE_ID", "GENERATOR", "URL"} {
		v1, ok1 := want.Info(key)
		v2, ok2 := got.Info(key)
		if v1 != v2 || ok1 != ok2 {
			t.Errorf("Info(%s) = %q %v, in memory %q %v", key, v2, ok2, v1, ok1)
		}
	}
	for _, a := range probeAddrs(want) {
		s1, ok1 := want.Lookup(a)
		s2, ok2 := got.Lookup(a)
		if ok1 != ok2 || !cmp.Equal(s1, s2) {
			t.Fatalf("Lookup(%#x) = %+v %v, in memory %+v %v", a, s2, ok2, s1, ok1)
		}
		r1, ok1 := want.CFIRules(a)
		r2, ok2 := got.CFIRules(a)
		if ok1 != ok2 || !cmp.Equal(r1, r2) {
			t.Fatalf("CFIRules(%#x) = %+v %v, in memory %+v %v", a, r2, ok2, r1, ok1)
		}
		w1, ok1 := want.StackWin(a)
		w2, ok2 := got.StackWin(a)
		if ok1 != ok2 || !cmp.Equal(w1, w2) {
			t.Fatalf("StackWin(%#x) = %+v %v, in memory %+v %v", a, w2, ok2, w1, ok1)
		}
		if want.HasFunctionAt(a) != got.HasFunctionAt(a) {
			t.Fatalf("HasFunctionAt(%#x) differs", a)
		}
	}
}

// probeAddrs lists the addresses a differential test asks about: the
// bounds and middle of every range the file indexes (capped, with a random
// sample beyond the cap), and random addresses.
func probeAddrs(f *File) []uint64 {
	var out []uint64
	add := func(lo, hi uint64) {
		out = append(out, lo, hi, lo+(hi-lo)/2, hi+1)
		if lo > 0 {
			out = append(out, lo-1)
		}
	}
	for _, e := range f.funcs {
		add(e.base, e.high)
	}
	for _, e := range f.pubs {
		add(e.addr, e.addr)
	}
	for _, e := range f.cfi {
		add(e.base, e.high)
	}
	for _, e := range f.win {
		if e.size > 0 {
			add(e.addr, e.addr+e.size-1)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const maxProbes = 20000
	if len(out) > maxProbes {
		rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		out = out[:maxProbes]
	}
	for range 200 {
		out = append(out, rng.Uint64N(1<<32))
	}
	slices.Sort(out)
	return slices.Compact(out)
}
