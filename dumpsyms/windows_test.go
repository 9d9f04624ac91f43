package dumpsyms

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/fuzzbudget"
	"github.com/minidump-stackwalk/minidump-stackwalk/pdb"
	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
)

func symbolicDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", "symbolic")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared/corpus/symbolic is absent")
	}
	return dir
}

// writeCorpusPDB writes the .sym of ../shared's name.pdb with name.exe.
func writeCorpusPDB(t *testing.T, name string, opts Options) string {
	t.Helper()
	dir := filepath.Join(symbolicDir(t), "windows")
	pf, err := pdb.OpenFile(filepath.Join(dir, name+".pdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	img, err := pe.Open(filepath.Join(dir, name+".exe"))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	var b bytes.Buffer
	in := PDBInput{PDB: pf, PDBPath: filepath.Join(dir, name+".pdb"), Image: img, ImageExe: filepath.Join(dir, name+".exe")}
	if err := WritePDB(&b, in, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// pdbSymRecords splits a .sym into its record kinds, line records written
// with their file's name instead of its id.
func pdbSymRecords(sym string) map[string][]string {
	files := map[string]string{}
	out := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(sym), "\n") {
		f := strings.Fields(l)
		switch {
		case f[0] == "FILE":
			files[f[1]] = strings.SplitN(l, " ", 3)[2]
			out["FILE"] = append(out["FILE"], files[f[1]])
		case f[0] == "STACK":
			out["STACK "+f[1]] = append(out["STACK "+f[1]], l)
		case len(f) == 4 && !slices.Contains([]string{"MODULE", "INFO", "FUNC", "PUBLIC", "INLINE", "INLINE_ORIGIN"}, f[0]):
			out["line"] = append(out["line"], fmt.Sprintf("%s %s %s %s", f[0], f[1], f[2], files[f[3]]))
		default:
			out[f[0]] = append(out[f[0]], l)
		}
	}
	return out
}

// TestCrashSymRecords compares the .sym of crash.pdb + crash.exe with the
// one Breakpad's Windows dump_syms (DIA) wrote of them, record for record.
// The differences, each checked here:
//   - FILE ids: Breakpad numbers files with DIA's internal unique ids; we
//     number them 1.. in module order. The same names are written, and line
//     records are compared by their file's name.
//   - zero-length lines: crash.sym has 35 line records of length 0 (two
//     C13 lines at one address); Breakpad's dump_syms has since dropped
//     them ("Silently ignore zero-length lines"), as we do.
//
// Everything else (MODULE, INFO, every FUNC with its size, stack parameter
// size, name, argument list and 'm' flag, PUBLIC, STACK WIN, and the other
// line records) is identical.
func TestCrashSymRecords(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(symbolicDir(t), "windows", "crash.sym"))
	if err != nil {
		t.Fatal(err)
	}
	got := pdbSymRecords(writeCorpusPDB(t, "crash", Options{}))
	ref := pdbSymRecords(string(want))
	var zero []string
	for _, l := range ref["line"] {
		if strings.Fields(l)[1] == "0" {
			zero = append(zero, l)
		}
	}
	if len(zero) != 35 {
		t.Errorf("crash.sym has %d zero-length lines, not the 35 this test explains", len(zero))
	}
	ref["line"] = slices.DeleteFunc(ref["line"], func(l string) bool { return strings.Fields(l)[1] == "0" })
	for _, kind := range []string{"MODULE", "INFO", "FILE", "FUNC", "line", "PUBLIC", "STACK WIN"} {
		g, w := got[kind], ref[kind]
		if kind == "FILE" || kind == "line" {
			slices.Sort(g)
			slices.Sort(w)
		}
		if len(w) == 0 {
			t.Fatalf("crash.sym has no %s records", kind)
		}
		if !slices.Equal(g, w) {
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Errorf("%s record %d:\n got %s\nwant %s", kind, i, g[i], w[i])
					break
				}
			}
			t.Errorf("%s: %d records, crash.sym %d", kind, len(g), len(w))
		}
	}
	for kind := range got {
		if _, ok := ref[kind]; !ok {
			t.Errorf("we write %s records, crash.sym has none", kind)
		}
	}
}

// TestCrashStackWinSnapshot compares the STACK WIN records with symbolic's
// snapshot of what it derives from crash.pdb. Symbolic leaves out the two
// FPO_DATA (type 0) records, whose functions (0x2dc4, 0x30fc) also have
// FrameData (type 4) records; Breakpad writes both, as we do, and its
// walker prefers the FrameData.
func TestCrashStackWinSnapshot(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join(symbolicDir(t), "snapshots", "test_cfi__cfi_pdb_windows.snap"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(string(snap), "\n") {
		if strings.HasPrefix(l, "STACK WIN") {
			want = append(want, l)
		}
	}
	got := pdbSymRecords(writeCorpusPDB(t, "crash", Options{}))["STACK WIN"]
	var type0 []string
	got = slices.DeleteFunc(got, func(l string) bool {
		if strings.HasPrefix(l, "STACK WIN 0 ") {
			type0 = append(type0, l)
			return true
		}
		return false
	})
	if len(want) != 152 || !slices.Equal(got, want) {
		t.Errorf("STACK WIN type 4: %d records, snapshot %d; equal: %v", len(got), len(want), slices.Equal(got, want))
	}
	for _, l := range type0 {
		rva := strings.Fields(l)[3]
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Fields(g)[3] == rva }) {
			t.Errorf("FPO record without FrameData at its address: %s", l)
		}
	}
	if len(type0) != 2 {
		t.Errorf("%d type 0 records, want crash.pdb's 2", len(type0))
	}
}

// TestCrashInlines checks the INLINE records against llvm-pdbutil's
// reading of one inline site: RequestDump (0x1000) inlines IsRegistered
// at 0x1011 for 4 bytes (annotations "code 0x11 ... code end 0x15"),
// called from crash_generation_client.cc line 324 (the C13 line at
// 0x1011).
func TestCrashInlines(t *testing.T) {
	recs := pdbSymRecords(writeCorpusPDB(t, "crash", Options{Inlines: true}))
	origins := map[string]string{}
	for _, l := range recs["INLINE_ORIGIN"] {
		f := strings.SplitN(l, " ", 3)
		origins[f[1]] = f[2]
	}
	found := false
	for _, l := range recs["INLINE"] {
		f := strings.Fields(l)
		if origins[f[4]] == "google_breakpad::CrashGenerationClient::IsRegistered" && f[5] == "1011" {
			found = f[1] == "0" && f[2] == "324" && f[6] == "4"
		}
	}
	if !found {
		t.Errorf("no INLINE 0 324 <file> <IsRegistered> 1011 4 among %d INLINE records", len(recs["INLINE"]))
	}
}

// TestCrashWithExceptionCFI compares the x64 STACK CFI records of
// CrashWithException.exe (with its PDB) with symbolic's snapshot of what
// it derives from the image's .pdata/.xdata: the same 41 functions, CFA,
// return address and saved registers (the rules' order aside). With
// BreakpadCompat the register rules are left out, as Breakpad's Windows
// dump_syms writes only the CFA and the return address.
func TestCrashWithExceptionCFI(t *testing.T) {
	snap, err := os.ReadFile(filepath.Join(symbolicDir(t), "snapshots", "test_cfi__cfi_pe_windows.snap"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(l string, rules bool) string {
		f := strings.Fields(l)
		head := strings.Join(f[:5], " ")
		var rs []string
		for i := 5; i < len(f); {
			j := i + 1
			for j < len(f) && !strings.HasSuffix(f[j], ":") {
				j++
			}
			if rules || f[i] == ".cfa:" || f[i] == ".ra:" {
				rs = append(rs, strings.Join(f[i:j], " "))
			}
			i = j
		}
		slices.Sort(rs)
		return head + " " + strings.Join(rs, " ")
	}
	var want []string
	for _, l := range strings.Split(string(snap), "\n") {
		if strings.HasPrefix(l, "STACK CFI INIT") {
			want = append(want, l)
		}
	}
	for _, compat := range []bool{false, true} {
		got := pdbSymRecords(writeCorpusPDB(t, "CrashWithException", Options{BreakpadCompat: compat}))["STACK CFI"]
		if len(got) != len(want) || len(want) != 41 {
			t.Fatalf("compat %v: %d records, snapshot %d", compat, len(got), len(want))
		}
		for i := range got {
			if norm(got[i], true) != norm(want[i], !compat) {
				t.Errorf("compat %v:\n got %s\nwant %s", compat, got[i], want[i])
			}
		}
	}
}

// FuzzWritePDB writes the .sym of hostile PDBs, seeded with lld's small
// x86 and x64 PDBs (pdb/testdata/lld), within fuzzbudget's bounds.
func FuzzWritePDB(f *testing.F) {
	for _, name := range []string{"a-i686.pdb", "a-x86_64.pdb"} {
		f.Add(corpus.ReadZstd(f, "../pdb/testdata/lld/"+name+".zst"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzbudget.Default.Run(t, func() {
			pf, err := pdb.NewFile(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				return
			}
			WritePDB(io.Discard, PDBInput{PDB: pf, PDBPath: "fuzz.pdb"}, Options{Inlines: true})
		})
	})
}
