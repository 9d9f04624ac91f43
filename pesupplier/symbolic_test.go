package pesupplier

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/pe"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
	"github.com/minidump-stackwalk/minidump-stackwalk/walker"
)

const symbolicDir = "../../shared/corpus/symbolic"

func loadModule(t *testing.T, path string) *Module {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("%s absent: %v", path, err)
	}
	img, err := imageBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	exports, _ := img.Exports()
	m, err := newModule(img, path, exports)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var negOff = regexp.MustCompile(`^(\S+) (-?\d+) ([-+]) \^$`)

// normalise writes "X N - ^" (symbolic's form, N possibly negative or 0)
// as ours: "X |N| +/- ^", "X ^" for 0.
func normalise(expr string) string {
	m := negOff.FindStringSubmatch(expr)
	if m == nil {
		return expr
	}
	n, _ := strconv.ParseInt(m[2], 10, 64)
	if m[3] == "-" {
		n = -n
	}
	switch {
	case n == 0:
		return m[1] + " ^"
	case n > 0:
		return fmt.Sprintf("%s %d + ^", m[1], n)
	}
	return fmt.Sprintf("%s %d - ^", m[1], -n)
}

func ruleMap(r symfile.CFIRules) map[string]string {
	out := map[string]string{".cfa": r.CFA, ".ra": normalise(r.RA)}
	for _, x := range r.Rules {
		if x.Register == x.Expr {
			continue // our identity rules for rsi/rdi (Windows non-volatile)
		}
		out[x.Register] = normalise(x.Expr)
	}
	return out
}

// TestSymbolicSnapshot compares, for every RUNTIME_FUNCTION of
// CrashWithException.exe, the rules we derive past the prolog with the
// STACK CFI INIT record Sentry's symbolic derives
// (test_cfi__cfi_pe_windows.snap). Equal after writing symbolic's
// ".cfa N - ^" with N <= 0 as ".cfa -N + ^"; the rsi/rdi identity rules
// we add (Windows keeps them, Breakpad's System V map does not) are left
// out. (SAVE_NONVOL slots such as "$rbx: .cfa ^" are MSVC's saves into
// the caller's home space: the offset counts from the establisher frame,
// rsp after the prolog, as Windows' unwinder reads it.) No other
// difference: all 41 functions agree.
func TestSymbolicSnapshot(t *testing.T) {
	m := loadModule(t, filepath.Join(symbolicDir, "windows/CrashWithException.exe"))
	snap, err := os.ReadFile(filepath.Join(symbolicDir, "snapshots/test_cfi__cfi_pe_windows.snap"))
	if err != nil {
		t.Skip(err)
	}
	want := map[uint32]map[string]string{}
	for _, line := range strings.Split(string(snap), "\n") {
		if !strings.HasPrefix(line, "STACK CFI INIT ") {
			continue
		}
		f := strings.Fields(line)
		addr, _ := strconv.ParseUint(f[3], 16, 32)
		var r symfile.CFIRules
		var reg string
		var expr []string
		flush := func() {
			if reg != "" {
				r.Set(reg, strings.Join(expr, " "))
			}
		}
		for _, tok := range f[5:] {
			if strings.HasSuffix(tok, ":") {
				flush()
				reg, expr = strings.TrimSuffix(tok, ":"), nil
				continue
			}
			expr = append(expr, tok)
		}
		flush()
		want[uint32(addr)] = ruleMap(r)
	}
	if len(want) < 40 {
		t.Fatalf("snapshot has %d records", len(want))
	}
	var addrs []uint32
	for a := range want {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i] < addrs[j] })
	same := 0
	for _, a := range addrs {
		rules, src, ok := m.CFIRules(walker.NativeQuery{Rel: uint64(a) + 1 + uint64(prologSize(t, m, a))})
		if !ok || src != walker.CFIUnwindTables {
			t.Errorf("%#x: no rules", a)
			continue
		}
		got := ruleMap(rules)
		if fmt.Sprint(got) != fmt.Sprint(want[a]) {
			t.Errorf("%#x:\n ours     %v\n symbolic %v", a, got, want[a])
			continue
		}
		same++
	}
	if same != len(addrs) {
		t.Errorf("%d of %d functions equal to symbolic's rules", same, len(addrs))
	}
}

func prologSize(t *testing.T, m *Module, rva uint32) uint8 {
	rf, ok := pe.LookupFunction(m.x64, rva)
	if !ok {
		t.Fatalf("%#x: no RUNTIME_FUNCTION", rva)
	}
	u, err := m.img.UnwindInfoAt(rf.UnwindInfo)
	if err != nil {
		t.Fatal(err)
	}
	return u.PrologSize
}
