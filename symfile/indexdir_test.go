package symfile

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// repoSymFiles lists the symbol files under testdata/symbols.
func repoSymFiles(t testing.TB) []string {
	var out []string
	filepath.WalkDir("../testdata/symbols", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".sym") || compressedName(p)) {
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
	d := testIndexDir(t.TempDir(), failOnWarn(t))
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
			ref, refErr := testOpen(p)
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
		return snapshot{f.Module(), f.CodeID(), errs, f.limit, f.funcs.all(), f.pubs.all(), f.cfi.all(), f.win, f.winType, f.files, f.origins, f.info}
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
	for _, e := range f.funcs.all() {
		add(e.base, e.high)
	}
	for _, e := range f.pubs.all() {
		add(e.addr, e.addr)
	}
	for _, e := range f.cfi.all() {
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

// writeSym writes text as a symbol file in dir and returns its path.
func writeSym(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func onlyIndex(t *testing.T, dir string) string {
	t.Helper()
	idx, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("index files in %s: %v, want one", dir, idx)
	}
	return idx[0]
}

// TestIndexStale: a symbol file changed after its index was made (same
// size, so only the modification time and hash tell) gets a new index, and
// lookups answer from the new content.
func TestIndexStale(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	p := writeSym(t, syms, "m.sym", "MODULE Linux x86_64 ID m\nFUNC 10 10 0 aaaa\n")
	d := testIndexDir(idxDir, failOnWarn(t))
	f, _ := d.Open(p)
	f.Close()
	writeSym(t, syms, "m.sym", "MODULE Linux x86_64 ID m\nFUNC 10 10 0 bbbb\n")
	os.Chtimes(p, time.Time{}, time.Now().Add(time.Hour))
	f, _ = d.Open(p)
	if f.origin != fromBuild {
		t.Errorf("changed file: origin %d, want a rebuilt index", f.origin)
	}
	if s, _ := f.Lookup(0x12); s.Name != "bbbb" {
		t.Errorf("Lookup after the change = %q, want bbbb", s.Name)
	}
	f.Close()
	f, _ = d.Open(p)
	if s, _ := f.Lookup(0x12); f.origin != fromIndex || s.Name != "bbbb" {
		t.Errorf("third open: origin %d, name %q; want the new index, bbbb", f.origin, s.Name)
	}
}

// TestIndexCorrupt damages an index in several ways; each is detected,
// reported, and the index rebuilt.
func TestIndexCorrupt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(b []byte) []byte
		warns  bool
	}{
		{"flipped byte", func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }, true},
		{"truncated", func(b []byte) []byte { return b[:len(b)-9] }, true},
		{"empty", func(b []byte) []byte { return nil }, true},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }, true},
		{"other version", func(b []byte) []byte { b[8]++; return b }, false},
		{"other byte order", func(b []byte) []byte { b[12], b[15] = b[15], b[12]; return b }, true},
		{"forged offset, CRC fixed", func(b []byte) []byte {
			h, _ := parseIndexHeader(b, uint64(len(b)))
			binary.LittleEndian.PutUint32(b[h.sections[secFuncs32][0]+16:], 1<<31) // funcs.narrow[0].off
			fixCRC(b)
			return b
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			syms, idxDir := t.TempDir(), t.TempDir()
			p := writeSym(t, syms, "m.sym", fuzzSym)
			var warnings []error
			d := testIndexDir(idxDir, func(err error) { warnings = append(warnings, err) })
			ref, _ := d.Open(p)
			ip := onlyIndex(t, idxDir)
			b, _ := os.ReadFile(ip)
			if err := os.WriteFile(ip, tc.damage(b), 0o600); err != nil {
				t.Fatal(err)
			}
			f, _ := d.Open(p)
			if f.origin != fromBuild {
				t.Fatalf("damaged index: origin %d, want rebuilt", f.origin)
			}
			if got := len(warnings) == 1; got != tc.warns {
				t.Errorf("warnings %v, want a warning: %v", warnings, tc.warns)
			}
			sameFile(t, ref, f)
			if g, _ := d.Open(p); g.origin != fromIndex {
				t.Errorf("after the rebuild: origin %d, want the index", g.origin)
			}
		})
	}
}

// TestIndexForeign: an index copied to the name of another file's index is
// refused (it names its own source), and rebuilt.
func TestIndexForeign(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	a := writeSym(t, syms, "a.sym", fuzzSym)
	b := writeSym(t, syms, "b.sym", fuzzSym)
	os.Chtimes(b, time.Time{}, time.Unix(1e9, 0))
	os.Chtimes(a, time.Time{}, time.Unix(1e9, 0)) // same identity
	var warnings []error
	d := testIndexDir(idxDir, func(err error) { warnings = append(warnings, err) })
	d.Open(a)
	ia := onlyIndex(t, idxDir)
	absB, _ := filepath.Abs(b)
	ib := filepath.Join(idxDir, indexKey(absB)+".idx")
	content, _ := os.ReadFile(ia)
	os.WriteFile(ib, content, 0o600)
	fb, _ := d.Open(b)
	// Where the system gives a change stamp, the identities differ by
	// their inodes and the index is only stale (rebuilt silently);
	// elsewhere the source path it names refuses it, with a warning.
	foreign := len(warnings) == 1 && strings.Contains(warnings[0].Error(), "foreign")
	if fb.origin != fromBuild || !(foreign || len(warnings) == 0 && changeStamp(statOf(t, b)) != nil) {
		t.Errorf("foreign index: origin %d, warnings %v; want rebuilt, with a warning unless stale", fb.origin, warnings)
	}
	ref, _ := testOpen(b)
	sameFile(t, ref, fb)
}

// TestIndexUnwritable: when the index directory cannot be made, files are
// indexed in memory and the warning comes once.
func TestIndexUnwritable(t *testing.T) {
	syms := t.TempDir()
	blocker := writeSym(t, syms, "not-a-dir", "")
	var warnings []error
	d := testIndexDir(filepath.Join(blocker, "index"), func(err error) { warnings = append(warnings, err) })
	for _, name := range []string{"a.sym", "b.sym"} {
		f, _ := d.Open(writeSym(t, syms, name, fuzzSym))
		if f == nil || f.origin != fromMemory {
			t.Fatalf("%s: %+v, want indexed in memory", name, f)
		}
	}
	if len(warnings) != 1 {
		t.Errorf("warnings %v, want one", warnings)
	}
}

// TestIndexConcurrentBuilders: several builders (separate IndexDirs, as
// separate processes would be) race to index the same file; every one gets
// a correct File and the index left behind is whole.
func TestIndexConcurrentBuilders(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	p := writeSym(t, syms, "m.sym", fuzzSym)
	ref, _ := testOpen(p)
	var wg sync.WaitGroup
	files := make([]*File, 8)
	for i := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files[i], _ = testIndexDir(idxDir, failOnWarn(t)).Open(p)
		}()
	}
	wg.Wait()
	for _, f := range files {
		sameFile(t, ref, f)
	}
	f, _ := testIndexDir(idxDir, failOnWarn(t)).Open(p)
	if f.origin != fromIndex {
		t.Errorf("after the race: origin %d, want the index", f.origin)
	}
	sameFile(t, ref, f)
	if left, _ := filepath.Glob(filepath.Join(idxDir, "*.tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestIndexOldTemps: a temporary file left by a builder that died is
// removed when the directory is next written; a recent one (a builder at
// work) is kept.
func TestIndexOldTemps(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	old := writeSym(t, idxDir, "x.idx.tmp123", "partial")
	os.Chtimes(old, time.Time{}, time.Now().Add(-2*oldTemp))
	recent := writeSym(t, idxDir, "y.idx.tmp456", "partial")
	testIndexDir(idxDir, failOnWarn(t)).Open(writeSym(t, syms, "m.sym", fuzzSym))
	if _, err := os.Stat(old); err == nil {
		t.Errorf("%s was kept", old)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("%s was removed: %v", recent, err)
	}
}

// TestIndexCompressed: a .sym.gz is served from a decompressed copy; after
// the source changes, the old copy is removed.
func TestIndexCompressed(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	p := filepath.Join(syms, "m.sym.gz")
	writeGz := func(text string) {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(text))
		zw.Close()
		os.WriteFile(p, b.Bytes(), 0o644)
	}
	writeGz(fuzzSym)
	ref, _ := NewFile([]byte(fuzzSym), p)
	d := testIndexDir(idxDir, failOnWarn(t))
	for want := range []int{fromBuild, fromIndex} {
		f, _ := d.Open(p)
		if f.origin != []int{fromBuild, fromIndex}[want] {
			t.Errorf("open %d: origin %d", want, f.origin)
		}
		sameFile(t, ref, f)
	}
	writeGz(strings.Replace(fuzzSym, "FUNC 10 20 0 f", "FUNC 10 20 0 renamed", 1))
	os.Chtimes(p, time.Time{}, time.Now().Add(time.Hour))
	f, _ := d.Open(p)
	if s, _ := f.Lookup(0x12); f.origin != fromBuild || s.Name != "renamed" {
		t.Errorf("changed .gz: origin %d, name %q", f.origin, s.Name)
	}
	if copies, _ := filepath.Glob(filepath.Join(idxDir, "*.sym")); len(copies) != 1 {
		t.Errorf("decompressed copies %v, want one", copies)
	}
}

// TestIndexedSuppliers: a DirSupplier made with NewIndexedDirSupplier
// opens its files through the index: a second supplier (as a later
// process) maps what the first built. (symsrv tests the same of a symbol
// server's cache.)
func TestIndexedSuppliers(t *testing.T) {
	cache, idxDir := t.TempDir(), t.TempDir()
	key := ModuleKey{DebugFile: "app.pdb", DebugID: "ABC1"}
	writeFile(t, filepath.Join(cache, "app.pdb", "ABC1", "app.sym"), []byte("MODULE windows x86 ABC1 app.pdb\nFUNC 1000 10 0 app.pdb_fn\n"))
	for run, want := range []int{fromBuild, fromIndex} {
		s := NewIndexedDirSupplier(testIndexDir(idxDir, failOnWarn(t)), cache)
		f, err := s.Symbols(key)
		if sym, ok := f.Lookup(0x1000); err != nil || !ok || sym.Name != "app.pdb_fn" || f.origin != want {
			t.Errorf("directory run %d: err %v, origin %d, want %d", run, err, f.origin, want)
		}
	}
	s := NewIndexedDirSupplier(nil, cache)
	if f, err := s.Symbols(key); err != nil || f.origin != fromMemory {
		t.Errorf("no index: err %v, origin %d", err, f.origin)
	}
}

// TestIndexETag: an index keyed to a server's ETag is used for that ETag
// only; an index keyed by content does not stand for it, nor the reverse.
func TestIndexETag(t *testing.T) {
	syms, idxDir := t.TempDir(), t.TempDir()
	p := writeSym(t, syms, "m.sym", "MODULE Linux x86_64 ID m\nFUNC 10 10 0 aaaa\nPUBLIC 30 0 pub\n")
	d := testIndexDir(idxDir, failOnWarn(t))
	steps := []struct {
		etag string
		want int
	}{
		{`"v1"`, fromBuild}, {`"v1"`, fromIndex}, {`W/"v2"`, fromBuild}, {`W/"v2"`, fromIndex},
		{"", fromBuild}, {"", fromIndex}, {`"v1"`, fromBuild},
	}
	for i, s := range steps {
		f, err := d.OpenETag(p, s.etag)
		if err != nil || f.origin != s.want {
			t.Fatalf("step %d, ETag %q: origin %d, error %v; want origin %d", i, s.etag, f.origin, err, s.want)
		}
		if sym, ok := f.Lookup(0x12); !ok || sym.Name != "aaaa" {
			t.Errorf("step %d: Lookup(0x12) = %+v, %v", i, sym, ok)
		}
		f.Close()
	}
}

// TestIndexAdopt: the index of a File made in memory, adopted for the
// file holding the same bytes, is what the next Open maps, and it answers
// as the File did.
func TestIndexAdopt(t *testing.T) {
	for _, p := range repoSymFiles(t) {
		if compressedName(p) {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		mem, _ := NewFile(data, p)
		for _, etag := range []string{"", `"abc"`} {
			d := testIndexDir(t.TempDir(), failOnWarn(t))
			if err := d.Adopt(mem, p, etag); err != nil {
				t.Fatalf("%s: Adopt: %v", p, err)
			}
			f, _ := d.OpenETag(p, etag)
			if f == nil || f.origin != fromIndex {
				t.Fatalf("%s, ETag %q: Open after Adopt did not map the adopted index", p, etag)
			}
			sameFile(t, mem, f)
			f.Close()
		}
	}
	d := testIndexDir(t.TempDir(), failOnWarn(t))
	other := writeSym(t, t.TempDir(), "o.sym", "MODULE Linux x86_64 ID o\n")
	mem, _ := NewFile([]byte("MODULE Linux x86_64 ID m\nFUNC 10 10 0 f\n"), "m")
	if err := d.Adopt(mem, other, ""); err == nil {
		t.Error("Adopt of a File of another size succeeded")
	}
}

func statOf(t *testing.T, path string) os.FileInfo {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
