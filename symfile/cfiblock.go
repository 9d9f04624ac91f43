package symfile

import (
	"cmp"
	"slices"
	"sort"
	"sync/atomic"
	"unsafe"
)

// cfiBlock is one STACK CFI INIT record and its delta records, parsed once
// (File.cfiBlock) and then shared by every lookup in its range, from any
// goroutine: nothing in it changes once built.
type cfiBlock struct {
	ok     bool // the INIT rule set parsed; Breakpad refuses the block otherwise
	init   CFIRules
	deltas []cfiDelta // by address, one per address (the last record there)
	// rows[k] are the rules in effect from deltas[k].addr on: init with
	// deltas[:k+1] applied. Nil for a block too large to keep them all
	// (maxCFIRowRules); at applies the deltas then.
	rows []CFIRules
	// progs[0] is init compiled, progs[k+1] rows[k]: each on its first
	// lookup (File.cfiProgram), read and stored without a lock.
	progs []atomic.Pointer[CFIProgram]
}

// cfiDelta is a STACK CFI delta record: its address and its rules, up to
// the first error in them.
type cfiDelta struct {
	addr  uint64
	rules []CFIRule
}

// maxCFIRowRules bounds the rules kept in a block's rows: dump_syms writes
// a few dozen deltas of a few registers per function, far below it, while
// a hostile block of thousands of deltas naming new registers would cost
// memory quadratic in its size.
const maxCFIRowRules = 4096

// finish orders the deltas by address, keeps the last record at each
// address, and builds the rows.
func (b *cfiBlock) finish() {
	slices.SortStableFunc(b.deltas, func(x, y cfiDelta) int { return cmp.Compare(x.addr, y.addr) })
	kept := b.deltas[:0]
	for i, d := range b.deltas {
		if i+1 < len(b.deltas) && b.deltas[i+1].addr == d.addr {
			continue // the last record at an address replaces the others
		}
		kept = append(kept, d)
	}
	b.deltas = slices.Clip(kept)
	if len(b.deltas) == 0 {
		b.progs = make([]atomic.Pointer[CFIProgram], 1) // init's
		return
	}
	rows := make([]CFIRules, len(b.deltas))
	cur, total := b.init, 0
	for k, d := range b.deltas {
		cur.Rules = slices.Clone(cur.Rules)
		for _, x := range d.rules {
			cur.Set(x.Register, x.Expr)
		}
		rows[k] = cur
		if total += len(cur.Rules); total > maxCFIRowRules {
			return // rows stays nil
		}
	}
	b.rows = rows
	b.progs = make([]atomic.Pointer[CFIProgram], len(rows)+1)
}

// at returns the rules in effect at addr, an address in the block's range;
// their Rules slice may be the block's own (read only), its capacity
// clipped.
//
// row is the index of those rules' slot in progs, or -1 when they are not
// one of the block's rows (a block too large to keep them).
func (b *cfiBlock) at(addr uint64) (r CFIRules, row int) {
	k := sort.Search(len(b.deltas), func(i int) bool { return b.deltas[i].addr > addr })
	switch {
	case k == 0:
		r, row = b.init, 0
	case b.rows != nil:
		r, row = b.rows[k-1], k
	default:
		r = b.init
		r.Rules = slices.Clone(r.Rules)
		for _, d := range b.deltas[:k] {
			for _, x := range d.rules {
				r.Set(x.Register, x.Expr)
			}
		}
		return r, -1
	}
	r.Rules = slices.Clip(r.Rules)
	return r, row
}

// bytes estimates the memory of the block (HeapBytes). The strings of the
// rows are shared with the deltas and init.
func (b *cfiBlock) bytes() int64 {
	ruleSize := int64(unsafe.Sizeof(CFIRule{}))
	n := int64(unsafe.Sizeof(*b)) + int64(len(b.init.CFA)+len(b.init.RA)) + int64(cap(b.init.Rules))*ruleSize
	for _, x := range b.init.Rules {
		n += int64(len(x.Register) + len(x.Expr))
	}
	for _, d := range b.deltas {
		n += int64(unsafe.Sizeof(d)) + int64(cap(d.rules))*ruleSize
		for _, x := range d.rules {
			n += int64(len(x.Register) + len(x.Expr))
		}
	}
	n += int64(cap(b.rows)) * int64(unsafe.Sizeof(CFIRules{}))
	n += int64(cap(b.progs)) * int64(unsafe.Sizeof(atomic.Pointer[CFIProgram]{}))
	for _, r := range b.rows {
		n += int64(cap(r.Rules)) * ruleSize
	}
	return n
}

// cfiBlock returns the parsed block of f.cfi[at], parsing it on first use.
// Lookups read the table without a lock; two goroutines that parse the same
// block at once keep the first one stored.
func (f *File) cfiBlock(at int) *cfiBlock {
	slot, made := f.cfiParsed.slot(at, f.cfi.len())
	if made != 0 { // a write to the shared line only when the table grew
		f.parsedBytes.Add(made)
	}
	if b := slot.Load(); b != nil {
		return b
	}
	b := f.parseCFIBlock(at)
	if !slot.CompareAndSwap(nil, b) {
		return slot.Load()
	}
	f.parsedBytes.Add(b.bytes())
	return b
}

// cfiProgram returns the compiled form of r, the rules of b's row, compiling
// it on its first lookup; nil when the row does not compile (compileCFI) or
// the File's programs reached maxCFIProgramBytes. Two goroutines that
// compile the same row at once keep the first one stored.
func (f *File) cfiProgram(b *cfiBlock, row int, r CFIRules) *CFIProgram {
	if row < 0 || row >= len(b.progs) {
		return nil
	}
	slot := &b.progs[row]
	if p := slot.Load(); p != nil {
		return p
	}
	if f.cfiProgramBytes.Load() >= maxCFIProgramBytes {
		return nil
	}
	p := compileCFI(r)
	if p == nil {
		return nil
	}
	if !slot.CompareAndSwap(nil, p) {
		return slot.Load()
	}
	n := p.bytes()
	f.cfiProgramBytes.Add(n)
	f.parsedBytes.Add(n)
	return p
}
