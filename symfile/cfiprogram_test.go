package symfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// hashRegisters are callee registers made up from their names: a name
// hashing to a multiple of 7 is unknown. Calls to SetCaller are recorded.
type hashRegisters struct {
	salt  string
	calls []string
}

func fnvHash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func (h *hashRegisters) value(name string) (uint64, bool) {
	v := fnvHash([]byte(h.salt + name))
	return v, v%7 != 0
}

func (h *hashRegisters) Register(name string) (uint64, bool) { return h.value(name) }
func (h *hashRegisters) SetCaller(name string, v uint64) {
	h.calls = append(h.calls, fmt.Sprintf("%s=%#x", name, v))
}

// hashMemory reads words made up from their addresses; one address in 4
// is not readable.
type hashMemory struct{}

func (m hashMemory) ReadMemory(addr uint64, buf []byte) error {
	var a [8]byte
	binary.LittleEndian.PutUint64(a[:], addr)
	v := fnvHash(a[:])
	if v%4 == 0 {
		return errors.New("not readable")
	}
	var w [8]byte
	binary.LittleEndian.PutUint64(w[:], v)
	copy(buf, w[:])
	return nil
}

// compareCFIProgram evaluates r from its strings and from its compiled
// form, quietly (Evaluator) and with errors told (FindCallerRegs), over
// made-up registers and memory, and reports any difference.
func compareCFIProgram(t *testing.T, where string, r CFIRules, p *CFIProgram) {
	t.Helper()
	mem := hashMemory{}
	for _, ws := range []int{4, 8} {
		for _, salt := range []string{"a", "b", "c"} {
			strs, comp := r, r
			strs.Compiled, comp.Compiled = nil, p
			rs := &hashRegisters{salt: salt}
			rc := &hashRegisters{salt: salt}
			var x Evaluator
			errS := x.CallerRegs(&strs, rs, mem, ws)
			errC := x.CallerRegs(&comp, rc, mem, ws)
			if errS != errC || !cmp.Equal(rs.calls, rc.calls) {
				t.Fatalf("%s (word %d, %s): strings gave %v %v, compiled %v %v\nrules %+v",
					where, ws, salt, errS, rs.calls, errC, rc.calls, r)
			}
			compareCFITable(t, where, r, p, ws, salt)
			callee := map[string]uint64{}
			for i := range p.ends {
				expr := p.exprString(i)
				for _, op := range p.expr(i) {
					if v, ok := rs.value(op.text(expr)); (op.op == opName || op.op == opReg) && ok {
						callee[op.text(expr)] = v
					}
				}
			}
			outS, errS := strs.FindCallerRegs(callee, mem, ws)
			outC, errC := comp.FindCallerRegs(callee, mem, ws)
			if fmt.Sprint(errS) != fmt.Sprint(errC) || !cmp.Equal(outS, outC) {
				t.Fatalf("%s (word %d, %s): FindCallerRegs from strings %v %v, compiled %v %v",
					where, ws, salt, errS, outS, errC, outC)
			}
		}
	}
}

// tableRegisters are Registers by the strings over a table of
// CFIRegisters and a CFIFrame, as a walker's register file reads and
// sets them: the reference for CallerRegsTable.
type tableRegisters struct {
	t []CFIRegister
	f *CFIFrame
}

func (r *tableRegisters) Register(name string) (uint64, bool) {
	for i := len(r.t) - 1; i >= 0; i-- {
		if r.t[i].Name == name && r.f.CalleeKnown&(1<<i) != 0 {
			return r.f.Callee[i], true
		}
	}
	return 0, false
}

func (r *tableRegisters) SetCaller(name string, v uint64) {
	for i := range r.t {
		if r.t[i].Name == name {
			r.f.ByName[i], r.f.HasName = v, r.f.HasName|1<<i
		}
		if r.t[i].Alt != "" && r.t[i].Alt == name {
			r.f.ByAlt[i], r.f.HasAlt = v, r.f.HasAlt|1<<i
		}
	}
}

// cfiTestTable makes a register table of p's names, some twice, with a
// stack pointer and an instruction pointer under their alternate names
// (.cfa, .ra), one name also another entry's alternate name, and the
// callee's values made up from salt (one in 7 unknown).
func cfiTestTable(p *CFIProgram, salt string) ([]CFIRegister, *CFIFrame) {
	t := []CFIRegister{{Name: "$sp", Alt: ".cfa"}, {Name: "$pc", Alt: ".ra"}}
	for i, n := range p.names {
		t = append(t, CFIRegister{Name: n})
		if i%3 == 1 {
			t = append(t, CFIRegister{Name: n, Alt: p.names[0]})
		}
	}
	t = t[:min(len(t), MaxCFITable)]
	f := &CFIFrame{}
	h := &hashRegisters{salt: salt}
	for i := range t {
		if v, ok := h.value(fmt.Sprint(i, t[i].Name)); ok {
			f.Callee[i], f.CalleeKnown = v, f.CalleeKnown|1<<i
		}
	}
	return t, f
}

// compareCFITable evaluates r from its strings over a table's register
// file and from p by the table's entries (CallerRegsTable), and reports
// any difference.
func compareCFITable(t *testing.T, where string, r CFIRules, p *CFIProgram, ws int, salt string) {
	t.Helper()
	table, fs := cfiTestTable(p, salt)
	fc := *fs
	fc.HasName, fc.ByName[0] = 1, 12345 // stale outputs are cleared
	strs, comp := r, r
	strs.Compiled, comp.Compiled = nil, p
	var x Evaluator
	errS := x.CallerRegs(&strs, &tableRegisters{t: table, f: fs}, hashMemory{}, ws)
	if done, _ := x.CallerRegsTable(&strs, table, &fc, hashMemory{}, ws); done {
		t.Fatalf("%s: CallerRegsTable ran rules with no compiled program", where)
	}
	for range 2 { // the second time with the names resolved
		done, errC := x.CallerRegsTable(&comp, table, &fc, hashMemory{}, ws)
		if !done || errS != errC || fs.HasName != fc.HasName || fs.HasAlt != fc.HasAlt {
			t.Fatalf("%s (word %d, %s): table from strings %v %#x %#x, compiled %v %v %#x %#x\nrules %+v",
				where, ws, salt, errS, fs.HasName, fs.HasAlt, done, errC, fc.HasName, fc.HasAlt, r)
		}
		for i := range table {
			if fs.HasName&(1<<i) != 0 && fs.ByName[i] != fc.ByName[i] || fs.HasAlt&(1<<i) != 0 && fs.ByAlt[i] != fc.ByAlt[i] {
				t.Fatalf("%s (word %d, %s): entry %d (%+v): strings %#x %#x, compiled %#x %#x",
					where, ws, salt, i, table[i], fs.ByName[i], fs.ByAlt[i], fc.ByName[i], fc.ByAlt[i])
			}
		}
	}
}

// cfiRows returns every row of rules of f's CFI blocks: each INIT and, for
// blocks that keep them, every row after a delta.
func cfiRows(f *File) []CFIRules {
	var rows []CFIRules
	for at := range f.cfi.len() {
		b := f.cfiBlock(at)
		if !b.ok {
			continue
		}
		rows = append(rows, b.init)
		rows = append(rows, b.rows...)
	}
	return rows
}

// TestCFIProgramMatchesStrings: on every CFI row of the repository's and
// the shared corpus's symbol files (every architecture they hold), the
// compiled rules give the same caller registers, in the same order, and
// the same errors as the strings.
func TestCFIProgramMatchesStrings(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/symbols/*/*/*.sym")
	paths = append(paths, corpusSymFiles(t)...)
	var files, rows, compiled int
	seen := map[string]bool{} // rows of the same strings evaluate alike: each distinct row once
	for _, path := range paths {
		if strings.HasSuffix(path, "_bad.out") {
			continue
		}
		f, err := testOpen(path)
		if f == nil {
			t.Logf("%s: %v", path, err)
			continue
		}
		files++
		for i, r := range cfiRows(f) {
			rows++
			key := r.CFA + "\x00" + r.RA
			for _, x := range r.Rules {
				key += "\x00" + x.Register + "\x00" + x.Expr
			}
			if seen[key] {
				compiled++ // as the first of its kind
				continue
			}
			seen[key] = true
			p := compileCFI(r)
			if p == nil {
				continue
			}
			compiled++
			compareCFIProgram(t, fmt.Sprintf("%s row %d", path, i), r, p)
		}
		f.Close()
	}
	t.Logf("%d files, %d rows (%d distinct), %d compiled", files, rows, len(seen), compiled)
	if compiled == 0 || compiled < rows*9/10 {
		t.Errorf("only %d of %d rows compiled", compiled, rows)
	}
}

// TestCFIProgramEdgeCases: rows of odd expressions (literals of each form,
// operators of each kind, glued assignments, too few and too many values,
// .undef, unknown names) give the same from the strings as compiled.
func TestCFIProgramEdgeCases(t *testing.T) {
	exprs := []string{
		"$rsp 8 +", "$rsp -8 +", "$rsp 0x10 +", "$rsp 0X10 -", "18446744073709551615 1 +",
		"99999999999999999999 1 +", "$rsp 16 @", "$rsp 3 /", "$rsp 0 /", "$rsp 0 %", "$rsp 5 %",
		"$rsp 3 *", "$rsp ^", ".cfa -8 + ^", ".cfa", ".undef", "$unknown", "$rsp $rbp", "+", "",
		"$x 8 =", "8 $x =", "$x =8", "=", "$rsp 8 + ^ ^", "-", "1 2 3 + +", "$rsp\t8\n+",
	}
	for _, cfa := range exprs {
		for _, other := range exprs {
			r := CFIRules{CFA: cfa, RA: other, Rules: []CFIRule{{"$rbx", other}, {"$rbp", cfa}, {".cfa", other}}}
			p := compileCFI(r)
			if p == nil {
				if cfa != "" && other != "" {
					t.Errorf("%q %q did not compile", cfa, other)
				}
				continue
			}
			compareCFIProgram(t, fmt.Sprintf("%q %q", cfa, other), r, p)
		}
	}
}

// TestCFIProgramUsedOnlyWhileCurrent: the evaluator runs the compiled
// form (a program changed behind its strings' back shows), and runs the
// strings once the rules change, by Set or by assignment.
func TestCFIProgramUsedOnlyWhileCurrent(t *testing.T) {
	f, err := NewFile([]byte(cfiBlockSym(3)), "cfi.sym")
	if err != nil {
		t.Fatal(err)
	}
	r, ok := f.SharedCFIRules(0x130)
	if !ok || r.Compiled == nil {
		t.Fatalf("SharedCFIRules(0x130) = %+v, %v: want compiled rules", r, ok)
	}
	if again, _ := f.SharedCFIRules(0x131); again.Compiled != r.Compiled {
		t.Error("a second lookup of the row compiled it again")
	}
	lone, err := NewFile([]byte("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 m\n"+
		"STACK CFI INIT 100 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"), "lone.sym")
	if err != nil {
		t.Fatal(err)
	}
	if init, _ := lone.SharedCFIRules(0x104); init.Compiled == nil {
		t.Error("the rules of a block without deltas were not compiled")
	}
	if own, _ := f.CFIRules(0x130); own.Compiled != nil {
		t.Error("CFIRules gave the caller's own rules a compiled form")
	}
	callee := map[string]uint64{"$rsp": 0x1000}
	caller := func(r CFIRules) uint64 {
		t.Helper()
		out, err := r.FindCallerRegs(callee, zeroMemory{}, 8)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		return out[".cfa"]
	}
	if got := caller(r); got != 0x1000+32 {
		t.Fatalf(".cfa = %#x, want %#x", got, 0x1000+32)
	}
	// A program altered behind the strings shows it is what runs.
	c := r.Compiled
	altered := CFIProgram{cfa: c.cfa, ra: c.ra, rules: c.rules, ends: c.ends,
		names: c.names, targets: c.targets, nameRA: c.nameRA, nameCFA: c.nameCFA}
	altered.ops = append([]cfiOp(nil), c.ops...)
	altered.ops[1] = cfiOp{op: opLiteral, val: 64}
	tampered := r
	tampered.Compiled = &altered
	if got := caller(tampered); got != 0x1000+64 {
		t.Fatalf("the compiled form was not used: .cfa = %#x", got)
	}
	assigned := tampered
	assigned.CFA = "$rsp 8 +"
	if got := caller(assigned); got != 0x1008 {
		t.Errorf("rules assigned after the lookup: .cfa = %#x, want 0x1008", got)
	}
	set := tampered
	set.Rules = append([]CFIRule(nil), set.Rules...)
	set.Set("$rbx", ".cfa -16 + ^")
	if set.Compiled != nil {
		t.Error("Set kept the compiled form")
	}
	if got := caller(set); got != 0x1000+32 {
		t.Errorf("rules Set after the lookup: .cfa = %#x, want %#x", got, 0x1000+32)
	}
}

// TestCFIProgramBytes: compiled rows count in HeapBytes, and past
// maxCFIProgramBytes rows stay uncompiled.
func TestCFIProgramBytes(t *testing.T) {
	if n := unsafe.Sizeof(cfiOp{}); n != 16 {
		t.Errorf("a compiled token takes %d bytes, want 16", n)
	}
	f, err := NewFile([]byte(cfiBlockSym(3)), "cfi.sym")
	if err != nil {
		t.Fatal(err)
	}
	f.SharedCFIRules(0x100)
	before := f.HeapBytes()
	r, _ := f.SharedCFIRules(0x130)
	if after := f.HeapBytes(); after < before+r.Compiled.bytes() {
		t.Errorf("HeapBytes %d after compiling a row of %d bytes, %d before", after, r.Compiled.bytes(), before)
	}
	f.cfiProgramBytes.Store(maxCFIProgramBytes)
	if r, _ := f.SharedCFIRules(0x110); r.Compiled != nil {
		t.Error("a row compiled past maxCFIProgramBytes")
	}
}

// exprString is the string of expression i (0 .cfa, 1 .ra, 2+k rule k).
func (p *CFIProgram) exprString(i int) string {
	switch i {
	case 0:
		return p.cfa
	case 1:
		return p.ra
	}
	return p.rules[i-2].Expr
}
