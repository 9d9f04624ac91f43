package symfile

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// cfiBlockSym is a symbol file with one small CFI block (deltas out of
// order, two at one address, one bad, one before the INIT address) and one
// block of more deltas than the cached rows may hold (maxCFIRowRules), each
// naming a new register.
func cfiBlockSym(bigDeltas int) string {
	var b strings.Builder
	b.WriteString("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 m\n")
	b.WriteString("STACK CFI INIT 100 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n")
	b.WriteString("STACK CFI 120 .cfa: $rsp 24 + $rbx: .cfa -24 + ^\n")
	b.WriteString("STACK CFI 110 .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n")
	b.WriteString("STACK CFI 120 .cfa: $rsp 32 + $r12: .cfa -32 + ^\n")
	b.WriteString("STACK CFI 128 $r13: .cfa -40 + ^ bad: : $r14: 1\n")
	b.WriteString("STACK CFI 0f0 $r15: 7\n")
	fmt.Fprintf(&b, "STACK CFI INIT 1000 %x .cfa: $rsp 8 + .ra: .cfa -8 + ^\n", bigDeltas+1)
	for i := range bigDeltas {
		fmt.Fprintf(&b, "STACK CFI %x $r%d: .cfa %d - ^\n", 0x1001+i, i, 8*i)
	}
	return b.String()
}

// TestCFIBlockCacheMatchesModel: the cached blocks give, at every address
// and on every repeated lookup, the rules of the eager model (Breakpad's
// FindCFIFrameInfo), in both the rows and the delta-by-delta form.
func TestCFIBlockCacheMatchesModel(t *testing.T) {
	const big = 200 // 200 rows of up to 200 rules: past maxCFIRowRules
	data := []byte(cfiBlockSym(big))
	f, err := NewFile(data, "cfi.sym")
	if err != nil {
		t.Fatal(err)
	}
	m := readModel(data)
	var addrs []uint64
	for a := uint64(0xf0); a <= 0x142; a++ {
		addrs = append(addrs, a)
	}
	for a := uint64(0x1000); a <= 0x1000+big+1; a += 7 {
		addrs = append(addrs, a)
	}
	for pass := range 2 { // the second pass reads the cache
		for _, a := range addrs {
			want, wok := m.cfiRules(a)
			got, ok := f.CFIRules(a)
			if ok != wok || !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Fatalf("pass %d: CFIRules(%#x) = %+v %v, model %+v %v", pass, a, got, ok, want, wok)
			}
		}
	}
	if b := f.cfiBlock(1); b.rows != nil {
		t.Errorf("the %d-delta block kept its rows (%d rules > %d)", big, big*(big+1)/2, maxCFIRowRules)
	}
	if b := f.cfiBlock(0); b.rows == nil || len(b.deltas) != 3 {
		t.Errorf("small block: %d deltas (want 3: 0x110, 0x120, 0x128), rows %v", len(b.deltas), b.rows != nil)
	}
}

// TestCFIRulesCallerOwnsRules: changing a returned rule set in place does
// not change what the next lookup returns.
func TestCFIRulesCallerOwnsRules(t *testing.T) {
	f, _ := NewFile([]byte(cfiBlockSym(3)), "cfi.sym")
	first, _ := f.CFIRules(0x130)
	want, _ := f.CFIRules(0x130)
	want.Rules = append([]CFIRule(nil), want.Rules...)
	first.Set("$rbx", "0")
	first.Set("$new", "1")
	if got, _ := f.CFIRules(0x130); !cmp.Equal(want, got) {
		t.Errorf("after changing an earlier result: %+v, want %+v", got, want)
	}
}

// TestCFIRulesConcurrent: lookups from many goroutines, as a batch's
// workers make them, agree (go test -race checks the sharing).
func TestCFIRulesConcurrent(t *testing.T) {
	data := []byte(cfiBlockSym(50))
	want, _ := NewFile(data, "cfi.sym")
	f, _ := NewFile(data, "cfi.sym")
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 400 {
				a := 0x100 + uint64((i*7+g)%0x40)
				if i%2 == 1 {
					a = 0x1000 + uint64((i*3+g)%51)
				}
				got, ok := f.CFIRules(a)
				w, wok := want.CFIRules(a)
				if ok != wok || !cmp.Equal(w, got) {
					errs <- fmt.Sprintf("CFIRules(%#x) = %+v, want %+v", a, got, w)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestCFIParsedPaged: the parsed blocks of a file of many CFI ranges are
// kept in pages made on first use (a walk touches a few ranges), and every
// range, on either side of a page's edge, still gives the model's rules.
func TestCFIParsedPaged(t *testing.T) {
	const ranges = 3*slotPageLen + 5
	var b strings.Builder
	b.WriteString("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 m\n")
	for i := range ranges {
		fmt.Fprintf(&b, "STACK CFI INIT %x 10 .cfa: $rsp %d + .ra: .cfa -8 + ^\n", 0x1000+0x10*i, 8+8*i)
		fmt.Fprintf(&b, "STACK CFI %x .cfa: $rsp %d + $rbx: .cfa -16 + ^\n", 0x1004+0x10*i, 16+8*i)
	}
	data := []byte(b.String())
	f, err := NewFile(data, "paged.sym")
	if err != nil {
		t.Fatal(err)
	}
	first := 2*slotPageLen + 1
	if _, ok := f.CFIRules(0x1000 + 0x10*uint64(first)); !ok {
		t.Fatalf("range %d: no rules", first)
	}
	if made, all := f.cfiParsed.pagesMade(); made != 1 || all != 4 {
		t.Fatalf("after one lookup: %d of %d pages made, want 1 of 4", made, all)
	}
	if f.cfiParsed.pages[2].Load() == nil {
		t.Errorf("range %d's page (2) not made", first)
	}
	m := readModel(data)
	for i := range ranges {
		for _, a := range []uint64{0x1000 + 0x10*uint64(i), 0x1006 + 0x10*uint64(i)} {
			want, wok := m.cfiRules(a)
			got, ok := f.CFIRules(a)
			if ok != wok || !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Fatalf("CFIRules(%#x) = %+v %v, model %+v %v", a, got, ok, want, wok)
			}
		}
	}
}

// pagesMade counts the pages made so far (tests).
func (s *lazySlots[T]) pagesMade() (made, all int) {
	for i := range s.pages {
		if s.pages[i].Load() != nil {
			made++
		}
	}
	return made, len(s.pages)
}
