package walker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/minidump-stackwalk/minidump-stackwalk/minidump"
	"github.com/minidump-stackwalk/minidump-stackwalk/symfile"
)

// testCFITable returns a register table shaped as the architecture's
// walker's (walker/x86, amd64, arm, arm64: the names dump_syms writes,
// .cfa and .ra as the stack and instruction pointers' alternate names).
func testCFITable(arch minidump.Arch) []CFIRegister {
	var t []CFIRegister
	add := func(name, alt string, saves bool) {
		t = append(t, CFIRegister{Index: len(t), Name: name, Alt: alt, CalleeSaves: saves})
	}
	switch arch {
	case minidump.ArchX86:
		for _, n := range []string{"$eip", "$esp", "$ebp", "$eax", "$ebx", "$ecx", "$edx", "$esi", "$edi"} {
			add(n, map[string]string{"$eip": ".ra", "$esp": ".cfa"}[n], n == "$ebp" || n == "$ebx" || n == "$esi" || n == "$edi")
		}
	case minidump.ArchAMD64:
		for _, n := range []string{"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp",
			"$r8", "$r9", "$r10", "$r11", "$r12", "$r13", "$r14", "$r15", "$rip"} {
			add(n, map[string]string{"$rip": ".ra", "$rsp": ".cfa"}[n], strings.Contains(" $rbx $rbp $r12 $r13 $r14 $r15", n))
		}
	case minidump.ArchARM:
		for i := range 13 {
			add("r"+strconv.Itoa(i), "", i >= 4 && i <= 11)
		}
		add("sp", ".cfa", false)
		add("lr", "", false)
		add("pc", ".ra", false)
	default:
		for i := range 31 {
			add("x"+strconv.Itoa(i), "", i >= 19 && i <= 29)
		}
		add("sp", ".cfa", false)
		add("pc", ".ra", false)
	}
	return t
}

// madeUpMemory reads words made up from their addresses; one address in 5
// is not readable.
type madeUpMemory struct{}

func (madeUpMemory) ReadMemory(addr uint64, b []byte) error {
	v := addr*0x9e3779b97f4a7c15 + 0x1234
	if (v>>32)%5 == 0 {
		return errors.New("not readable")
	}
	var w [8]byte
	binary.LittleEndian.PutUint64(w[:], v)
	copy(b, w[:])
	return nil
}

// TestCallerByCFICompiledMatchesStrings: over every STACK CFI address of
// testdata's .sym files (x86, amd64, arm, arm64), CallerByCFI gives the
// same caller context from the File's compiled rows (registers by the
// table's entries, symfile's CallerRegsTable) as from the rules' strings,
// for callees with every register known and with some unknown.
func TestCallerByCFICompiledMatchesStrings(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/symbols/*/*/*.sym")
	if len(paths) == 0 {
		t.Skip("no testdata symbols")
	}
	w := NewWalker(&Env{Memory: madeUpMemory{}})
	arches := map[string]minidump.Arch{"x86": minidump.ArchX86, "x86_64": minidump.ArchAMD64,
		"arm": minidump.ArchARM, "arm64": minidump.ArchARM64}
	compiled := 0
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := symfile.NewFile(data, filepath.Base(path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		arch, ok := arches[strings.Fields(string(data[:min(len(data), 100)]))[2]]
		if !ok {
			t.Fatalf("%s: unknown architecture", path)
		}
		table := testCFITable(arch)
		for addr := range cfiAddresses(t, data) {
			rules, ok := f.SharedCFIRules(addr)
			if !ok || rules.Compiled == nil {
				continue
			}
			compiled++
			strs := rules
			strs.Compiled = nil
			for salt := range uint64(3) {
				callee := ContextFrame(minidump.NewContext(arch))
				for i, r := range table {
					if v := uint64(i+1)*0x10001000 + salt*0x777; salt == 0 || (v>>12)%3 != salt {
						callee.Context.SetIndex(r.Index, v)
					}
				}
				gotC, okC := w.CallerByCFI(rules, callee, table)
				gotS, okS := w.CallerByCFI(strs, callee, table)
				if okC != okS || gotC != gotS {
					t.Fatalf("%s at %#x (salt %d): compiled %v %+v, strings %v %+v\nrules %+v",
						path, addr, salt, okC, gotC, okS, gotS, rules)
				}
			}
		}
		f.Close()
	}
	t.Logf("%d files, %d compiled CFI rows compared", len(paths), compiled)
	if compiled == 0 {
		t.Error("no compiled rows")
	}
}

// cfiAddresses yields the addresses of data's STACK CFI records (INIT and
// deltas) and the address after each.
func cfiAddresses(t *testing.T, data []byte) func(func(uint64) bool) {
	return func(yield func(uint64) bool) {
		sc := bufio.NewScanner(strings.NewReader(string(data)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 3 || f[0] != "STACK" || f[1] != "CFI" {
				continue
			}
			at := f[2]
			if at == "INIT" && len(f) > 3 {
				at = f[3]
			}
			a, err := strconv.ParseUint(at, 16, 64)
			if err != nil {
				t.Fatal(fmt.Errorf("%q: %w", sc.Text(), err))
			}
			if !yield(a) || !yield(a+1) {
				return
			}
		}
	}
}

// BenchmarkCallerByCFI applies a typical amd64 rule set, a File's
// compiled row, through CallerByCFI: by the table's entries (compiled)
// and from the strings.
func BenchmarkCallerByCFI(b *testing.B) {
	f, err := symfile.NewFile([]byte("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 m\n"+
		"STACK CFI INIT 100 10 .cfa: $rsp 24 + .ra: .cfa -8 + ^ $rbp: .cfa -16 + ^ $rbx: .cfa -24 + ^\n"), "m.sym")
	if err != nil {
		b.Fatal(err)
	}
	rules, ok := f.SharedCFIRules(0x104)
	if !ok || rules.Compiled == nil {
		b.Fatal("no compiled rules")
	}
	table := testCFITable(minidump.ArchAMD64)
	callee := ContextFrame(minidump.NewContext(minidump.ArchAMD64))
	for _, r := range table {
		callee.Context.SetIndex(r.Index, 0x1000)
	}
	w := NewWalker(&Env{Memory: zeroMemory{}})
	for _, form := range []string{"compiled", "strings"} {
		r := rules
		if form == "strings" {
			r.Compiled = nil
		}
		b.Run(form, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := w.CallerByCFI(r, callee, table); !ok {
					b.Fatal("no caller")
				}
			}
		})
	}
}
