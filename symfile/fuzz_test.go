package symfile

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/internal/testkit/corpus"
)

// seedSymData returns the shared corpus symbol files (plain ones, at most
// 32 KiB of each, so that minimizing stays quick) and slices of them cut at awkward places.
func seedSymData(f *testing.F) [][]byte {
	var seeds [][]byte
	root, err := corpus.RepoRoot()
	if err != nil {
		return nil
	}
	if _, err := os.Stat(root + "/../shared/corpus"); err != nil {
		return nil
	}
	for _, p := range corpusSymFiles(f) {
		if strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".zst") {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if len(data) > 32<<10 {
			data = data[:32<<10]
		}
		seeds = append(seeds, data)
		if len(data) > 64 {
			seeds = append(seeds, data[:len(data)/3], data[len(data)/3:len(data)/2], data[len(data)-len(data)/7:])
		}
	}
	return seeds
}

// FuzzParse indexes arbitrary bytes and runs every lookup on addresses
// taken from the file's own records and around them: nothing may panic,
// and every lookup answer must be consistent.
func FuzzParse(f *testing.F) {
	for _, s := range seedSymData(f) {
		f.Add(s)
	}
	f.Add([]byte("MODULE Linux x86_64 ID m\nFUNC m 10 10 0 f\n10 4 1 0\nINLINE 0 1 0 0 10 4\nINLINE_ORIGIN 0 g\nFILE 0 a.c\n"))
	f.Add([]byte("STACK CFI INIT 10 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\r\nSTACK CFI 11 .cfa: $rsp 16 +\r\n"))
	f.Add([]byte("STACK WIN 4 10 20 1 0 0 0 0 0 1 $eip 4 + ^ =\nSTACK WIN 0 10 8 1 0 0 0 0 0 0 1\nPUBLIC 5 0 p\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := NewFile(data, "fuzz.sym")
		if file == nil {
			t.Fatalf("NewFile returned no File (err %v)", err)
		}
		var ce *CorruptError
		if err != nil && (!errors.As(err, &ce) || ce.Line < 1) {
			t.Fatalf("error %v is not a *CorruptError with a line", err)
		}
		// The parallel pass must not depend on where chunks split the data.
		small := &File{name: "fuzz.sym", data: data}
		small.buildIndex(7, nil)
		if !sameIndex(small, file) {
			t.Fatalf("7-byte chunks give another index: errs %v vs %v", small.errs, file.errs)
		}
		// Nor on reading the chunks with pread (the disk path).
		read := &File{name: "fuzz.sym", data: data}
		read.buildIndex(7, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}})
		if !sameIndex(read, file) {
			t.Fatalf("7-byte chunks read from disk give another index: errs %v vs %v", read.errs, file.errs)
		}
		// Nor on the records going to reserved arenas (a File that is
		// closed, as Open's: the sequencer).
		seq := &File{name: "fuzz.sym", data: data, unmap: func() error { return nil }}
		seq.buildIndex(7, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}})
		if !sameIndex(seq, file) {
			t.Fatalf("7-byte chunks into arenas give another index: errs %v vs %v", seq.errs, file.errs)
		}
		seq.Close()
		// Nor on the layout: the arenas of a file of 4 GiB or more are wide.
		wide := &File{name: "fuzz.sym", data: data, unmap: func() error { return nil }}
		wide.buildIndex(7, &diskSource{r: bytes.NewReader(data), release: func(lo, hi int) {}, wide: true})
		if !sameIndex(wide, file) {
			t.Fatalf("7-byte chunks into wide arenas give another index: errs %v vs %v", wide.errs, file.errs)
		}
		wide.Close()
		var addrs []uint64
		for _, e := range file.funcs.all() {
			addrs = append(addrs, e.base, e.base+1, e.high, e.high+1)
		}
		for _, p := range file.pubs.all() {
			addrs = append(addrs, p.addr, p.addr+1, p.addr-1)
		}
		for _, e := range file.cfi.all() {
			addrs = append(addrs, e.base, e.base+1, e.high)
		}
		for _, e := range file.win {
			addrs = append(addrs, e.addr, e.addr+1)
		}
		if len(addrs) > 200 {
			addrs = addrs[:200]
		}
		for _, a := range addrs {
			if sym, ok := file.Lookup(a); ok {
				if !sym.IsPublic && (a < sym.Base || a-sym.Base >= sym.Size) {
					t.Fatalf("Lookup(%#x) = %+v outside its function", a, sym)
				}
				if sym.IsPublic && sym.Base > a {
					t.Fatalf("Lookup(%#x): PUBLIC above the address: %+v", a, sym)
				}
				if file.HasFunctionAt(a) != ok {
					t.Fatalf("HasFunctionAt(%#x) disagrees with Lookup", a)
				}
			}
			if rules, ok := file.CFIRules(a); ok {
				regs := map[string]uint64{"$rsp": 0x1000, "$rip": 0x10, "$esp": 0x1000, "$ebp": 0x2000, "sp": 0x1000}
				rules.FindCallerRegs(regs, zeroMemory{}, 8)
			}
			if w, ok := file.StackWin(a); ok && w.HasProgramString {
				Evaluate(w.ProgramString, map[string]uint64{"$ebp": 0x2000, "$esp": 0x1000}, zeroMemory{}, 4)
			}
		}
	})
}

// zeroMemory reads zeros below 1 MiB and fails above.
type zeroMemory struct{}

func (zeroMemory) ReadMemory(addr uint64, p []byte) error {
	if addr > 1<<20 {
		return errors.New("unmapped")
	}
	clear(p)
	return nil
}

// FuzzEvaluate runs arbitrary programs and expressions: errors are fine,
// panics are not, and a value expression never changes its variables.
func FuzzEvaluate(f *testing.F) {
	for _, s := range []string{
		"$eip 4 + ^ = $esp $ebp 8 + = $ebp $ebp ^ =",
		"$T0 .raSearch = $eip $T0 ^ = $esp $T0 4 + =",
		".cfa -8 + ^", "$rsp 8 +", "1 0 /", "1 0 %", "0x10 16 @", "+", "=", "$a =$b 1 =",
		".undef", "4294967295 1 + ^", "-1 2 *", "$T0 $T1 = $T1 $T0 =",
	} {
		f.Add(s, uint8(8))
		f.Add(s, uint8(4))
	}
	f.Fuzz(func(t *testing.T, program string, word uint8) {
		ws := 4
		if word&1 == 0 {
			ws = 8
		}
		vars := map[string]uint64{"$eip": 1, "$esp": 0x1000, "$ebp": 0x2000, ".raSearch": 0x1004, "$rsp": 0x1000, ".cfa": 0x3000}
		_ = Evaluate(program, vars, zeroMemory{}, ws)
		if ws == 4 {
			for k, v := range vars {
				if v > 0xffffffff {
					t.Fatalf("32-bit program left %s = %#x", k, v)
				}
			}
		}
		before := len(vars)
		snapshot := make(map[string]uint64, len(vars))
		for k, v := range vars {
			snapshot[k] = v
		}
		_, _ = EvaluateValue(program, vars, zeroMemory{}, ws)
		if len(vars) != before {
			t.Fatal("EvaluateValue added variables")
		}
		for k, v := range snapshot {
			if vars[k] != v {
				t.Fatalf("EvaluateValue changed %s", k)
			}
		}
		// The rule-set parser used by CFIRules.
		var r CFIRules
		r.apply([]byte(program))
		// The program as CFI rules: compiled, they evaluate as the strings.
		rules := CFIRules{CFA: program, RA: program, Rules: []CFIRule{{"$x", program}, {".cfa", "$x"}}}
		if p := compileCFI(rules); p != nil {
			compareCFIProgram(t, "fuzz", rules, p)
		}
	})
}
